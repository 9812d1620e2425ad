package report

import (
	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// A snapshot is the platform as one side of the plan sees it (the model,
// model.FromPlan, before or after), in the shapes the quota, capacity and
// cost tables read: no-op resources are on both sides, so the capacity
// check sees the whole platform.

type qkey = model.QuotaKey

type quota = model.Quota

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
	*model.Flavor
	Address       string
	Name          string // known name, or the address
	LabelsUnknown bool
	Cluster       string
}

// poolState is a pool as the tables read it.
type poolState struct {
	*model.Pool
	Address    string
	Name       string // known name, or the address
	GPUType    string // "" when unknown
	GPUCount   int64
	CountKnown bool
	Capacity   string // "" when unknown
	MaxNodes   int64
	MaxKnown   bool
	MinNodes   int64
	MinKnown   bool
	Cluster    string
}

type snapshot struct {
	Queues  []*quotaOwner
	Cohorts []*quotaOwner
	Flavors []*flavorState
	Pools   []*poolState
	// MKChecks are the known names of the mlplatform_multikueue_checks.
	MKChecks map[string]bool
	pl       *model.Platform
}

func nameOr(n model.Known, addr string) string {
	if n.Known {
		return n.S
	}
	return addr
}

func queueOwner(q *model.ClusterQueue) *quotaOwner {
	o := &quotaOwner{Address: q.Address, Name: nameOr(model.QueueName(q), q.Address), Cluster: q.Cluster,
		Parent: model.QtyOf(q.Spec.Cohort, q.Unknown.Any("cohort")), GroupsUnknown: q.GroupsUnknown()}
	o.Keys, o.Quotas = model.Quotas(q.Spec.ResourceGroups, q.Unknown)
	for name := range q.Spec.AdmissionChecks {
		o.Checks = append(o.Checks, name)
	}
	return o
}

func cohortOwner(c *model.Cohort) *quotaOwner {
	o := &quotaOwner{Address: c.Address, Name: nameOr(model.CohortName(c), c.Address), Cluster: c.Cluster,
		Parent: model.QtyOf(c.Spec.Parent, c.Unknown.Any("parent")), GroupsUnknown: c.GroupsUnknown()}
	o.Keys, o.Quotas = model.Quotas(c.Spec.ResourceGroups, c.Unknown)
	return o
}

func snapshotOf(pl *model.Platform) snapshot {
	snap := snapshot{MKChecks: map[string]bool{}, pl: pl}
	for _, q := range pl.Queues {
		snap.Queues = append(snap.Queues, queueOwner(q))
	}
	for _, c := range pl.Cohorts {
		snap.Cohorts = append(snap.Cohorts, cohortOwner(c))
	}
	for _, f := range pl.Flavors {
		snap.Flavors = append(snap.Flavors, &flavorState{Flavor: f, Address: f.Address, Name: nameOr(model.FlavorName(f), f.Address),
			LabelsUnknown: f.Unknown.Any("node_labels"), Cluster: f.Cluster})
	}
	for _, p := range pl.Pools {
		ps := &poolState{Pool: p, Address: p.Address, Name: p.Spec.Name, Cluster: p.Cluster, Capacity: p.Capacity()}
		if ps.Name == "" {
			ps.Name = p.Address
		}
		ps.GPUType, _ = p.GPUType()
		ps.GPUCount, ps.CountKnown = p.GPUCount()
		ps.MaxNodes, ps.MaxKnown = p.MaxNodes()
		ps.MinNodes, ps.MinKnown = p.MinNodes()
		snap.Pools = append(snap.Pools, ps)
	}
	for _, m := range pl.MultiKueueChecks {
		if n := model.MultiKueueCheckName(m); n.Known {
			snap.MKChecks[n.S] = true
		}
	}
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

// gpus is max_nodes × gpu.count, or unknown.
func (p *poolState) gpus() Qty { return p.GPUsAtMax() }

// slicing, perNode and units are the model's (model.Pool).
func (p *poolState) slicing() Slicing       { return p.Slicing() }
func (p *poolState) perNode() (Qty, string) { return p.PerNode() }
func (p *poolState) units() (Qty, string)   { return p.Units() }

// standsFor says whether the flavor stands for the pool (model.StandsFor).
func (p *poolState) standsFor(f *flavorState) model.Decision {
	return model.StandsFor(f.Flavor, p.Pool)
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
