package report

// MultiKueue: a manager cluster's ClusterQueue carries an admission check of
// an mlplatform_multikueue_check, and admits a team's workloads only to
// dispatch them to worker clusters, where the same team's LocalQueue (same
// namespace and name) points at a worker ClusterQueue without that check.
// The manager's quota is what it admits; the workers' quota is what can run.
// One configuration holds every cluster (a provider alias each), and a plan
// does not say which cluster a resource is in, so a team is its LocalQueue
// namespace/name and the clusters are told apart by the MultiKueue check
// on the manager's ClusterQueue.

import (
	"fmt"
	"sort"
	"strings"
)

// MultiKueueTeam compares, for one team, the nominal quota of its MultiKueue
// manager ClusterQueue with the sum over its workers' ClusterQueues, after
// the plan.
type MultiKueueTeam struct {
	Team     string   // LocalQueue namespace/name
	Managers []string // manager ClusterQueue names
	Checks   []string // MultiKueue admission check names on the manager
	Workers  []string // worker ClusterQueue addresses (their names are alike in every cluster)
	// NoWorker: no worker ClusterQueue behind a LocalQueue of the team's
	// namespace and name is in the plan.
	NoWorker bool
	// NotCompared says why the quotas were not compared ("" when they
	// were): a value is known only after apply (Undecided), or a worker
	// LocalQueue's ClusterQueue is not in the plan (MLP003 reports it).
	NotCompared string
	Undecided   bool
	Rows        []MultiKueueRow

	resources []string // addresses involved, for findings
	clusters  []string // worker cluster names of the checks, when known
}

// MultiKueueRow is one resource of a team: nominal quota summed over flavors.
type MultiKueueRow struct {
	Resource         string
	Manager, Workers Qty
}

// above: the manager admits more than the workers can run.
func (r MultiKueueRow) above() bool { return r.known() && r.Workers.less(r.Manager) }

// below: the workers hold quota the manager never admits work for.
func (r MultiKueueRow) below() bool { return r.known() && r.Manager.less(r.Workers) }

func (r MultiKueueRow) known() bool {
	return r.Manager.State == qKnown && r.Workers.State == qKnown && !r.Manager.invalid && !r.Workers.invalid
}

type mkCheckState struct {
	Address  string
	Name     strVal
	Clusters []string // nil when unknown
}

// resolve lists the ClusterQueues a LocalQueue may name: those of its
// cluster_queue name in its cluster, narrowed to its own module when
// several have that name (the same team module instantiated per cluster).
func (c *checkCtx) resolve(l *lqState) []*cqState {
	if !l.CQ.Known {
		return nil
	}
	return c.queuesNamed(l.at(), l.CQ.S)
}

// mkRole says whether a ClusterQueue is a MultiKueue manager: the
// MultiKueue checks it carries, or why that is unknown until apply.
func (c *checkCtx) mkRole(q *cqState) (checks []string, undecided string) {
	if q.ChecksUnknown {
		return nil, "its admission_checks are " + unknownText
	}
	known := map[string]bool{}
	nameUnknown := false
	for _, m := range c.mkChecks {
		switch {
		case m.Name.Known:
			known[m.Name.S] = true
		case m.Name.Unknown:
			nameUnknown = true
		}
	}
	var other []string
	for name := range q.Checks {
		switch {
		case known[name]:
			checks = append(checks, name)
		case c.provCheck(q.at(), name) == nil:
			other = append(other, name)
		}
	}
	sort.Strings(checks)
	sort.Strings(other)
	if len(checks) == 0 && nameUnknown && len(other) > 0 {
		return nil, fmt.Sprintf("whether its admission check %s is a MultiKueue check is %s (an mlplatform_multikueue_check's name is)", strings.Join(other, ", "), unknownText)
	}
	return checks, ""
}

// multiKueue compares each MultiKueue team's manager quota with its
// workers'; nil when the plan has no mlplatform_multikueue_check.
func (c *checkCtx) multiKueue() []MultiKueueTeam {
	if c.mkDone {
		return c.mk
	}
	c.mkDone = true
	if len(c.mkChecks) == 0 {
		return nil
	}
	managers := map[*cqState][]string{}
	undecidedQ := map[*cqState]string{}
	for _, q := range c.queues {
		checks, why := c.mkRole(q)
		switch {
		case why != "":
			undecidedQ[q] = why
		case len(checks) > 0:
			managers[q] = checks
		}
	}
	type teamKey struct{ ns, name string }
	keys := map[teamKey]bool{}
	for _, l := range c.lqs {
		for _, q := range c.resolve(l) {
			if managers[q] == nil {
				continue
			}
			if !l.Namespace.Known || !l.Name.Known {
				c.mkLoose = append(c.mkLoose, MultiKueueTeam{Team: l.label(), Managers: []string{q.Name}, Undecided: true,
					NotCompared: fmt.Sprintf("could not decide which team LocalQueue %s of MultiKueue manager ClusterQueue %s serves: its namespace or name is %s", l.label(), q.Name, unknownText),
					resources:   []string{l.Address, q.Address}})
				continue
			}
			keys[teamKey{l.Namespace.S, l.Name.S}] = true
		}
	}
	for q := range managers {
		if !q.NameKnown {
			c.mkLoose = append(c.mkLoose, MultiKueueTeam{Team: q.Address, Undecided: true,
				NotCompared: fmt.Sprintf("could not decide which LocalQueues use MultiKueue manager ClusterQueue %s: its name is %s", q.Address, unknownText),
				resources:   []string{q.Address}})
		}
	}
	sorted := make([]teamKey, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].ns != sorted[j].ns {
			return sorted[i].ns < sorted[j].ns
		}
		return sorted[i].name < sorted[j].name
	})
	var out []MultiKueueTeam
	inTeam := map[string]bool{}
	for _, k := range sorted {
		t := c.mkTeam(k.ns, k.name, managers, undecidedQ)
		for _, a := range t.resources {
			inTeam[a] = true
		}
		out = append(out, t)
	}
	// a queue that may be a manager, of no team found: it may be one's manager
	for _, q := range c.queues {
		if why := undecidedQ[q]; why != "" && !inTeam[q.Address] {
			c.mkLoose = append(c.mkLoose, MultiKueueTeam{Team: q.Address, Undecided: true,
				NotCompared: fmt.Sprintf("could not decide whether ClusterQueue %s is a MultiKueue manager, whose quota must match its workers': %s", q.Name, why),
				resources:   []string{q.Address}})
		}
	}
	c.mk = out
	return out
}

func (c *checkCtx) mkTeam(ns, name string, managers map[*cqState][]string, undecidedQ map[*cqState]string) MultiKueueTeam {
	t := MultiKueueTeam{Team: ns + "/" + name}
	var mgrs, workers []*cqState
	seen := map[*cqState]bool{}
	var why []string
	for _, l := range c.lqs {
		nsMatch := !l.Namespace.Known && l.Namespace.Unknown || l.Namespace.Known && l.Namespace.S == ns
		nameMatch := !l.Name.Known && l.Name.Unknown || l.Name.Known && l.Name.S == name
		if !nsMatch || !nameMatch {
			continue
		}
		t.resources = append(t.resources, l.Address)
		if !l.Namespace.Known || !l.Name.Known {
			why = append(why, fmt.Sprintf("LocalQueue %s's namespace or name is %s", l.Address, unknownText))
			continue
		}
		if !l.CQ.Known {
			if l.CQ.Unknown {
				why = append(why, fmt.Sprintf("LocalQueue %s's cluster_queue is %s", l.Address, unknownText))
			}
			continue
		}
		qs := c.resolve(l)
		if len(qs) == 0 {
			if c.queueNameUnknown() {
				why = append(why, fmt.Sprintf("ClusterQueue %s of LocalQueue %s is not in the plan under that name, and a ClusterQueue's name is %s", l.CQ.S, l.Address, unknownText))
			} else {
				t.NotCompared = fmt.Sprintf("not compared: ClusterQueue %s of worker LocalQueue %s is not in this plan (MLP003)", l.CQ.S, l.Address)
			}
			continue
		}
		for _, q := range qs {
			if seen[q] {
				continue
			}
			seen[q] = true
			t.resources = append(t.resources, q.Address)
			switch {
			case undecidedQ[q] != "":
				why = append(why, fmt.Sprintf("whether ClusterQueue %s is a MultiKueue manager or a worker is unknown: %s", q.Address, undecidedQ[q]))
			case managers[q] != nil:
				mgrs = append(mgrs, q)
			default:
				workers = append(workers, q)
			}
		}
	}
	checks := map[string]bool{}
	for _, q := range mgrs {
		t.Managers = append(t.Managers, q.Name)
		for _, n := range managers[q] {
			checks[n] = true
		}
	}
	for n := range checks {
		t.Checks = append(t.Checks, n)
	}
	sort.Strings(t.Checks)
	for _, m := range c.mkChecks {
		if m.Name.Known && checks[m.Name.S] {
			t.resources = append(t.resources, m.Address)
			t.clusters = append(t.clusters, m.Clusters...)
		}
	}
	t.clusters = dedupe(t.clusters)
	sort.Strings(t.clusters)
	for _, q := range workers {
		t.Workers = append(t.Workers, q.Address)
	}
	for _, q := range append(append([]*cqState{}, mgrs...), workers...) {
		if q.GroupsUnknown {
			why = append(why, fmt.Sprintf("the resource_groups of ClusterQueue %s are %s", q.Address, unknownText))
		}
	}
	t.resources = dedupe(t.resources)
	if len(why) > 0 {
		t.Undecided = true
		t.NotCompared = fmt.Sprintf("could not decide whether MultiKueue team %s's manager quota matches its workers': %s", t.Team, strings.Join(dedupe(why), "; "))
		return t
	}
	t.NoWorker = len(workers) == 0 && t.NotCompared == ""
	// resources in the order the manager, then the workers, list them
	var res []string
	for _, q := range append(append([]*cqState{}, mgrs...), workers...) {
		for _, k := range q.Keys {
			res = append(res, k.Resource)
		}
	}
	sum := func(qs []*cqState, resource string) Qty {
		total := knownQty("0")
		for _, q := range qs {
			for _, k := range q.Keys {
				if k.Resource == resource {
					total = total.plus(q.Quotas[k].Nominal)
				}
			}
		}
		return total
	}
	for _, r := range dedupe(res) {
		row := MultiKueueRow{Resource: r, Manager: sum(mgrs, r)}
		if !t.NoWorker {
			row.Workers = sum(workers, r)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// status is the row's verdict in the report's table.
func (t MultiKueueTeam) status(r MultiKueueRow) string {
	switch {
	case t.NoWorker:
		return warn + "no worker queue in this plan: no worker can run what the manager admits"
	case t.NotCompared != "":
		return t.NotCompared
	case r.Manager.State == qUnknown || r.Workers.State == qUnknown:
		return "unknown until apply: quota " + unknownText
	case !r.known():
		return "not compared: a quota is not a quantity"
	case r.above():
		return fmt.Sprintf("%smanager above workers by %s: it admits work no worker can run", warn, r.Manager.minus(r.Workers).Raw)
	case r.below():
		return fmt.Sprintf("%smanager below workers by %s: workers' quota unused", warn, r.Workers.minus(r.Manager).Raw)
	}
	return "ok"
}

func multiKueueBlocks(r Report) []any {
	if len(r.MultiKueue) == 0 {
		return nil
	}
	t := table{header: []string{"Team (LocalQueue)", "Manager ClusterQueue", "Resource", "Manager quota", "Workers' quota", "Worker ClusterQueues", "Status"}}
	for _, team := range r.MultiKueue {
		workers := unset
		if len(team.Workers) > 0 {
			workers = strings.Join(team.Workers, ", ")
		}
		if len(team.Rows) == 0 {
			t.rows = append(t.rows, []string{team.Team, strings.Join(team.Managers, ", "), unset, unset, unset, workers, team.status(MultiKueueRow{})})
			continue
		}
		for _, row := range team.Rows {
			t.rows = append(t.rows, []string{team.Team, strings.Join(team.Managers, ", "), row.Resource, row.Manager.text(unset), row.Workers.text(unset), workers, team.status(row)})
		}
	}
	return []any{heading{2, "MultiKueue: manager quota vs workers"}, t}
}

func (t MultiKueueTeam) managerText() string {
	if len(t.Managers) == 1 {
		return "ClusterQueue " + t.Managers[0]
	}
	return "ClusterQueues " + strings.Join(t.Managers, ", ")
}

// MLP015: a MultiKueue manager's nominal quota of a resource (summed over
// its flavors) above the sum of its workers'; or no worker queue at all.
func checkMultiKueueAbove(c *checkCtx) {
	teams := c.multiKueue() // sets c.mkLoose
	for _, t := range append(append([]MultiKueueTeam{}, teams...), c.mkLoose...) {
		switch {
		case t.Undecided:
			c.undecided(t.resources, t.NotCompared)
			continue
		case t.NoWorker:
			to := "its workers"
			if len(t.clusters) > 0 {
				to = "worker clusters " + strings.Join(t.clusters, ", ")
			}
			c.add(SevError, t.resources,
				fmt.Sprintf("team %s: MultiKueue manager %s (admission check %s) admits workloads to dispatch to %s, and no worker LocalQueue %s with a worker ClusterQueue is in this plan, so no worker can run them and they wait on the admission check",
					t.Team, t.managerText(), strings.Join(t.Checks, ", "), to, t.Team),
				fmt.Sprintf("create the team's queues in every worker cluster (LocalQueue %s, pointing at a ClusterQueue without the MultiKueue check), and set the manager's nominal_quota to the workers' sum", t.Team))
			continue
		case t.NotCompared != "":
			continue
		}
		for _, r := range t.Rows {
			if !r.above() {
				continue
			}
			c.add(SevError, t.resources,
				fmt.Sprintf("team %s: MultiKueue manager %s admits up to %s %s (nominal quota over its flavors), and its workers' ClusterQueues hold only %s together: workloads it admits beyond %s find no worker that can run them and wait on admission check %s",
					t.Team, t.managerText(), r.Manager.Raw, r.Resource, r.Workers.Raw, r.Workers.Raw, strings.Join(t.Checks, ", ")),
				fmt.Sprintf("set the manager's nominal_quota of %s to the workers' sum, %s, or raise the workers' quota", r.Resource, r.Workers.Raw))
		}
	}
}

// MLP016: a MultiKueue manager's nominal quota of a resource below the sum
// of its workers': the rest of the workers' quota is never used.
func checkMultiKueueBelow(c *checkCtx) {
	for _, t := range c.multiKueue() {
		if t.Undecided || t.NoWorker || t.NotCompared != "" {
			continue // MLP015 reports these
		}
		for _, r := range t.Rows {
			if !r.below() {
				continue
			}
			c.add(SevWarning, t.resources,
				fmt.Sprintf("team %s: its workers' ClusterQueues hold %s %s together, and MultiKueue manager %s admits only %s (nominal quota over its flavors): %s of the workers' capacity is never used by the team's workloads",
					t.Team, r.Workers.Raw, r.Resource, t.managerText(), r.Manager.Raw, r.Workers.minus(r.Manager).Raw),
				fmt.Sprintf("set the manager's nominal_quota of %s to the workers' sum, %s, or lower the workers' quota", r.Resource, r.Workers.Raw))
		}
	}
}

// MLP017: a ClusterQueue whose admission checks Kueue refuses to combine
// with a MultiKueue check. Kueue v0.17 keeps such a queue inactive, so it
// admits nothing (pkg/cache/scheduler/clusterqueue.go, updateWithAdmissionChecks
// and inactiveReason):
//   - a MultiKueue check whose flavors are not all the queue's flavors
//     (on_flavors naming some of them; none or all is the queue-wide check):
//     ClusterQueueActiveReasonMultiKueueAdmissionCheckAppliedPerFlavor;
//   - two MultiKueue checks: ClusterQueueActiveReasonMultipleMultiKueueAdmissionChecks;
//   - a MultiKueue check and a ProvisioningRequest check (any
//     mlplatform_provisioning_admission_check, whatever its flavors or
//     provisioning_class): ClusterQueueActiveReasonMultiKueueWithProvisioningRequest.
func checkMultiKueueMisconfigured(c *checkCtx) {
	for _, q := range c.queues {
		checks, why := c.mkRole(q)
		if why != "" || len(checks) == 0 {
			continue // MLP015 says it could not decide
		}
		res := []string{q.Address}
		for _, m := range c.mkChecks {
			for _, n := range checks {
				if m.Name.Known && m.Name.S == n {
					res = append(res, m.Address)
				}
			}
		}
		if len(checks) > 1 {
			c.add(SevError, res,
				fmt.Sprintf("ClusterQueue %s admits no workload: it lists MultiKueue admission checks %s, and Kueue keeps a ClusterQueue with more than one MultiKueue check inactive (MultipleMultiKueueAdmissionChecks)", q.Name, strings.Join(checks, ", ")),
				"keep one MultiKueue check on the ClusterQueue, and list every worker cluster in that check's clusters")
		}
		var all []string
		for _, g := range q.Groups {
			all = append(all, g.Flavors...)
		}
		all = dedupe(all)
		for _, n := range checks {
			on := q.Checks[n]
			if len(on) == 0 {
				continue // the whole queue
			}
			if q.GroupsUnknown {
				c.undecided(res, fmt.Sprintf("could not decide whether MultiKueue check %s of ClusterQueue %s covers all its flavors, as Kueue requires: its resource_groups are %s", n, q.Name, unknownText))
				continue
			}
			if sameSet(on, all) {
				continue
			}
			c.add(SevError, res,
				fmt.Sprintf("ClusterQueue %s admits no workload: its MultiKueue check %s has on_flavors (%s), and Kueue keeps a ClusterQueue whose MultiKueue check applies to some of its flavors only inactive (MultiKueueAdmissionCheckAppliedPerFlavor)", q.Name, n, strings.Join(on, ", ")),
				fmt.Sprintf("drop on_flavors from the MultiKueue check: admission_checks = { (%s.name) = {} }; a MultiKueue check dispatches the whole queue's workloads", firstAddr(res[1:], "mlplatform_multikueue_check.NAME")))
		}
		var prov []string
		provRes := append([]string{}, res...)
		for name := range q.Checks {
			if pc := c.provCheck(q.at(), name); pc != nil {
				prov = append(prov, name)
				provRes = append(provRes, pc.Address)
			}
		}
		sort.Strings(prov)
		if len(prov) > 0 {
			c.add(SevError, provRes,
				fmt.Sprintf("ClusterQueue %s admits no workload: it lists MultiKueue check %s and provisioning admission check %s, and Kueue keeps a ClusterQueue with both inactive (MultiKueueWithProvisioningRequest)", q.Name, strings.Join(checks, ", "), strings.Join(prov, ", ")),
				"drop the provisioning check from the manager's ClusterQueue and put it on the workers' ClusterQueues, where the queued-provisioning pools and their ProvisioningRequests are")
		}
	}
}

// sameSet says whether a and b hold the same strings.
func sameSet(a, b []string) bool {
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	for _, x := range b {
		if !in[x] {
			return false
		}
	}
	return len(in) == len(dedupe(b))
}

func firstAddr(addrs []string, def string) string {
	if len(addrs) == 0 {
		return def
	}
	return addrs[0]
}
