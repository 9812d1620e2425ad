package model

// The plan's objects, each read into its spec type by a reader (fromplan.go).

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

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

func (r reader) flavor(src Src) *Flavor {
	src.Kind = "ResourceFlavor"
	f := &Flavor{Src: src, Unknown: r.u, TolerationsAbsent: !r.obj.Has("tolerations")}
	f.Spec = spec.ResourceFlavor{Name: r.str("name"), NodeLabels: r.stringMap("node_labels"), Tolerations: r.tolerations("tolerations"),
		TopologyName: r.str("topology_name")}
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
	s.Autoscaling.MinNodes = r.integer("autoscaling.min_nodes")
	if r.at("autoscaling").Unknown() {
		r.u.mark("autoscaling.max_nodes")
		r.u.mark("autoscaling.min_nodes")
	}
	s.MachineType, s.Placement = r.str("machine_type"), r.str("placement")
	switch n := r.at("topology_labels"); {
	case n.Unknown():
		r.u.mark("topology_labels")
	default:
		if b, ok := n.V.(bool); ok {
			p.TopologyLabelsSaid = &b // a plan of a provider without it computes it from the spec
		}
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
