package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// owner is a ClusterQueue or a Cohort: what holds quota on flavors.
type owner struct {
	kind, name, label string
	src               model.Src
	keys              []model.QuotaKey
	quotas            map[model.QuotaKey]model.Quota
	groupsUnknown     bool
}

func (c *ctx) owners() []owner {
	var out []owner
	for _, q := range c.pl.Queues {
		keys, qs := model.Quotas(q.Spec.ResourceGroups, q.Unknown)
		out = append(out, owner{"ClusterQueue", q.Spec.Name, q.Label(), q.Src, keys, qs, q.GroupsUnknown()})
	}
	for _, co := range c.pl.Cohorts {
		keys, qs := model.Quotas(co.Spec.ResourceGroups, co.Unknown)
		out = append(out, owner{"Cohort", co.Spec.Name, co.Label(), co.Src, keys, qs, co.GroupsUnknown()})
	}
	return out
}

// MLP004: a flavor named in a ClusterQueue or Cohort that does not exist
// (in a plan: that is not in the configuration).
func checkFlavorMissing(c *ctx) {
	nameUnknown := model.NameUnknown(c.pl.Flavors, model.FlavorName)
	for _, o := range c.owners() {
		if o.groupsUnknown {
			c.undecided([]string{o.label}, fmt.Sprintf("could not decide whether the flavors of %s %s are in this configuration: its resource_groups are %s", o.kind, o.name, unknownText))
		}
		seen := map[string]bool{}
		for _, k := range o.keys {
			if seen[k.Flavor] {
				continue
			}
			seen[k.Flavor] = true
			if f := c.pl.Flavor(o.src, k.Flavor); f != nil {
				if f.Deleting != "" {
					c.add(SevWarning, []string{o.label, f.Label()},
						fmt.Sprintf("%s %s admits no job once ResourceFlavor %s is gone: its deletion was asked for at %s, and Kueue's finalizer keeps it only while a queue names it", o.kind, o.name, k.Flavor, f.Deleting),
						"a deletion cannot be undone: if the flavor should stay, run terraform apply once it is gone to create it again; if it should go, remove it from the "+o.kind+"'s resource_groups")
				}
				continue
			}
			switch {
			case nameUnknown:
				c.undecided([]string{o.label}, fmt.Sprintf("could not decide whether ResourceFlavor %s, named by %s %s, is in this configuration: a flavor's name is %s", k.Flavor, o.kind, o.name, unknownText))
			case c.pl.Live:
				c.add(SevError, []string{o.label},
					fmt.Sprintf("%s %s admits no job: ResourceFlavor %s does not exist, and Kueue keeps a %s with a missing flavor inactive", o.kind, o.name, k.Flavor, o.kind),
					"create it again (terraform apply puts back a flavor deleted out of band), or remove it from the "+o.kind+"'s resource_groups")
			default:
				c.add(SevWarning, []string{o.label},
					fmt.Sprintf("%s %s admits no job while ResourceFlavor %s does not exist: the flavor is not in this configuration (if it exists in the cluster, ignore this), and Kueue keeps a %s with a missing flavor inactive", o.kind, o.name, k.Flavor, o.kind),
					"add an mlplatform_resource_flavor named "+k.Flavor+" or name the flavor by reference (mlplatform_resource_flavor.NAME.name) in resource_groups")
			}
		}
	}
}

// gpuQuotaFlavors lists, in name order, the flavors with nvidia.com/gpu
// quota in a ClusterQueue or Cohort of their cluster.
func (c *ctx) gpuQuotaFlavors() []*model.Flavor {
	var out []*model.Flavor
	for _, f := range c.pl.Flavors {
		if !model.FlavorName(f).Known {
			continue
		}
		has := false
		for _, q := range model.InCluster(f.Src, c.pl.Queues) {
			if _, ok := q.GPUQuota(f.Spec.Name); ok {
				has = true
			}
		}
		for _, co := range model.InCluster(f.Src, c.pl.Cohorts) {
			if _, ok := co.GPUQuota(f.Spec.Name); ok {
				has = true
			}
		}
		if has {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.Name < out[j].Spec.Name })
	return out
}

// quotaHolders says who holds GPU quota on the flavor: "team-a: 8, team-b: 16".
func (c *ctx) quotaHolders(f *model.Flavor) string {
	var parts []string
	for _, q := range model.InCluster(f.Src, c.pl.Queues) {
		if n, ok := q.GPUQuota(f.Spec.Name); ok {
			parts = append(parts, q.Spec.Name+": "+n.Text(unknownText))
		}
	}
	return strings.Join(parts, ", ")
}

// MLP005: a flavor with quota that stands for no pool: no pool's nodes
// carry each of its node labels. In a plan, the flavors with GPU quota and
// the GPU pools (the other pools are not the configuration's); live, every
// flavor with quota and every node pool.
func checkFlavorSelectsNoPool(c *ctx) {
	if len(c.pl.Pools) == 0 && !c.pl.Live {
		return // the pools are managed elsewhere
	}
	gpu := map[*model.Flavor]bool{}
	for _, f := range c.gpuQuotaFlavors() {
		gpu[f] = true
	}
	for _, f := range c.quotaFlavors() {
		if !f.Unknown.Any("node_labels") && len(f.Spec.NodeLabels) == 0 {
			continue // no node labels: the flavor stands for every node
		}
		if !gpu[f] && !c.pl.Live {
			continue
		}
		pools, decided := c.pl.PoolsOf(f)
		if gpu[f] {
			pools = slices.DeleteFunc(pools, func(p *model.Pool) bool { return !p.GPUs })
		}
		switch {
		case !decided && len(pools) == 0:
			c.undecided([]string{f.Label()}, fmt.Sprintf("could not decide whether flavor %s selects a GPU pool: its node_labels or a pool's node labels are %s", f.Spec.Name, unknownText))
		case len(pools) == 0 && gpu[f]:
			c.add(SevError, []string{f.Label()},
				fmt.Sprintf("quota on flavor %s (%s nvidia.com/gpu) is for capacity that cannot exist: no GPU pool's nodes carry all of its node_labels (%s), so workloads admitted on it stay Pending",
					f.Spec.Name, c.quotaHolders(f), labelList(f.Spec.NodeLabels)),
				"set the flavor's node_labels to its pool's node_selector (node_labels = mlplatform_gpu_pool.POOL.node_selector)")
		case len(pools) == 0:
			c.add(SevError, []string{f.Label()},
				fmt.Sprintf("quota on flavor %s (of %s) is for capacity that cannot exist: no node pool's nodes carry all of its node_labels (%s), so workloads admitted on it stay Pending",
					f.Spec.Name, strings.Join(c.quotaOwners(f), ", "), labelList(f.Spec.NodeLabels)),
				"set the flavor's node_labels to labels its pool's nodes carry (for a GPU pool, node_labels = mlplatform_gpu_pool.POOL.node_selector)")
		}
	}
}

// quotaFlavors lists, in name order, the flavors a ClusterQueue or Cohort
// of their cluster has quota on.
func (c *ctx) quotaFlavors() []*model.Flavor {
	var out []*model.Flavor
	for _, f := range c.pl.Flavors {
		if model.FlavorName(f).Known && len(c.quotaOwners(f)) > 0 {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec.Name < out[j].Spec.Name })
	return out
}

// quotaOwners names the ClusterQueues and Cohorts with quota on the flavor.
func (c *ctx) quotaOwners(f *model.Flavor) []string {
	var out []string
	for _, o := range c.ownersOf(f) {
		out = append(out, o.kind+" "+o.name)
	}
	return out
}

// ownersOf lists the ClusterQueues and Cohorts of the flavor's cluster whose
// quotas name it.
func (c *ctx) ownersOf(f *model.Flavor) []owner {
	var out []owner
	for _, o := range c.owners() {
		if model.SameCluster(o.src, f.Src) && slices.ContainsFunc(o.keys, func(k model.QuotaKey) bool { return k.Flavor == f.Spec.Name }) {
			out = append(out, o)
		}
	}
	return out
}

func labelList(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ", ")
}

func poolName(p *model.Pool) string     { return p.Spec.Name }
func flavorName(f *model.Flavor) string { return f.Spec.Name }

// MLP006: a flavor that stands for pools with different GPUs.
func checkFlavorMixedPools(c *ctx) {
	for _, f := range c.gpuQuotaFlavors() {
		pools, decided := c.pl.PoolsOf(f)
		pools = slices.DeleteFunc(pools, func(p *model.Pool) bool { return !p.GPUs })
		if !decided || len(pools) < 2 {
			continue // MLP005 reports unknown labels
		}
		kinds := map[string]bool{}
		undecided := false
		for _, p := range pools {
			if _, ok := p.GPUType(); !ok || p.Slicing().Unit == "" {
				undecided = true
			}
			kinds[p.GPUKind()] = true
		}
		res := append([]string{f.Label()}, labels(pools)...)
		switch {
		case undecided:
			c.undecided(res, fmt.Sprintf("could not decide whether the pools of flavor %s have the same GPUs: a pool's gpu is %s", f.Spec.Name, unknownText))
		case len(kinds) > 1:
			var desc []string
			for _, p := range pools {
				desc = append(desc, fmt.Sprintf("%s (%s)", p.Spec.Name, p.GPUKind()))
			}
			c.add(SevWarning, res,
				fmt.Sprintf("a job admitted on flavor %s may run on any of %s: its quota does not say which GPU a job gets", f.Spec.Name, strings.Join(desc, ", ")),
				"make one flavor per kind of GPU, each with node_labels = mlplatform_gpu_pool.POOL.node_selector")
		}
	}
}

// MLP013: a flavor whose pools at max_nodes hold fewer GPUs than the single
// largest queue's nominal quota of it: a job that size fits the quota and
// can never be placed.
func checkGangLargerThanPools(c *ctx) {
	for _, f := range c.gpuQuotaFlavors() {
		pools, decided := c.pl.PoolsOf(f)
		unknown := !decided
		if decided && len(pools) == 0 {
			continue // MLP005
		}
		var largest model.Qty
		var largestQ *model.ClusterQueue
		for _, q := range model.InCluster(f.Src, c.pl.Queues) {
			n, ok := q.GPUQuota(f.Spec.Name)
			if !ok {
				continue
			}
			if n.State == model.QUnknown {
				unknown = true
				continue
			}
			if n.State == model.QKnown && (largest.State != model.QKnown || largest.Less(n)) {
				largest, largestQ = n, q
			}
		}
		total := model.KnownQty("0")
		for _, p := range pools {
			u, _ := p.Units()
			total = total.Plus(u)
		}
		res := append([]string{f.Label()}, labels(pools)...)
		if largestQ != nil {
			res = append([]string{largestQ.Label()}, res...)
		}
		switch {
		case unknown || total.State == model.QUnknown:
			c.undecided(res, fmt.Sprintf("could not decide whether the pools of flavor %s can hold the largest queue's quota: a quota, node_labels, max_nodes or allocatable_gpus_per_node is %s", f.Spec.Name, unknownText))
		case largestQ != nil && total.Less(largest):
			c.add(SevError, res,
				fmt.Sprintf("a job of %s nvidia.com/gpu on flavor %s fits ClusterQueue %s's quota but can never be placed: its pools (%s) grow to at most %s (max_nodes × allocatable_gpus_per_node), so Kueue admits it and its pods stay Pending",
					largest.Raw, f.Spec.Name, largestQ.Spec.Name, namesOf(pools, poolName), total.Raw),
				fmt.Sprintf("raise the pools' autoscaling.max_nodes to hold %s, or lower the queue's nominal_quota of %s to at most %s", largest.Raw, f.Spec.Name, total.Raw))
		}
	}
}

// MLP014: a sliced flavor (MIG or shared GPUs) listed in a resource group
// before a whole-GPU flavor.
func checkSlicedBeforeWhole(c *ctx) {
	// kind: sliced or whole GPUs; known false when the flavor is not in
	// the platform, has no pool or mixes both (other checks say so);
	// undecided when a value is unknown until apply.
	kind := func(q *model.ClusterQueue, fname string) (sliced, known, undecided bool) {
		f := c.pl.Flavor(q.Src, fname)
		if f == nil {
			return false, false, false
		}
		pools, decided := c.pl.PoolsOf(f)
		if !decided {
			return false, false, true
		}
		pools = slices.DeleteFunc(pools, func(p *model.Pool) bool { return !p.GPUs })
		if len(pools) == 0 {
			return false, false, false
		}
		for _, p := range pools {
			if p.Slicing().Unit == "" {
				return false, false, true
			}
		}
		s := pools[0].Slicing()
		for _, p := range pools {
			if p.Slicing().Sliced() != s.Sliced() {
				return false, false, false
			}
		}
		return s.Sliced(), true, false
	}
	for _, q := range c.pl.Queues {
		for _, g := range q.Spec.ResourceGroups {
			if !covers(g.CoveredResources) {
				continue
			}
			var sliced, undecided []string
			found := false
			for _, fq := range g.Flavors {
				fname := fq.Name
				sl, known, und := kind(q, fname)
				switch {
				case und:
					undecided = append(undecided, fname)
				case !known:
				case sl:
					sliced = append(sliced, fname)
				case len(sliced) > 0:
					res := []string{q.Label()}
					for _, s := range append(append([]string{}, sliced...), fname) {
						if f := c.pl.Flavor(q.Src, s); f != nil {
							res = append(res, f.Label())
						}
					}
					c.add(SevWarning, res,
						fmt.Sprintf("a job of ClusterQueue %s that did not ask for slices may be given slices: sliced flavor %s comes before whole-GPU flavor %s, and Kueue tries a resource group's flavors in order",
							q.Spec.Name, strings.Join(sliced, ", "), fname),
						"list sliced flavors last in resource_groups, or taint the sliced pool so only jobs that tolerate it land there")
					sliced, found = nil, true
				}
			}
			if !found && len(undecided) > 0 && len(g.Flavors) > 1 {
				c.undecided([]string{q.Label()}, fmt.Sprintf("could not decide whether ClusterQueue %s lists a sliced flavor before a whole-GPU one: whether %s is sliced is %s", q.Spec.Name, strings.Join(undecided, ", "), unknownText))
			}
		}
	}
}
