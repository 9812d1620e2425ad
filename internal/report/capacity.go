package report

// The capacity table: for each flavor, the GPUs its queues may admit against the GPUs the pools it stands for can provide.

import (
	"fmt"
	"sort"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// flavorKey is a flavor in a cluster: flavors (and their queues and pools)
// of the same name in different clusters of a MultiKueue platform are not
// one flavor. Cluster is "" in a plan without configuration.
type flavorKey struct{ Cluster, Name string }

// capacityOwners lists the ClusterQueues and Cohorts of the cluster that
// count towards its pools: MultiKueue manager ClusterQueues do not, as their
// workloads run in the workers (the MultiKueue table compares them).
func capacityOwners(s snapshot, cluster string) (queues, cohorts []*quotaOwner) {
	for _, q := range s.Queues {
		if q.Cluster == cluster && !s.manager(q) {
			queues = append(queues, q)
		}
	}
	for _, c := range s.Cohorts {
		if c.Cluster == cluster {
			cohorts = append(cohorts, c)
		}
	}
	return queues, cohorts
}

// admissible is the sum of the nominal GPU quota of every ClusterQueue and
// Cohort of the cluster for the flavor, MultiKueue managers' aside:
// borrowing moves unused quota inside a cohort tree but never adds to it,
// so this is the most the queues may hold at once.
func admissible(s snapshot, f flavorKey) Qty {
	total := model.KnownQty("0")
	queues, cohorts := capacityOwners(s, f.Cluster)
	for _, owners := range [][]*quotaOwner{queues, cohorts} {
		for _, o := range owners {
			if o.GroupsUnknown {
				return Qty{State: qUnknown}
			}
			total = total.Plus(o.Quotas[qkey{Flavor: f.Name, Resource: gpuResource}].Nominal)
		}
	}
	return total
}

// managerQuota is the nominal GPU quota of the cluster's MultiKueue manager
// ClusterQueues on the flavor; ok is false when none has quota on it.
func managerQuota(s snapshot, f flavorKey) (total Qty, ok bool) {
	total = model.KnownQty("0")
	for _, q := range s.Queues {
		if q.Cluster != f.Cluster || !s.manager(q) {
			continue
		}
		if q.GroupsUnknown {
			return Qty{State: qUnknown}, true
		}
		if n, has := q.Quotas[qkey{Flavor: f.Name, Resource: gpuResource}]; has {
			total, ok = total.Plus(n.Nominal), true
		}
	}
	return total, ok
}

// peak is the most one queue may hold of the flavor's GPUs: its nominal quota
// plus what it may borrow, which is its borrowing_limit (unset: no limit)
// capped by what the rest of its cohort can lend (each other member's
// lending_limit, or all of its nominal quota when unset, plus the cohort's
// own quota). Parent cohorts are not counted.
func peak(s snapshot, f flavorKey) (Qty, string) {
	k := qkey{Flavor: f.Name, Resource: gpuResource}
	queues, _ := capacityOwners(s, f.Cluster)
	best, bestName := Qty{}, ""
	for _, q := range queues {
		own, ok := q.Quotas[k]
		if !ok && !q.GroupsUnknown {
			continue
		}
		var p Qty
		switch {
		case q.GroupsUnknown || q.Parent.State == qUnknown:
			p = Qty{State: qUnknown}
		case q.Parent.State == qAbsent:
			p = own.Nominal
		default:
			lendable := model.KnownQty("0")
			for _, o := range queues {
				if o == q || cohortKey(o) != q.Parent.Raw {
					continue
				}
				if o.GroupsUnknown {
					lendable = Qty{State: qUnknown}
					break
				}
				oq, ok := o.Quotas[k]
				if !ok {
					continue
				}
				if oq.Lending.State != qAbsent {
					lendable = lendable.Plus(oq.Lending)
				} else {
					lendable = lendable.Plus(oq.Nominal)
				}
			}
			if c := s.cohort(f.Cluster, q.Parent.Raw); c != nil {
				if c.GroupsUnknown {
					lendable = Qty{State: qUnknown}
				} else {
					lendable = lendable.Plus(c.Quotas[k].Nominal)
				}
			}
			borrow := lendable
			if own.Borrowing.State == qUnknown {
				borrow = Qty{State: qUnknown}
			} else if own.Borrowing.State == qKnown && borrow.State == qKnown && own.Borrowing.Less(borrow) {
				borrow = own.Borrowing
			}
			p = own.Nominal.Plus(borrow)
		}
		switch {
		case p.State == qUnknown:
			return p, q.Name
		case best.State == qAbsent || best.Less(p):
			best, bestName = p, q.Name
		}
	}
	return best, bestName
}

// provided sums max_nodes × allocatable_gpus_per_node (gpu.count in plans
// without it) over the cluster's pools the flavor stands for (every one of
// its node labels is carried by the pool's nodes, model.StandsFor): on GKE
// each MIG slice or shared GPU is one nvidia.com/gpu.
func provided(s snapshot, fk flavorKey) (Qty, []string, string) {
	f := s.flavor(fk.Cluster, fk.Name)
	if f == nil {
		return Qty{}, nil, "ResourceFlavor not in this plan"
	}
	if f.LabelsUnknown {
		return Qty{State: qUnknown}, nil, "node_labels " + unknownText
	}
	total := model.KnownQty("0")
	var names []string
	unknownWhy := ""
	for _, p := range s.Pools {
		if p.Cluster != fk.Cluster {
			continue
		}
		switch p.standsFor(f) {
		case model.Undecided:
			return Qty{State: qUnknown}, nil, "a pool's node labels are " + unknownText
		case model.No:
			continue
		}
		names = append(names, p.Name)
		n, why := p.units()
		if n.State == qUnknown && unknownWhy == "" && why != "size" {
			unknownWhy = "a matching pool's " + why + " is " + unknownText
		}
		total = total.Plus(n)
	}
	if len(names) == 0 {
		return Qty{}, nil, "no mlplatform_gpu_pool's nodes carry all its node_labels"
	}
	if total.State == qUnknown {
		return total, names, unknownWhy
	}
	return total, names, ""
}

// capacityObjects are the addresses of what the capacity of a flavor
// involves: the flavor, the ClusterQueues and Cohorts holding GPU quota on
// it, and the pools it stands for (the places an over-commit is fixed).
func capacityObjects(s snapshot, fk flavorKey) []string {
	var out []string
	f := s.flavor(fk.Cluster, fk.Name)
	if f != nil {
		out = append(out, f.Address)
	}
	queues, cohorts := capacityOwners(s, fk.Cluster)
	for _, o := range append(queues, cohorts...) {
		for k, q := range o.Quotas {
			if k.Flavor == fk.Name && k.Resource == gpuResource && q.Nominal.OrZero().Sign() > 0 {
				out = append(out, o.Address)
				break
			}
		}
	}
	for _, p := range s.Pools {
		if f != nil && p.Cluster == fk.Cluster && p.standsFor(f) == model.Yes {
			out = append(out, p.Address)
		}
	}
	return out
}

// managerFlavorStatus is the capacity status of a flavor only MultiKueue
// manager ClusterQueues hold quota on: it has no pool behind it by design.
const managerFlavorStatus = "MultiKueue manager flavor: capacity is the workers'"

func capacity(before, after snapshot, poolsInPlan bool, sharing map[string]*FlavorSharing) []FlavorCapacity {
	keys := map[flavorKey]bool{}
	for _, s := range []snapshot{before, after} {
		for _, f := range s.Flavors {
			keys[flavorKey{f.Cluster, f.Name}] = true
		}
		for _, owners := range [][]*quotaOwner{s.Queues, s.Cohorts} {
			for _, o := range owners {
				for k := range o.Quotas {
					if k.Resource == gpuResource {
						keys[flavorKey{o.Cluster, k.Flavor}] = true
					}
				}
			}
		}
	}
	sorted := make([]flavorKey, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].Name != sorted[j].Name {
			return sorted[i].Name < sorted[j].Name
		}
		return sorted[i].Cluster < sorted[j].Cluster
	})
	var out []FlavorCapacity
	for _, n := range sorted {
		fc := FlavorCapacity{Flavor: n.Name, Cluster: n.Cluster, Admissible: Delta{admissible(before, n), admissible(after, n)}}
		if f := after.flavor(n.Cluster, n.Name); f != nil {
			switch {
			case f.Unknown.Any("topology_name"):
				fc.Topology = "Topology " + unknownText
			case f.Spec.TopologyName != "":
				fc.Topology = "Topology " + f.Spec.TopologyName
			}
		}
		if after.flavor(n.Cluster, n.Name) == nil && before.flavor(n.Cluster, n.Name) != nil && fc.Admissible.After.OrZero().Sign() == 0 {
			if _, mgr := managerQuota(before, n); !mgr {
				fc.Status = "flavor removed"
				fc.Provided.Before, _, _ = provided(before, n)
				out = append(out, fc)
				continue
			}
		}
		if fc.Admissible.Before.OrZero().Sign() == 0 && fc.Admissible.After.OrZero().Sign() == 0 &&
			fc.Admissible.Before.State != qUnknown && fc.Admissible.After.State != qUnknown {
			mb, inBefore := managerQuota(before, n)
			ma, inAfter := managerQuota(after, n)
			if inBefore || inAfter {
				// only MultiKueue managers hold quota on it
				fc.Admissible = Delta{mb, ma}
				if !inBefore {
					fc.Admissible.Before = Qty{}
				}
				if !inAfter {
					fc.Admissible.After = Qty{}
				}
				fc.Status = managerFlavorStatus
				out = append(out, fc)
			}
			continue // no GPU quota on this flavor on either side
		}
		fc.Peak, fc.PeakQueue = peak(after, n)
		fc.Provided.Before, _, _ = provided(before, n)
		var why string
		fc.Provided.After, fc.Pools, why = provided(after, n)
		adm, prov := fc.Admissible.After, fc.Provided.After
		fs := sharing[n.Name]
		switch {
		case !poolsInPlan:
			fc.Status = "not checked: no mlplatform_gpu_pool in this plan"
		case why != "" && prov.State != qUnknown:
			fc.Status = "not checked: " + why
		case prov.State == qUnknown:
			fc.Status = "unknown until apply: " + why
			if why == "" {
				fc.Status = "unknown until apply: a matching pool's size is " + unknownText
			}
		case adm.State == qUnknown:
			fc.Status = "unknown until apply: quota " + unknownText
		case prov.Less(adm):
			fc.Overcommit = true
			fc.OvercommitBy = adm.Minus(prov)
			fc.Objects = capacityObjects(after, n)
			eq := ""
			if fs != nil && !fs.Disagree {
				if e := gpuEquivalent(fc.OvercommitBy, fs.Slicing.PerGPU); e != "" {
					eq = ", = " + e
				}
			}
			fc.Status = fmt.Sprintf("over-commit: queues may admit %s %s, pools provide %s (%s short%s)", adm.Raw, fs.unit(), prov.Raw, fc.OvercommitBy.Raw, eq)
		case fs != nil:
			fc.Status = fmt.Sprintf("ok (%s %s spare)", prov.Minus(adm).Raw, fs.unit())
		default:
			fc.Status = fmt.Sprintf("ok (%s spare)", prov.Minus(adm).Raw)
		}
		out = append(out, fc)
	}
	return out
}

// --- cost --------------------------------------------------------------------
