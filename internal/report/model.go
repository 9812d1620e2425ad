package report

// This file is about 700 lines, kept whole on purpose for now: the report's
// types and the one pass that builds them from a plan's resource changes read
// together. It is to be split when the platform checks (report, doctor) land.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// Report is what a plan does to the platform.
type Report struct {
	QuotaGroups  []QuotaGroup // ClusterQueue quota changes, one group per cohort
	CohortQuotas []QuotaRow   // quota that mlplatform_cohort resources add
	Capacity     []FlavorCapacity
	PoolsInPlan  bool // any mlplatform_gpu_pool before or after
	Costs        []PoolCost
	CostTotal    CostTotal
	Drift        []DriftEntry
	Prices       PriceInfo
	// Sharing holds the flavors of MIG-partitioned, time-shared or MPS
	// pools (or of pools that disagree), by name; SlicedPools their pools'
	// cost per GPU-hour and per slice- or share-hour.
	Sharing     map[string]*FlavorSharing
	SlicedPools []PoolSharing
	// MultiKueue compares each MultiKueue team's manager quota with its
	// workers' (multikueue.go); none when the plan has no MultiKueue check.
	MultiKueue []MultiKueueTeam
	// Checks are the findings of the platform checks (checks.go), most
	// severe first; none when all CheckCount() checks passed.
	Checks []Finding
}

// PriceInfo names the price table a report used.
type PriceInfo struct{ Source, Date, Region string }

// QuotaRow is one owner × flavor × resource whose quota changes.
type QuotaRow struct {
	Owner, Flavor, Resource     string
	Nominal, Borrowing, Lending Delta
	NominalDelta                Qty
	Note                        string // e.g. "queue is new", "resource_groups known after apply"
}

// Delta is a value before and after.
type Delta struct{ Before, After Qty }

func (d Delta) changed() bool { return !d.Before.Equal(d.After) }

// QuotaGroup holds the rows of the queues of one cohort and the cohort's
// totals (sum of member queues' nominal quota) for the flavor × resource
// pairs that change.
type QuotaGroup struct {
	Cohort string // "" when the queues belong to no cohort
	Rows   []QuotaRow
	Totals []QuotaTotal
	Moves  []string // queues joining or leaving the cohort

	movedKeys []qkey // quotas of those queues, which change the totals
}

// QuotaTotal is a cohort's total nominal quota for a flavor × resource.
type QuotaTotal struct {
	Flavor, Resource string
	Nominal          Delta
	Change           Qty
}

// FlavorCapacity compares, for one flavor, the GPUs queues may admit with the
// GPUs its pools can provide.
type FlavorCapacity struct {
	Flavor       string
	Cluster      string // provider configuration key of the flavor's cluster, "" when the plan does not say
	Admissible   Delta  // sum of nominal GPU quota of every ClusterQueue and Cohort
	Peak         Qty    // after: most one queue may hold (nominal + what it may borrow)
	PeakQueue    string
	Provided     Delta // sum of max_nodes × allocatable_gpus_per_node (or gpu.count) of matching pools
	Pools        []string
	Status       string
	Overcommit   bool
	OvercommitBy Qty
}

// PoolCost is one pool's estimated cost at max size.
type PoolCost struct {
	Pool        string
	Accelerator Delta // as text quantities, to share the before → after rendering
	CapacityTyp Delta
	GPUs        Delta
	Hourly      MoneyDelta
	Window      MoneyDelta // 7 days, flex-start only
}

// Money is an amount in USD that may be unknown or not applicable.
type Money struct {
	State model.QState // qAbsent: not applicable; qUnknown: see Why
	USD   float64
	Why   string
}

// MoneyDelta is an amount before and after.
type MoneyDelta struct{ Before, After Money }

// CostTotal sums the pools; Unknown counts pools whose amount is unknown.
type CostTotal struct {
	Hourly, Window                     MoneyDelta
	UnknownBefore, UnknownAfter        int
	WindowUnknownBefore, WindowUnknown int
}

// DriftEntry is one resource changed outside Terraform, in sentences.
type DriftEntry struct {
	Address   string
	Sentences []string
}

// Options configures Build.
type Options struct {
	Prices pricing.Table
}

// FlexStartWindowHours is the longest a flex-start node runs: 7 days.
const FlexStartWindowHours = 7 * 24

// Build reads the plan into a report.
func Build(p Plan, opts Options) Report {
	plBefore, plAfter := model.FromPlan(p, tfplan.Before), model.FromPlan(p, tfplan.After)
	before, after := snapshotOf(plBefore), snapshotOf(plAfter)
	r := Report{
		Prices:      PriceInfo{Source: opts.Prices.Source(), Date: opts.Prices.Date(), Region: opts.Prices.Region()},
		PoolsInPlan: len(before.Pools)+len(after.Pools) > 0,
	}
	r.QuotaGroups = queueQuotaGroups(before, after)
	r.CohortQuotas = quotaRows(before.Cohorts, after.Cohorts)
	r.Sharing = flavorSharing(before, after)
	r.Capacity = capacity(before, after, r.PoolsInPlan, r.Sharing)
	r.Costs, r.CostTotal = costs(before, after, opts.Prices)
	r.SlicedPools = poolSharing(before, after, opts.Prices)
	r.Drift = drift(p.ResourceDrift)
	r.MultiKueue = rules.MultiKueue(plAfter)
	r.Checks = rules.Run(plAfter)
	return r
}

// flavorLabel is the flavor's name, with its cluster's provider
// configuration when the capacity check has flavors of several clusters:
// "h100-spot (mlplatform.europe)".
func (r Report) flavorLabel(c FlavorCapacity) string {
	clusters := map[string]bool{}
	for _, x := range r.Capacity {
		clusters[x.Cluster] = true
	}
	if len(clusters) > 1 && c.Cluster != "" {
		return c.Flavor + " (" + c.Cluster + ")"
	}
	return c.Flavor
}

// Overcommitted says whether any flavor's queues may admit more GPUs than
// its pools provide after the plan.
func (r Report) Overcommitted() bool {
	for _, c := range r.Capacity {
		if c.Overcommit {
			return true
		}
	}
	return false
}

// Drifted says whether anything changed outside Terraform.
func (r Report) Drifted() bool { return len(r.Drift) > 0 }

// --- quota changes ---------------------------------------------------------

// byName indexes both sides' owners by name, or by address where several
// resources share a name (queues of the same team module in each cluster of
// a MultiKueue platform), so that none hides another.
func byName(before, after []*quotaOwner) (b, a map[string]*quotaOwner) {
	addrs := map[string]map[string]bool{}
	for _, o := range append(append([]*quotaOwner{}, before...), after...) {
		if addrs[o.Name] == nil {
			addrs[o.Name] = map[string]bool{}
		}
		addrs[o.Name][o.Address] = true
	}
	index := func(owners []*quotaOwner) map[string]*quotaOwner {
		m := map[string]*quotaOwner{}
		for _, o := range owners {
			if len(addrs[o.Name]) > 1 {
				m[o.Address] = o
			} else {
				m[o.Name] = o
			}
		}
		return m
	}
	return index(before), index(after)
}

// quotaRows lists the changed owner × flavor × resource quotas, by owner name
// and then in configuration order.
func quotaRows(before, after []*quotaOwner) []QuotaRow {
	b, a := byName(before, after)
	names := map[string]bool{}
	for n := range b {
		names[n] = true
	}
	for n := range a {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var rows []QuotaRow
	for _, n := range sorted {
		rows = append(rows, ownerRows(n, b[n], a[n])...)
	}
	return rows
}

func ownerRows(name string, b, a *quotaOwner) []QuotaRow {
	if a != nil && a.GroupsUnknown {
		return []QuotaRow{{Owner: name, Flavor: unknownText, Resource: unknownText,
			NominalDelta: Qty{State: qUnknown}, Note: "resource_groups known after apply"}}
	}
	empty := &quotaOwner{Quotas: map[qkey]quota{}}
	note := ""
	switch {
	case b == nil:
		b, note = empty, "new"
	case a == nil:
		a, note = empty, "removed"
	}
	var keys []qkey
	seen := map[qkey]bool{}
	for _, k := range append(append([]qkey{}, a.Keys...), b.Keys...) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var rows []QuotaRow
	for _, k := range keys {
		bq, aq := b.Quotas[k], a.Quotas[k]
		row := QuotaRow{
			Owner: name, Flavor: k.Flavor, Resource: k.Resource, Note: note,
			Nominal:   Delta{bq.Nominal, aq.Nominal},
			Borrowing: Delta{bq.Borrowing, aq.Borrowing},
			Lending:   Delta{bq.Lending, aq.Lending},
		}
		if !row.Nominal.changed() && !row.Borrowing.changed() && !row.Lending.changed() {
			continue
		}
		row.NominalDelta = aq.Nominal.Minus(bq.Nominal)
		if note == "" {
			if _, ok := b.Quotas[k]; !ok {
				row.Note = "flavor/resource added"
			} else if _, ok := a.Quotas[k]; !ok {
				row.Note = "flavor/resource removed"
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// cohortKey names the cohort a queue belongs to, as a group label.
func cohortKey(q *quotaOwner) string {
	switch q.Parent.State {
	case qUnknown:
		return unknownText
	case qKnown:
		return q.Parent.Raw
	}
	return ""
}

func queueQuotaGroups(before, after snapshot) []QuotaGroup {
	rows := quotaRows(before.Queues, after.Queues)
	b, a := byName(before.Queues, after.Queues)
	groups := map[string]*QuotaGroup{}
	group := func(c string) *QuotaGroup {
		if groups[c] == nil {
			groups[c] = &QuotaGroup{Cohort: c}
		}
		return groups[c]
	}
	for _, row := range rows {
		q := a[row.Owner]
		if q == nil {
			q = b[row.Owner]
		}
		g := group(cohortKey(q))
		g.Rows = append(g.Rows, row)
	}
	// Queues changing cohort change both cohorts' totals even without a quota change.
	for name, aq := range a {
		bq := b[name]
		if bq == nil || cohortKey(bq) == cohortKey(aq) {
			continue
		}
		msg := fmt.Sprintf("%s moves from %s to %s", name, cohortLabel(cohortKey(bq)), cohortLabel(cohortKey(aq)))
		group(cohortKey(aq)).Moves = append(group(cohortKey(aq)).Moves, msg)
		group(cohortKey(bq)).Moves = append(group(cohortKey(bq)).Moves, msg)
		for _, g := range []*QuotaGroup{group(cohortKey(aq)), group(cohortKey(bq))} {
			g.movedKeys = append(g.movedKeys, aq.Keys...)
			g.movedKeys = append(g.movedKeys, bq.Keys...)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // named cohorts first, then no cohort, then unknown
		ri, rj := groupRank(keys[i]), groupRank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	out := make([]QuotaGroup, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		sort.Strings(g.Moves)
		if k != "" && k != unknownText {
			g.Totals = cohortTotals(k, g.Rows, g.movedKeys, before.Queues, after.Queues)
		}
		out = append(out, *g)
	}
	return out
}

func groupRank(k string) int {
	switch k {
	case "":
		return 1
	case unknownText:
		return 2
	}
	return 0
}

func cohortLabel(c string) string {
	switch c {
	case "":
		return "no cohort"
	case unknownText:
		return "a cohort " + unknownText
	}
	return "cohort " + c
}

// cohortTotals sums the nominal quota of the cohort's member queues, before
// and after, for each flavor × resource the group's rows change.
func cohortTotals(cohort string, rows []QuotaRow, moved []qkey, before, after []*quotaOwner) []QuotaTotal {
	var keys []qkey
	seen := map[qkey]bool{}
	all := make([]qkey, 0, len(rows)+len(moved))
	for _, r := range rows {
		all = append(all, qkey{Flavor: r.Flavor, Resource: r.Resource})
	}
	for _, k := range append(all, moved...) {
		if !seen[k] && k.Flavor != unknownText {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sum := func(owners []*quotaOwner, k qkey) Qty {
		total := model.KnownQty("0")
		for _, q := range owners {
			switch {
			case q.Parent.State == qUnknown:
				// a queue whose cohort is unknown may or may not count
				if _, ok := q.Quotas[k]; ok || q.GroupsUnknown {
					return Qty{State: qUnknown}
				}
			case cohortKey(q) != cohort:
				continue
			case q.GroupsUnknown:
				return Qty{State: qUnknown}
			default:
				total = total.Plus(q.Quotas[k].Nominal)
			}
		}
		return total
	}
	out := make([]QuotaTotal, 0, len(keys))
	for _, k := range keys {
		t := QuotaTotal{Flavor: k.Flavor, Resource: k.Resource, Nominal: Delta{sum(before, k), sum(after, k)}}
		t.Change = t.Nominal.After.Minus(t.Nominal.Before)
		out = append(out, t)
	}
	return out
}

// --- capacity ----------------------------------------------------------------

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

func poolCost(p *poolState, prices pricing.Table) (hourly, window Money) {
	if p == nil {
		return Money{}, Money{}
	}
	if p.Capacity == "" || p.GPUType == "" {
		return Money{State: qUnknown, Why: "gpu type or capacity " + unknownText}, Money{State: qUnknown}
	}
	window = Money{}
	if _, ok := prices.HourlyPerGPU(p.GPUType, p.Capacity); !ok {
		m := Money{State: qUnknown, Why: fmt.Sprintf("no price for %s %s: add it with --prices", p.GPUType, p.Capacity)}
		if p.Capacity == pricing.FlexStart {
			window = m
		}
		return m, window
	}
	if !p.MaxKnown || !p.CountKnown {
		m := Money{State: qUnknown, Why: "pool size " + unknownText}
		if p.Capacity == pricing.FlexStart {
			window = m
		}
		return m, window
	}
	usd, _ := prices.PoolHourly(p.GPUType, p.Capacity, int(p.MaxNodes), int(p.GPUCount))
	hourly = Money{State: qKnown, USD: usd}
	if p.Capacity == pricing.FlexStart {
		window = Money{State: qKnown, USD: hourly.USD * FlexStartWindowHours}
	}
	return hourly, window
}

// poolsByLabel indexes both sides' pools by label, in label order: a pool's
// name, or where pools of different addresses share a name (one per cluster
// of a MultiKueue platform) the name and the pool's project/location/cluster,
// or its address when those do not tell them apart. Pools are never merged
// by name alone.
func poolsByLabel(before, after []*poolState) (b, a map[string]*poolState, sorted []string) {
	addrs := map[string]map[string]bool{}
	where := map[string]map[string]string{} // name → where → address
	for _, p := range append(append([]*poolState{}, before...), after...) {
		if addrs[p.Name] == nil {
			addrs[p.Name], where[p.Name] = map[string]bool{}, map[string]string{}
		}
		addrs[p.Name][p.Address] = true
		if p.Where != "" {
			if other, seen := where[p.Name][p.Where]; !seen || other == p.Address {
				where[p.Name][p.Where] = p.Address
			} else {
				where[p.Name][p.Where] = "" // two addresses at one place: use addresses
			}
		}
	}
	label := func(p *poolState) string {
		if len(addrs[p.Name]) <= 1 {
			return p.Name
		}
		if p.Where != "" && where[p.Name][p.Where] == p.Address {
			return p.Name + " (" + p.Where + ")"
		}
		return p.Address
	}
	b, a = map[string]*poolState{}, map[string]*poolState{}
	labels := map[string]bool{}
	for _, p := range before {
		b[label(p)], labels[label(p)] = p, true
	}
	for _, p := range after {
		a[label(p)], labels[label(p)] = p, true
	}
	sorted = make([]string, 0, len(labels))
	for n := range labels {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	return b, a, sorted
}

func costs(before, after snapshot, prices pricing.Table) ([]PoolCost, CostTotal) {
	b, a, sorted := poolsByLabel(before.Pools, after.Pools)
	var out []PoolCost
	var total CostTotal
	add := func(t *Money, m Money, unknown *int) {
		switch m.State {
		case qKnown:
			t.State = qKnown
			t.USD += m.USD
		case qUnknown:
			*unknown++
		}
	}
	for _, n := range sorted {
		pc := PoolCost{Pool: n}
		pc.Hourly.Before, pc.Window.Before = poolCost(b[n], prices)
		pc.Hourly.After, pc.Window.After = poolCost(a[n], prices)
		pc.Accelerator = Delta{poolText(b[n], func(p *poolState) string { return p.GPUType }), poolText(a[n], func(p *poolState) string { return p.GPUType })}
		pc.CapacityTyp = Delta{poolText(b[n], func(p *poolState) string { return p.Capacity }), poolText(a[n], func(p *poolState) string { return p.Capacity })}
		pc.GPUs = Delta{poolGPUs(b[n]), poolGPUs(a[n])}
		add(&total.Hourly.Before, pc.Hourly.Before, &total.UnknownBefore)
		add(&total.Hourly.After, pc.Hourly.After, &total.UnknownAfter)
		add(&total.Window.Before, pc.Window.Before, &total.WindowUnknownBefore)
		add(&total.Window.After, pc.Window.After, &total.WindowUnknown)
		out = append(out, pc)
	}
	return out, total
}

func poolText(p *poolState, f func(*poolState) string) Qty {
	if p == nil {
		return Qty{}
	}
	if s := f(p); s != "" {
		return model.TextQty(s)
	}
	return Qty{State: qUnknown}
}

func poolGPUs(p *poolState) Qty {
	if p == nil {
		return Qty{}
	}
	return p.gpus()
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// --- drift -------------------------------------------------------------------

func drift(entries []ResourceChange) []DriftEntry {
	var out []DriftEntry
	for _, c := range entries {
		if c.Mode != "" && c.Mode != "managed" {
			continue
		}
		if e := driftEntry(c); len(e.Sentences) > 0 {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

func driftEntry(c ResourceChange) DriftEntry {
	e := DriftEntry{Address: c.Address}
	before, after := tfplan.Node{V: c.Change.Before}, tfplan.Node{V: c.Change.After}
	if !strings.HasPrefix(c.Type, "mlplatform_") {
		paths := diffPaths("", c.Change.Before, c.Change.After)
		names := make([]string, 0, len(paths))
		for _, p := range paths {
			names = append(names, p.Path)
		}
		switch {
		case c.Change.After == nil:
			e.Sentences = append(e.Sentences, c.Address+" was deleted outside Terraform")
		case len(names) > 0:
			e.Sentences = append(e.Sentences, c.Address+" changed outside Terraform: "+strings.Join(names, ", "))
		}
		return e
	}
	name := c.Address
	if n, ok := before.Get("name").Str(); ok {
		name = n
	}
	who := kindOf(c.Type) + " " + name
	if ns, ok := before.Get("namespace").Str(); ok && ns != "" {
		who = kindOf(c.Type) + " " + ns + "/" + name
	}
	if after.Null() {
		e.Sentences = append(e.Sentences, who+" was deleted outside Terraform")
		return e
	}
	skip := ""
	if c.Type == "mlplatform_cluster_queue" || c.Type == "mlplatform_cohort" {
		skip = "resource_groups"
		bo, ao := driftOwner(c, tfplan.Before), driftOwner(c, tfplan.After)
		for _, row := range ownerRows(bo.Name, bo, ao) {
			e.Sentences = append(e.Sentences, quotaDriftSentences(who, row)...)
		}
		if len(e.Sentences) == 0 && !sameJSON(before.Get("resource_groups").V, after.Get("resource_groups").V) {
			skip = "" // the groups differ only in shape (e.g. order): show the paths
		}
	}
	for _, d := range diffPaths("", c.Change.Before, c.Change.After) {
		if skip != "" && (d.Path == skip || strings.HasPrefix(d.Path, skip+".") || strings.HasPrefix(d.Path, skip+"[")) {
			continue
		}
		e.Sentences = append(e.Sentences, fmt.Sprintf("%s: %s changed outside Terraform: %s → %s", who, d.Path, scalarText(d.Before), scalarText(d.After)))
	}
	return e
}

func quotaDriftSentences(who string, row QuotaRow) []string {
	var out []string
	for _, f := range []struct {
		what string
		d    Delta
	}{{"nominal quota", row.Nominal}, {"borrowing limit", row.Borrowing}, {"lending limit", row.Lending}} {
		if !f.d.changed() {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s of %s on %s changed outside Terraform: %s → %s",
			who, f.what, row.Resource, row.Flavor, f.d.Before.Text("(unset)"), f.d.After.Text("(unset)")))
	}
	return out
}

// driftOwner is a drifted ClusterQueue's or Cohort's quotas on one side,
// read by the model as every plan object is.
func driftOwner(c ResourceChange, side tfplan.Side) *quotaOwner {
	c.Change.AfterUnknown = nil
	if side == tfplan.After {
		c.Change.Before = c.Change.After
	}
	s := snapshotOf(model.FromPlan(Plan{ResourceChanges: []ResourceChange{c}}, tfplan.Before))
	for _, o := range append(s.Queues, s.Cohorts...) {
		return o
	}
	return &quotaOwner{Address: c.Address, Quotas: map[qkey]quota{}}
}
