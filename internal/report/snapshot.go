package report

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
}

type flavorState struct {
	Address       string
	Name          string
	Labels        map[string]string
	LabelsUnknown bool
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
}

type snapshot struct {
	Queues  []*quotaOwner
	Cohorts []*quotaOwner
	Flavors []*flavorState
	Pools   []*poolState
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

func snapshotOf(changes []ResourceChange, s side) snapshot {
	var snap snapshot
	eachObject(changes, s, func(c ResourceChange, obj node) {
		switch c.Type {
		case "mlplatform_cluster_queue":
			snap.Queues = append(snap.Queues, ownerOf(c.Address, obj, "cohort"))
		case "mlplatform_cohort":
			snap.Cohorts = append(snap.Cohorts, ownerOf(c.Address, obj, "parent"))
		case "mlplatform_resource_flavor":
			snap.Flavors = append(snap.Flavors, flavorOf(c.Address, obj))
		case "mlplatform_gpu_pool":
			snap.Pools = append(snap.Pools, poolOf(c.Address, obj))
		}
	})
	return snap
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

func (s snapshot) flavor(name string) *flavorState {
	for _, f := range s.Flavors {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (s snapshot) cohort(name string) *quotaOwner {
	for _, c := range s.Cohorts {
		if c.Name == name {
			return c
		}
	}
	return nil
}
