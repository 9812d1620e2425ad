package report

// The report's types and the one pass that builds them (Build); the tables
// are built in quota.go, capacity.go, cost.go and drift.go.

import (
	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// Report is what a plan does to the platform.
type Report struct {
	// Destructive are the platform's objects the plan deletes or replaces,
	// GPU pools first (destructive.go); the report opens with them.
	Destructive  []Destructive
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
	// Diagram is the platform as a Mermaid flowchart (diagram.go), for the
	// Markdown report only; "" when the plan has none of its objects.
	Diagram string
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
	Topology     string // after: the Topology the flavor names (topology-aware scheduling); "" for none
	Cluster      string // provider configuration key of the flavor's cluster, "" when the plan does not say
	Admissible   Delta  // sum of nominal GPU quota of every ClusterQueue and Cohort
	Peak         Qty    // after: most one queue may hold (nominal + what it may borrow)
	PeakQueue    string
	Provided     Delta // sum of max_nodes × allocatable_gpus_per_node (or gpu.count) of matching pools
	Pools        []string
	Status       string
	Overcommit   bool
	OvercommitBy Qty
	// Objects are, for an over-commit, the addresses involved: the flavor,
	// the queues and cohorts with GPU quota on it, its pools.
	Objects []string
}

// PoolCost is one pool's estimated cost at max size.
type PoolCost struct {
	Pool        string
	Accelerator Delta // as text quantities, to share the before → after rendering
	CapacityTyp Delta
	GPUs        Delta
	Hourly      MoneyDelta
	// Floor is what the pool costs per hour when nothing runs: min_nodes ×
	// gpu.count × the price (its idle floor; $0.00 at min_nodes 0).
	Floor  MoneyDelta
	Window MoneyDelta // 7 days, flex-start only
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
	Hourly, Floor, Window              MoneyDelta
	UnknownBefore, UnknownAfter        int
	FloorUnknownBefore, FloorUnknown   int
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

// FlexStartWindowHours is the longest a flex-start node runs (spec's
// MaxFlexStartRunDuration: 7 days), the window the cost table prices.
var FlexStartWindowHours = spec.MaxFlexStartRunDuration.Hours()

// Build reads the plan into a report.
func Build(p Plan, opts Options) Report {
	plBefore, plAfter := model.FromPlan(p, tfplan.Before), model.FromPlan(p, tfplan.After)
	before, after := snapshotOf(plBefore), snapshotOf(plAfter)
	r := Report{
		Prices:      PriceInfo{Source: opts.Prices.Source(), Date: opts.Prices.Date(), Region: opts.Prices.Region()},
		PoolsInPlan: len(before.Pools)+len(after.Pools) > 0,
	}
	r.Destructive = destructive(p.ResourceChanges)
	r.QuotaGroups = queueQuotaGroups(before, after)
	r.CohortQuotas = quotaRows(before.Cohorts, after.Cohorts)
	r.Sharing = flavorSharing(before, after)
	r.Capacity = capacity(before, after, r.PoolsInPlan, r.Sharing)
	r.Costs, r.CostTotal = costs(before, after, opts.Prices)
	r.SlicedPools = poolSharing(before, after, opts.Prices)
	r.Drift = drift(p.ResourceDrift)
	r.MultiKueue = rules.MultiKueue(plAfter)
	r.Checks = rules.Run(plAfter)
	r.Diagram = Diagram(plBefore, plAfter, r.Checks)
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
	label := c.Flavor
	if len(clusters) > 1 && c.Cluster != "" {
		label += " (" + c.Cluster + ")"
	}
	if c.Topology != "" {
		label += ", topology-aware (" + c.Topology + ")"
	}
	return label
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
