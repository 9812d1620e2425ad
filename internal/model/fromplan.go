package model

import (
	"strconv"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// FromPlan builds the platform as one side of a saved plan sees it: before
// (the state Terraform refreshed) or after (what apply will leave, drift
// included as the plan has it). Every resource_changes entry contributes its
// object on that side, so no-op resources are in both. A value known only
// after apply is marked unknown, never guessed.
func FromPlan(p tfplan.Plan, side tfplan.Side) *Platform {
	keys := tfplan.ClusterKeysOf(p)
	pl := &Platform{}
	tfplan.EachObject(p.ResourceChanges, side, func(c tfplan.ResourceChange, obj tfplan.Node) {
		r := reader{obj: obj, u: Unknown{}}
		src := Src{Address: c.Address, Cluster: keys.Of(c.Address)}
		switch c.Type {
		case "mlplatform_team_namespace":
			pl.Namespaces = append(pl.Namespaces, r.namespace(src))
		case "mlplatform_cluster_queue":
			pl.Queues = append(pl.Queues, r.queue(src))
		case "mlplatform_cohort":
			src.Kind = "Cohort"
			co := &Cohort{Src: src, Spec: spec.Cohort{Name: r.str("name"), Parent: r.str("parent"), ResourceGroups: r.groups()}, Unknown: r.u}
			co.Name = co.Spec.Name
			pl.Cohorts = append(pl.Cohorts, co)
		case "mlplatform_topology":
			src.Kind = "Topology"
			t := &Topology{Src: src, Spec: spec.Topology{Name: r.str("name"), Levels: r.strings("levels")}, Unknown: r.u}
			t.Name = t.Spec.Name
			pl.Topologies = append(pl.Topologies, t)
		case "mlplatform_local_queue":
			src.Kind = "LocalQueue"
			lq := &LocalQueue{Src: src, Spec: spec.LocalQueue{Namespace: r.str("namespace"), Name: r.str("name"), ClusterQueue: r.str("cluster_queue")}, Unknown: r.u}
			if lq.Spec.Namespace != "" && lq.Spec.Name != "" {
				lq.Name = lq.Spec.Namespace + "/" + lq.Spec.Name
			}
			pl.LocalQueues = append(pl.LocalQueues, lq)
		case "mlplatform_resource_flavor":
			pl.Flavors = append(pl.Flavors, r.flavor(src))
		case "mlplatform_gpu_pool":
			pl.Pools = append(pl.Pools, r.pool(src))
		case "mlplatform_provisioning_admission_check":
			src.Kind = "AdmissionCheck"
			pc := &ProvisioningCheck{Src: src, Spec: spec.ProvisioningAdmissionCheck{Name: r.str("name"), ProvisioningClass: r.str("provisioning_class")}, Unknown: r.u}
			pc.Name = pc.Spec.Name
			pl.ProvisioningChecks = append(pl.ProvisioningChecks, pc)
		case "mlplatform_training_network_policy":
			pl.Policies = append(pl.Policies, r.policy(src))
		case "mlplatform_workload_identity":
			src.Kind = "ServiceAccount"
			w := &Identity{Src: src, Spec: spec.WorkloadIdentity{Namespace: r.str("namespace"), KSA: r.str("kubernetes_service_account"),
				GSAEmail: r.str("google_service_account")}, Unknown: r.u}
			if w.Spec.Namespace != "" && w.Spec.KSA != "" {
				w.Name = w.Spec.Namespace + "/" + w.Spec.KSA
			}
			pl.Identities = append(pl.Identities, w)
		case "mlplatform_multikueue_check":
			src.Kind = "AdmissionCheck"
			m := &MultiKueueCheck{Src: src, Spec: spec.MultiKueueCheck{Name: r.str("name")}, Unknown: r.u}
			if cl := obj.Get("clusters"); cl.Unknown() {
				r.u.mark("clusters")
			} else {
				m.Spec.Clusters = []string{}
				for _, x := range cl.List() {
					if s, ok := x.Str(); ok {
						m.Spec.Clusters = append(m.Spec.Clusters, s)
					}
				}
			}
			m.Name = m.Spec.Name
			pl.MultiKueueChecks = append(pl.MultiKueueChecks, m)
		}
	})
	return pl
}

// reader reads one plan object into spec values, marking in u the paths
// known only after apply.
type reader struct {
	obj tfplan.Node
	u   Unknown
}

// str reads a string attribute at path (dotted): "" when null or unknown
// (then marked).
func (r reader) str(path string) string {
	n := r.at(path)
	if n.Unknown() {
		r.u.mark(path)
		return ""
	}
	s, _ := n.Str()
	return s
}

// strings reads a list of strings; nil (and the path marked) when the list
// or an element is unknown.
func (r reader) strings(path string) []string {
	n := r.at(path)
	if n.Unknown() {
		r.u.mark(path)
		return nil
	}
	var out []string
	for _, x := range n.List() {
		if x.Unknown() {
			r.u.mark(path)
			return nil
		}
		if s, ok := x.Str(); ok {
			out = append(out, s)
		}
	}
	return out
}

func (r reader) at(path string) tfplan.Node {
	n := r.obj
	for _, p := range strings.Split(path, ".") {
		n = n.Get(p)
	}
	return n
}

// boolean reads a bool attribute, def when null.
func (r reader) boolean(path string, def bool) bool {
	n := r.at(path)
	if n.Unknown() {
		r.u.mark(path)
		return def
	}
	if b, ok := n.V.(bool); ok {
		return b
	}
	return def
}

func (r reader) integer(path string) int {
	n := r.at(path)
	if n.Unknown() {
		r.u.mark(path)
		return 0
	}
	i, _ := n.Integer()
	return int(i)
}

func (r reader) stringMap(path string) map[string]string {
	m, unknown := r.at(path).StringMap()
	if unknown {
		r.u.mark(path)
		return nil
	}
	return m
}

func (r reader) selector(path string) *spec.LabelSelector {
	n := r.at(path)
	mark := func() *spec.LabelSelector { r.u.mark(path); return nil }
	switch {
	case n.Unknown():
		return mark()
	case n.Null():
		return nil
	}
	ml, unknown := n.Get("match_labels").StringMap()
	if unknown {
		return mark()
	}
	sel := &spec.LabelSelector{MatchLabels: ml}
	me := n.Get("match_expressions")
	if me.Unknown() {
		return mark()
	}
	for _, e := range me.List() {
		k, kok := e.Get("key").Str()
		op, ook := e.Get("operator").Str()
		vals := e.Get("values")
		if !kok || !ook || vals.Unknown() {
			return mark()
		}
		req := spec.SelectorRequirement{Key: k, Operator: op}
		for _, v := range vals.List() {
			s, ok := v.Str()
			if !ok {
				return mark()
			}
			req.Values = append(req.Values, s)
		}
		sel.MatchExpressions = append(sel.MatchExpressions, req)
	}
	return sel
}

func (r reader) tolerations(path string) []spec.Toleration {
	n := r.at(path)
	if n.Unknown() {
		r.u.mark(path)
		return nil
	}
	var out []spec.Toleration
	for _, t := range n.List() {
		var parts [4]string
		for i, a := range []string{"key", "operator", "value", "effect"} {
			v := t.Get(a)
			if v.Unknown() {
				r.u.mark(path)
				return nil
			}
			parts[i], _ = v.Str()
		}
		out = append(out, spec.Toleration{Key: parts[0], Operator: parts[1], Value: parts[2], Effect: parts[3]})
	}
	return out
}

// Itoa formats an integer, for messages.
func Itoa(i int64) string { return strconv.FormatInt(i, 10) }
