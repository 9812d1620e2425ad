package model

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The relations between the platform's objects, each decided once and by
// Kubernetes' own matching wherever Kubernetes has it: every rule, the
// capacity table and the cost table use these, for a plan and for a live
// cluster alike.

// Decision is the answer to a question about the platform: Yes, No, or
// Undecided (a value it needs is known only after apply).
type Decision int

// The answers.
const (
	No Decision = iota
	Yes
	Undecided
)

// Selects reports whether a ClusterQueue's namespace selector selects a
// namespace with these labels, as Kueue does (metav1.LabelSelectorAsSelector;
// a nil selector selects none, an empty one every namespace). An invalid
// selector selects none.
func Selects(sel *spec.LabelSelector, lbls map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(Selector(sel))
	if err != nil || sel == nil {
		return false
	}
	return s.Matches(labels.Set(lbls))
}

// Selector is the Kubernetes form of a spec selector (nil stays nil).
func Selector(sel *spec.LabelSelector) *metav1.LabelSelector {
	if sel == nil {
		return nil
	}
	out := &metav1.LabelSelector{MatchLabels: sel.MatchLabels}
	for _, e := range sel.MatchExpressions {
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: e.Values})
	}
	return out
}

// SelectsAll reports whether a selector selects every namespace ({}).
func SelectsAll(sel *spec.LabelSelector) bool {
	return sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
}

// Tolerates reports whether one of tols tolerates the taint, as the
// scheduler decides it (corev1.Toleration.ToleratesTaint).
func Tolerates(tols []spec.Toleration, t spec.Taint) bool {
	taint := corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)}
	return slices.ContainsFunc(tols, func(s spec.Toleration) bool {
		tol := corev1.Toleration{Key: s.Key, Operator: corev1.TolerationOperator(s.Operator), Value: s.Value, Effect: corev1.TaintEffect(s.Effect)}
		if tol.Operator == "" {
			tol.Operator = corev1.TolerationOpEqual
		}
		return tol.ToleratesTaint(klog.Background(), &taint, false)
	})
}

// Taints are the taints on the pool's nodes that keep pods off them
// (spec.GPUPool.NodeTaints, with GKE's GPU taint on every GPU pool and what
// GKE reports beyond the spec); decided false when the pool's taints or
// queued_provisioning are known only after apply.
func (p *Pool) Taints() (taints []spec.Taint, decided bool) {
	taints = p.Spec.NodeTaints()
	if p.GPUs && !slices.Contains(taints, spec.GPUTaint) {
		taints = append([]spec.Taint{spec.GPUTaint}, taints...)
	}
	for _, t := range p.ExtraTaints {
		if (t.Effect == "NoSchedule" || t.Effect == "NoExecute") && !slices.Contains(taints, t) {
			taints = append(taints, t)
		}
	}
	return taints, !p.Unknown.Any("taints", "queued_provisioning")
}

// labelSource is the pool attribute each node label GKE sets follows from.
var labelSource = map[string]string{
	spec.NodePoolLabel:        "name",
	spec.AcceleratorLabel:     "gpu.type",
	spec.PartitionSizeLabel:   "gpu.partition_size",
	spec.SharingStrategyLabel: "gpu.sharing",
	spec.MaxClientsLabel:      "gpu.sharing",
	spec.SpotLabel:            "capacity",
	spec.FlexStartLabel:       "capacity",
}

// StandsFor reports whether a flavor stands for a pool: every one of the
// flavor's node labels is carried by the pool's nodes
// (spec.GPUPool.NodeLabels), so a workload admitted on the flavor can land
// there. A flavor without node labels stands for every pool; a label GKE
// sets that the pool does not decide (spec.GPUPool.KnowsNodeLabel) is taken
// as carried. Undecided when a label, or what the pool's nodes carry for
// it, is known only after apply.
func StandsFor(f *Flavor, p *Pool) Decision {
	if f.Unknown.Any("node_labels") {
		return Undecided
	}
	have := p.Spec.NodeLabels()
	undecided := false
	for k, v := range f.Spec.NodeLabels {
		src, gke := labelSource[k]
		switch {
		case gke && p.Unknown.Any(src):
			undecided = true
		case !gke && p.Unknown.Any("labels"):
			undecided = true
		case !p.Spec.KnowsNodeLabel(k):
		case have[k] != v:
			return No
		}
	}
	if undecided {
		return Undecided
	}
	return Yes
}

// PoolsOf lists the pools of the flavor's cluster it stands for; decided is
// false when that is known only after apply for some pool.
func (pl *Platform) PoolsOf(f *Flavor) (pools []*Pool, decided bool) {
	return standing(InCluster(f.Src, pl.Pools), func(p *Pool) Decision { return StandsFor(f, p) })
}

// FlavorsOf lists the flavors of the pool's cluster that stand for it;
// decided is false when that is known only after apply for some flavor.
func (pl *Platform) FlavorsOf(p *Pool) (flavors []*Flavor, decided bool) {
	return standing(InCluster(p.Src, pl.Flavors), func(f *Flavor) Decision { return StandsFor(f, p) })
}

// standing keeps the xs the relation says Yes for; decided is false when it
// is Undecided for one.
func standing[T any](xs []T, rel func(T) Decision) (out []T, decided bool) {
	decided = true
	for _, x := range xs {
		switch rel(x) {
		case Yes:
			out = append(out, x)
		case Undecided:
			decided = false
		}
	}
	return out, decided
}

// Pins reports whether a flavor places its pods on the pools it stands for:
// it has node labels (or they are known only after apply). A flavor without
// node labels stands for every pool, and pins its pods to none (Kueue adds
// no node selector): they land wherever they fit, so no one pool's taints
// or provisioning are the flavor's to match.
func Pins(f *Flavor) bool { return len(f.Spec.NodeLabels) > 0 || f.Unknown.Any("node_labels") }

// PinnedPoolsOf lists the pools the flavor pins its pods to (PoolsOf, for a
// flavor that Pins; none for one that does not).
func (pl *Platform) PinnedPoolsOf(f *Flavor) (pools []*Pool, decided bool) {
	if !Pins(f) {
		return nil, true
	}
	return pl.PoolsOf(f)
}

// PinningFlavorsOf lists the flavors that pin their pods to the pool
// (FlavorsOf, without those that do not Pin).
func (pl *Platform) PinningFlavorsOf(p *Pool) (flavors []*Flavor, decided bool) {
	flavors, decided = pl.FlavorsOf(p)
	return slices.DeleteFunc(flavors, func(f *Flavor) bool { return !Pins(f) }), decided
}
