package model

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
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

func (r reader) namespace(src Src) *Namespace {
	src.Kind = "Namespace"
	n := &Namespace{Src: src, Unknown: r.u}
	n.Spec = spec.TeamNamespace{Name: r.str("name"), Team: r.str("team"), Owner: r.str("owner"),
		PodSecurity: r.str("pod_security_level"), Labels: r.stringMap("labels")}
	n.Name = n.Spec.Name
	n.Labels = n.Spec.ManagedLabels()
	if n.Spec.Team == "" {
		delete(n.Labels, spec.TeamLabel)
	}
	if n.Spec.Name != "" {
		n.Labels[corev1.LabelMetadataName] = n.Spec.Name
	}
	return n
}

// LabelsUnknown reports whether the namespace's labels are known only
// after apply.
func (n *Namespace) LabelsUnknown() bool {
	return n.Unknown.Any("name", "team", "owner", "pod_security_level", "labels")
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

// groups reads resource_groups. A group, flavor or resource whose name is
// known only after apply marks "resource_groups" (its quotas cannot be
// placed); a flavor of unknown name stays in its group with the name "".
func (r reader) groups() []spec.ResourceGroup {
	groups := r.obj.Get("resource_groups")
	if groups.Unknown() {
		r.u.mark("resource_groups")
		return nil
	}
	var out []spec.ResourceGroup
	for _, g := range groups.List() {
		rg := spec.ResourceGroup{}
		for _, c := range g.Get("covered_resources").List() {
			if s, ok := c.Str(); ok {
				rg.CoveredResources = append(rg.CoveredResources, s)
			}
		}
		flavors := g.Get("flavors")
		if flavors.Unknown() {
			r.u.mark("resource_groups")
		}
		for _, f := range flavors.List() {
			fname, ok := f.Get("name").Str()
			resources := f.Get("resources")
			fq := spec.FlavorQuotas{Name: fname}
			if !ok || resources.Unknown() {
				r.u.mark("resource_groups")
				rg.Flavors = append(rg.Flavors, fq)
				continue
			}
			for _, res := range resources.List() {
				rname, ok := res.Get("name").Str()
				if !ok {
					r.u.mark("resource_groups")
					continue
				}
				q := spec.ResourceQuota{Name: rname}
				for field, dst := range map[string]*string{"nominal_quota": &q.NominalQuota, "borrowing_limit": &q.BorrowingLimit, "lending_limit": &q.LendingLimit} {
					v := res.Get(field)
					if v.Unknown() {
						r.u.mark(QuotaPath(fname, rname, field))
						continue
					}
					*dst, _ = v.Str()
				}
				fq.Resources = append(fq.Resources, q)
			}
			rg.Flavors = append(rg.Flavors, fq)
		}
		out = append(out, rg)
	}
	return out
}

func (r reader) queue(src Src) *ClusterQueue {
	src.Kind = "ClusterQueue"
	q := &ClusterQueue{Src: src, Unknown: r.u, SelectorAbsent: !r.obj.Has("namespace_selector")}
	q.Spec = spec.ClusterQueue{Name: r.str("name"), Cohort: r.str("cohort"), StopPolicy: r.str("stop_policy")}
	if !q.SelectorAbsent {
		q.Spec.NamespaceSelector = r.selector("namespace_selector")
	}
	q.Spec.ResourceGroups = r.groups()
	q.Name = q.Spec.Name
	ac := r.obj.Get("admission_checks")
	switch {
	case ac.Unknown():
		r.u.mark("admission_checks")
	case !ac.Null():
		q.Spec.AdmissionChecks = map[string][]string{}
		m, _ := ac.V.(map[string]any)
		for name := range m {
			on := ac.Get(name).Get("on_flavors")
			switch {
			case on.Unknown():
				r.u.mark("admission_checks")
			case on.Null():
				q.Spec.AdmissionChecks[name] = nil
			default:
				list := []string{}
				for _, f := range on.List() {
					s, ok := f.Str()
					if !ok {
						r.u.mark("admission_checks")
					}
					list = append(list, s)
				}
				q.Spec.AdmissionChecks[name] = list
			}
		}
	}
	return q
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

func (r reader) flavor(src Src) *Flavor {
	src.Kind = "ResourceFlavor"
	f := &Flavor{Src: src, Unknown: r.u, TolerationsAbsent: !r.obj.Has("tolerations")}
	f.Spec = spec.ResourceFlavor{Name: r.str("name"), NodeLabels: r.stringMap("node_labels"), Tolerations: r.tolerations("tolerations")}
	f.Name = f.Spec.Name
	return f
}

func (r reader) pool(src Src) *Pool {
	src.Kind = "node pool"
	p := &Pool{Src: src, GPUs: true, Unknown: r.u}
	s := spec.GPUPool{Project: r.str("project"), Location: r.str("location"), Cluster: r.str("cluster"), Name: r.str("name"),
		Capacity: r.str("capacity"), Labels: r.stringMap("labels"),
		QueuedProvisioning: r.boolean("queued_provisioning", false), WorkloadIdentity: r.boolean("workload_identity", true)}
	var where []string
	for _, w := range []string{s.Project, s.Location, s.Cluster} {
		if w != "" {
			where = append(where, w)
		}
	}
	p.Where = strings.Join(where, "/")
	if r.at("gpu").Unknown() {
		r.u.mark("gpu")
	}
	s.GPU = spec.GPU{Type: r.str("gpu.type"), Count: r.integer("gpu.count"), PartitionSize: r.str("gpu.partition_size")}
	switch sh := r.at("gpu.sharing"); {
	case sh.Unknown():
		r.u.mark("gpu.sharing")
	case !sh.Null():
		s.GPU.Sharing = &spec.GPUSharing{Strategy: r.str("gpu.sharing.strategy"), MaxClients: r.integer("gpu.sharing.max_shared_clients_per_gpu")}
	}
	s.Autoscaling.MaxNodes = r.integer("autoscaling.max_nodes")
	if r.at("autoscaling").Unknown() {
		r.u.mark("autoscaling.max_nodes")
	}
	switch n := r.at("allocatable_gpus_per_node"); {
	case n.Unknown():
		r.u.mark("allocatable_gpus_per_node")
	default:
		v, ok := n.Integer()
		p.AllocatablePerNode, p.AllocatableAbsent = v, !ok // null, or a plan of a provider without it
	}
	switch taints := r.at("taints"); {
	case taints.Unknown():
		r.u.mark("taints")
	default:
		m, _ := taints.V.(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t := taints.Get(k)
			v, e := t.Get("value"), t.Get("effect")
			if t.Unknown() || v.Unknown() || e.Unknown() {
				r.u.mark("taints")
				continue
			}
			vs, _ := v.Str()
			es, _ := e.Str()
			s.Taints = append(s.Taints, spec.Taint{Key: k, Value: vs, Effect: es})
		}
	}
	// effective_taints: what GKE reports (known once the pool exists and its
	// taints do not change); unknown is no reason not to decide, as the
	// planned taints say what GKE will set.
	if et := r.at("effective_taints"); !et.Unknown() {
		for _, t := range et.List() {
			k, kok := t.Get("key").Str()
			v, _ := t.Get("value").Str()
			e, eok := t.Get("effect").Str()
			if kok && eok && !slices.Contains(p.ExtraTaints, spec.Taint{Key: k, Value: v, Effect: e}) {
				p.ExtraTaints = append(p.ExtraTaints, spec.Taint{Key: k, Value: v, Effect: e})
			}
		}
	}
	p.Spec = s
	p.Name = s.Name
	return p
}

func (r reader) policy(src Src) *NetworkPolicy {
	src.Kind = "NetworkPolicy"
	p := &NetworkPolicy{Src: src, Unknown: r.u}
	p.Spec = spec.TrainingNetworkPolicy{Namespace: r.str("namespace"), MetadataServer: r.boolean("metadata_server", true),
		DNS: r.boolean("dns", true), AllowSameNamespace: r.boolean("allow_same_namespace", true), GoogleAPIs: r.str("google_apis"),
		PublicHTTPSEgress: r.boolean("public_https_egress", false)}
	if ee := r.at("extra_egress"); ee.Unknown() {
		r.u.mark("extra_egress")
	} else {
		for _, e := range ee.List() {
			rule := spec.EgressRule{Protocol: "TCP"}
			if s, ok := e.Get("protocol").Str(); ok {
				rule.Protocol = s
			}
			for _, c := range e.Get("cidrs").List() {
				if s, ok := c.Str(); ok {
					rule.CIDRs = append(rule.CIDRs, s)
				}
			}
			for _, pn := range e.Get("ports").List() {
				if i, ok := pn.Integer(); ok {
					rule.Ports = append(rule.Ports, int32(i)) //nolint:gosec // a port number
				}
			}
			if e.Unknown() || e.Get("cidrs").Unknown() || e.Get("ports").Unknown() {
				r.u.mark("extra_egress")
			}
			p.Spec.ExtraEgress = append(p.Spec.ExtraEgress, rule)
		}
	}
	if p.Spec.Namespace != "" {
		p.Name = p.Spec.Namespace + "/" + netpol.DefaultDeny // as FromLive names it
	}
	return p
}

// Itoa formats an integer, for messages.
func Itoa(i int64) string { return strconv.FormatInt(i, 10) }
