package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// covers reports whether a resource group covers nvidia.com/gpu.
func covers(resources []string) bool { return slices.Contains(resources, spec.GPUResource) }

// poolFlavors lists the flavors that pin their pods to the pool
// (model.Platform.PinningFlavorsOf); none when one of
// them lacks tolerations in the plan (taint rules skip the pool); decided is
// false when a flavor's or the pool's labels are known only after apply.
func (c *ctx) poolFlavors(p *model.Pool) (flavors []*model.Flavor, decided bool) {
	flavors, decided = c.pl.PinningFlavorsOf(p)
	if slices.ContainsFunc(flavors, func(f *model.Flavor) bool { return f.TolerationsAbsent }) {
		return nil, true
	}
	return flavors, decided
}

func tolerationsUnknown(f *model.Flavor) bool { return f.Unknown.Any("tolerations") }

func untoleratedByAll(taints []spec.Taint, flavors []*model.Flavor) []spec.Taint {
	var out []spec.Taint
	for _, t := range taints {
		if !slices.ContainsFunc(flavors, func(f *model.Flavor) bool { return model.Tolerates(f.Spec.Tolerations, t) }) {
			out = append(out, t)
		}
	}
	return out
}

func taintText(t spec.Taint) string {
	if t.Value == "" {
		return t.Key + ":" + t.Effect
	}
	return t.Key + "=" + t.Value + ":" + t.Effect
}

func taintList(ts []spec.Taint) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = taintText(t)
	}
	return strings.Join(s, ", ")
}

// MLP007: a flavor whose tolerations miss a taint of a pool it stands for,
// which another flavor of that pool tolerates (a taint no flavor of the
// pool tolerates is MLP008).
func checkFlavorMissesTaint(c *ctx) {
	for _, p := range c.pl.Pools {
		flavors, decided := c.poolFlavors(p)
		if !decided || len(flavors) == 0 {
			continue
		}
		taints, allKnown := p.Taints()
		for _, f := range flavors {
			allKnown = allKnown && !tolerationsUnknown(f)
		}
		none := map[spec.Taint]bool{}
		if allKnown {
			for _, t := range untoleratedByAll(taints, flavors) {
				none[t] = true
			}
		}
		for _, f := range flavors {
			if !allKnown {
				c.undecided([]string{f.Label(), p.Label()}, fmt.Sprintf("could not decide whether flavor %s tolerates the taints of pool %s: the pool's taints or queued_provisioning, or a flavor's tolerations, are %s", f.Spec.Name, p.Spec.Name, unknownText))
				continue
			}
			var missed []spec.Taint
			for _, t := range taints {
				if !none[t] && !model.Tolerates(f.Spec.Tolerations, t) {
					missed = append(missed, t)
				}
			}
			if len(missed) > 0 {
				c.add(SevError, []string{f.Label(), p.Label()},
					fmt.Sprintf("workloads admitted on flavor %s are admitted but their pods stay Pending on pool %s (unless every job tolerates it itself): its nodes carry %s, which the flavor's tolerations do not tolerate", f.Spec.Name, p.Spec.Name, taintList(missed)),
					fmt.Sprintf("set the flavor's tolerations to its pool's workload_tolerations (tolerations = %s.workload_tolerations)", poolRef(p)))
			}
		}
	}
}

// poolRef is how a configuration refers to the pool: its address, or the
// resource a live pool would be.
func poolRef(p *model.Pool) string {
	if p.Address != "" {
		return p.Address
	}
	return "mlplatform_gpu_pool." + strings.ReplaceAll(p.Spec.Name, "-", "_")
}

// MLP008: a taint of a pool that none of the flavors standing for it
// tolerates.
func checkPoolTaintUntolerated(c *ctx) {
	for _, p := range c.pl.Pools {
		flavors, decided := c.poolFlavors(p)
		if len(flavors) == 0 && decided {
			continue // no flavor stands for this pool
		}
		res := append(labels(flavors), p.Label())
		taints, taintsKnown := p.Taints()
		if !decided || !taintsKnown || slices.ContainsFunc(flavors, tolerationsUnknown) {
			c.undecided(res, fmt.Sprintf("could not decide whether the flavors of pool %s tolerate its taints: its taints or queued_provisioning, a flavor's tolerations, or node_labels are %s", p.Spec.Name, unknownText))
			continue
		}
		if missed := untoleratedByAll(taints, flavors); len(missed) > 0 {
			c.add(SevError, res,
				fmt.Sprintf("no job Kueue admits on %s runs on pool %s: its nodes carry %s, which none of its flavors tolerates, so the pods stay Pending (unless every job tolerates it itself)",
					namesOf(flavors, flavorName), p.Spec.Name, taintList(missed)),
				fmt.Sprintf("set each flavor's tolerations to the pool's workload_tolerations (tolerations = %s.workload_tolerations), or drop the taint from the pool", poolRef(p)))
		}
	}
}
