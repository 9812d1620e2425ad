package report

import "strings"

// A snapshot is the platform as one side of the plan sees it: before (the
// state Terraform refreshed) or after (what apply will leave). Every
// resource_changes entry contributes its before or after object, so no-op
// resources are in both and the capacity check sees the whole platform.

type side int

const (
	sideBefore side = iota
	sideAfter
)

type qkey struct{ Flavor, Resource string }

type quota struct{ Nominal, Borrowing, Lending Qty }

// quotaOwner is a ClusterQueue or a Cohort with resource_groups.
type quotaOwner struct {
	Address string
	Name    string // known name, or the address when the name is unknown
	Parent  Qty    // cohort (queue) or parent (cohort); a Qty for its absent/unknown/known states
	Quotas  map[qkey]quota
	Keys    []qkey // in the order the configuration lists them
	// GroupsUnknown: resource_groups (or a flavor name in them) is unknown
	// until apply, so Quotas may be incomplete.
	GroupsUnknown bool
	// Cluster is the key of the owner's provider configuration ("" in a
	// plan without configuration); Checks the names of a ClusterQueue's
	// admission checks.
	Cluster string
	Checks  []string
}

type flavorState struct {
	Address       string
	Name          string
	Labels        map[string]string
	LabelsUnknown bool
	Cluster       string // provider configuration key, "" when not known
}

type poolState struct {
	Address         string
	Name            string
	GPUType         string // "" when unknown
	GPUCount        int64
	CountKnown      bool
	Capacity        string // "" when unknown
	MaxNodes        int64
	MaxKnown        bool
	Selector        map[string]string
	SelectorUnknown bool

	// GPU sharing (see sharing.go). Partition is gpu.partition_size, ""
	// when null; Strategy and Clients are gpu.sharing, "" and 0 when null.
	Partition        string
	PartitionUnknown bool
	Strategy         string
	Clients          int64
	SharingUnknown   bool
	// Alloc is allocatable_gpus_per_node: the nvidia.com/gpu one node
	// reports. AllocState is qAbsent in plans of providers without it.
	Alloc      int64
	AllocState qstate
	// Cluster is the provider configuration key ("" when not known); Where
	// the pool's project/location/cluster attributes, for its label.
	Cluster string
	Where   string
}

type snapshot struct {
	Queues  []*quotaOwner
	Cohorts []*quotaOwner
	Flavors []*flavorState
	Pools   []*poolState
	// MKChecks are the known names of the mlplatform_multikueue_checks.
	MKChecks map[string]bool
}

func (c ResourceChange) side(s side) node {
	if s == sideBefore {
		return node{v: c.Change.Before}
	}
	return node{v: c.Change.After, u: c.Change.AfterUnknown}
}

// eachObject calls fn with each managed resource's object on side s,
// skipping data sources and objects that are null there (created or
// destroyed).
func eachObject(changes []ResourceChange, s side, fn func(c ResourceChange, obj node)) {
	for _, c := range changes {
		if c.Mode != "" && c.Mode != "managed" {
			continue
		}
		if obj := c.side(s); !obj.null() {
			fn(c, obj)
		}
	}
}

func flavorOf(addr string, obj node) *flavorState {
	labels, unknown := obj.get("node_labels").stringMap()
	return &flavorState{Address: addr, Name: nameOf(addr, obj), Labels: labels, LabelsUnknown: unknown}
}

func snapshotOf(changes []ResourceChange, s side, keys clusterKeys) snapshot {
	snap := snapshot{MKChecks: map[string]bool{}}
	eachObject(changes, s, func(c ResourceChange, obj node) {
		cluster := keys.of(c.Address)
		switch c.Type {
		case "mlplatform_cluster_queue":
			q := ownerOf(c.Address, obj, "cohort")
			q.Cluster = cluster
			if m, ok := obj.get("admission_checks").v.(map[string]any); ok {
				for name := range m {
					q.Checks = append(q.Checks, name)
				}
			}
			snap.Queues = append(snap.Queues, q)
		case "mlplatform_cohort":
			co := ownerOf(c.Address, obj, "parent")
			co.Cluster = cluster
			snap.Cohorts = append(snap.Cohorts, co)
		case "mlplatform_resource_flavor":
			f := flavorOf(c.Address, obj)
			f.Cluster = cluster
			snap.Flavors = append(snap.Flavors, f)
		case "mlplatform_gpu_pool":
			p := poolOf(c.Address, obj)
			p.Cluster = cluster
			snap.Pools = append(snap.Pools, p)
		case "mlplatform_multikueue_check":
			if n, ok := obj.get("name").str(); ok {
				snap.MKChecks[n] = true
			}
		}
	})
	return snap
}

// manager says whether the ClusterQueue lists a MultiKueue check: a
// MultiKueue manager's queue, which admits workloads only to dispatch them
// to the workers, whose queues and pools hold the capacity.
func (s snapshot) manager(q *quotaOwner) bool {
	for _, n := range q.Checks {
		if s.MKChecks[n] {
			return true
		}
	}
	return false
}

func nameOf(addr string, obj node) string {
	if n, ok := obj.get("name").str(); ok {
		return n
	}
	return addr
}

func ownerOf(addr string, obj node, parentAttr string) *quotaOwner {
	o := &quotaOwner{Address: addr, Name: nameOf(addr, obj), Parent: qtyOf(obj.get(parentAttr)), Quotas: map[qkey]quota{}}
	groups := obj.get("resource_groups")
	if groups.unknown() {
		o.GroupsUnknown = true
		return o
	}
	for _, g := range groups.list() {
		flavors := g.get("flavors")
		if flavors.unknown() {
			o.GroupsUnknown = true
			continue
		}
		for _, f := range flavors.list() {
			fname, ok := f.get("name").str()
			resources := f.get("resources")
			if !ok || resources.unknown() {
				o.GroupsUnknown = true
				continue
			}
			for _, r := range resources.list() {
				rname, ok := r.get("name").str()
				if !ok {
					o.GroupsUnknown = true
					continue
				}
				k := qkey{Flavor: fname, Resource: rname}
				if _, dup := o.Quotas[k]; !dup {
					o.Keys = append(o.Keys, k)
				}
				o.Quotas[k] = quota{
					Nominal:   qtyOf(r.get("nominal_quota")),
					Borrowing: qtyOf(r.get("borrowing_limit")),
					Lending:   qtyOf(r.get("lending_limit")),
				}
			}
		}
	}
	return o
}

func poolOf(addr string, obj node) *poolState {
	p := &poolState{Address: addr, Name: nameOf(addr, obj)}
	var where []string
	for _, a := range []string{"project", "location", "cluster"} {
		if v, ok := obj.get(a).str(); ok && v != "" {
			where = append(where, v)
		}
	}
	p.Where = strings.Join(where, "/")
	gpu := obj.get("gpu")
	p.GPUType, _ = gpu.get("type").str()
	p.GPUCount, p.CountKnown = gpu.get("count").integer()
	p.Capacity, _ = obj.get("capacity").str()
	p.MaxNodes, p.MaxKnown = obj.get("autoscaling").get("max_nodes").integer()
	p.Selector, p.SelectorUnknown = obj.get("node_selector").stringMap()
	part := gpu.get("partition_size")
	p.PartitionUnknown = part.unknown()
	p.Partition, _ = part.str()
	sh := gpu.get("sharing")
	switch {
	case sh.unknown():
		p.SharingUnknown = true
	case !sh.null():
		strategy, clients := sh.get("strategy"), sh.get("max_shared_clients_per_gpu")
		var ok1, ok2 bool
		p.Strategy, ok1 = strategy.str()
		p.Clients, ok2 = clients.integer()
		p.SharingUnknown = !ok1 || !ok2
	}
	alloc := obj.get("allocatable_gpus_per_node")
	switch n, ok := alloc.integer(); {
	case alloc.unknown():
		p.AllocState = qUnknown
	case ok:
		p.Alloc, p.AllocState = n, qKnown
	}
	return p
}

// gpus is max_nodes × gpu.count, or unknown.
func (p *poolState) gpus() Qty {
	if !p.MaxKnown || !p.CountKnown {
		return Qty{State: qUnknown}
	}
	return knownQty(itoa(p.MaxNodes * p.GPUCount))
}

// matches: the pool's node selector is a non-empty subset of the labels, so
// a workload admitted on the flavor can land on the pool's nodes.
func (p *poolState) matches(labels map[string]string) bool {
	if len(p.Selector) == 0 {
		return false
	}
	for k, v := range p.Selector {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	return true
}

// flavor is the flavor of that name in the cluster.
func (s snapshot) flavor(cluster, name string) *flavorState {
	for _, f := range s.Flavors {
		if f.Name == name && f.Cluster == cluster {
			return f
		}
	}
	return nil
}

// cohort is the cohort of that name in the cluster.
func (s snapshot) cohort(cluster, name string) *quotaOwner {
	for _, c := range s.Cohorts {
		if c.Name == name && c.Cluster == cluster {
			return c
		}
	}
	return nil
}
