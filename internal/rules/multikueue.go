package rules

// MultiKueue: a manager cluster's ClusterQueue carries an admission check of
// an mlplatform_multikueue_check, and admits a team's workloads only to
// dispatch them to worker clusters, where the same team's LocalQueue (same
// namespace and name) points at a worker ClusterQueue without that check.
// The manager's quota is what it admits; the workers' quota is what can run.
// One configuration holds every cluster (a provider alias each), so a team
// is its LocalQueue namespace/name and the clusters are told apart by the
// MultiKueue check on the manager's ClusterQueue. A live cluster is one
// cluster: a manager's workers are elsewhere, so MLP015 and MLP016 have no
// workers to compare with there.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
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
	Manager, Workers model.Qty
}

// Above: the manager admits more than the workers can run.
func (r MultiKueueRow) Above() bool { return r.Known() && r.Workers.Less(r.Manager) }

// Below: the workers hold quota the manager never admits work for.
func (r MultiKueueRow) Below() bool { return r.Known() && r.Manager.Less(r.Workers) }

// Known: both sides are known quantities.
func (r MultiKueueRow) Known() bool {
	return r.Manager.State == model.QKnown && r.Workers.State == model.QKnown && !r.Manager.Invalid() && !r.Workers.Invalid()
}

// mkRole says whether a ClusterQueue is a MultiKueue manager: the
// MultiKueue checks it carries, or why that is unknown until apply.
func (c *ctx) mkRole(q *model.ClusterQueue) (checks []string, undecided string) {
	if checksUnknown(q) {
		return nil, "its admission_checks are " + unknownText
	}
	known := map[string]bool{}
	nameUnknown := false
	for _, m := range c.pl.MultiKueueChecks {
		switch n := model.MultiKueueCheckName(m); {
		case n.Known:
			known[n.S] = true
		case n.Unknown:
			nameUnknown = true
		}
	}
	var other []string
	for name := range q.Spec.AdmissionChecks {
		switch {
		case known[name]:
			checks = append(checks, name)
		case c.pl.ProvisioningCheck(q.Src, name) == nil:
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
func (c *ctx) multiKueue() []MultiKueueTeam {
	if c.mkDone {
		return c.mk
	}
	c.mkDone = true
	if len(c.pl.MultiKueueChecks) == 0 {
		return nil
	}
	managers := map[*model.ClusterQueue][]string{}
	undecidedQ := map[*model.ClusterQueue]string{}
	for _, q := range c.pl.Queues {
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
	for _, l := range c.pl.LocalQueues {
		for _, q := range c.resolve(l) {
			if managers[q] == nil {
				continue
			}
			lns, ln := lqField(l, "namespace"), lqField(l, "name")
			if !lns.Known || !ln.Known {
				c.mkLoose = append(c.mkLoose, MultiKueueTeam{Team: lqLabel(l), Managers: []string{qName(q)}, Undecided: true,
					NotCompared: fmt.Sprintf("could not decide which team LocalQueue %s of MultiKueue manager ClusterQueue %s serves: its namespace or name is %s", lqLabel(l), qName(q), unknownText),
					resources:   []string{l.Label(), q.Label()}})
				continue
			}
			keys[teamKey{lns.S, ln.S}] = true
		}
	}
	for q := range managers {
		if !model.QueueName(q).Known {
			c.mkLoose = append(c.mkLoose, MultiKueueTeam{Team: q.Label(), Undecided: true,
				NotCompared: fmt.Sprintf("could not decide which LocalQueues use MultiKueue manager ClusterQueue %s: its name is %s", q.Label(), unknownText),
				resources:   []string{q.Label()}})
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
	for _, q := range c.pl.Queues {
		if why := undecidedQ[q]; why != "" && !inTeam[q.Label()] {
			c.mkLoose = append(c.mkLoose, MultiKueueTeam{Team: q.Label(), Undecided: true,
				NotCompared: fmt.Sprintf("could not decide whether ClusterQueue %s is a MultiKueue manager, whose quota must match its workers': %s", qName(q), why),
				resources:   []string{q.Label()}})
		}
	}
	c.mk = out
	return out
}

func (c *ctx) mkTeam(ns, name string, managers map[*model.ClusterQueue][]string, undecidedQ map[*model.ClusterQueue]string) MultiKueueTeam {
	t := MultiKueueTeam{Team: ns + "/" + name}
	var mgrs, workers []*model.ClusterQueue
	seen := map[*model.ClusterQueue]bool{}
	var why []string
	for _, l := range c.pl.LocalQueues {
		lns, ln, cq := lqField(l, "namespace"), lqField(l, "name"), lqField(l, "cluster_queue")
		nsMatch := !lns.Known && lns.Unknown || lns.Known && lns.S == ns
		nameMatch := !ln.Known && ln.Unknown || ln.Known && ln.S == name
		if !nsMatch || !nameMatch {
			continue
		}
		t.resources = append(t.resources, l.Label())
		if !lns.Known || !ln.Known {
			why = append(why, fmt.Sprintf("LocalQueue %s's namespace or name is %s", l.Label(), unknownText))
			continue
		}
		if !cq.Known {
			if cq.Unknown {
				why = append(why, fmt.Sprintf("LocalQueue %s's cluster_queue is %s", l.Label(), unknownText))
			}
			continue
		}
		qs := c.resolve(l)
		if len(qs) == 0 {
			if model.NameUnknown(c.pl.Queues, model.QueueName) {
				why = append(why, fmt.Sprintf("ClusterQueue %s of LocalQueue %s is not in the plan under that name, and a ClusterQueue's name is %s", cq.S, l.Label(), unknownText))
			} else {
				t.NotCompared = fmt.Sprintf("not compared: ClusterQueue %s of worker LocalQueue %s is not in this plan (MLP003)", cq.S, l.Label())
			}
			continue
		}
		for _, q := range qs {
			if seen[q] {
				continue
			}
			seen[q] = true
			t.resources = append(t.resources, q.Label())
			switch {
			case undecidedQ[q] != "":
				why = append(why, fmt.Sprintf("whether ClusterQueue %s is a MultiKueue manager or a worker is unknown: %s", q.Label(), undecidedQ[q]))
			case managers[q] != nil:
				mgrs = append(mgrs, q)
			default:
				workers = append(workers, q)
			}
		}
	}
	checks := map[string]bool{}
	for _, q := range mgrs {
		t.Managers = append(t.Managers, qName(q))
		for _, n := range managers[q] {
			checks[n] = true
		}
	}
	for n := range checks {
		t.Checks = append(t.Checks, n)
	}
	sort.Strings(t.Checks)
	for _, m := range c.pl.MultiKueueChecks {
		if n := model.MultiKueueCheckName(m); n.Known && checks[n.S] {
			t.resources = append(t.resources, m.Label())
			t.clusters = append(t.clusters, m.Spec.Clusters...)
		}
	}
	t.clusters = dedupe(t.clusters)
	sort.Strings(t.clusters)
	for _, q := range workers {
		t.Workers = append(t.Workers, q.Label())
	}
	for _, q := range append(append([]*model.ClusterQueue{}, mgrs...), workers...) {
		if q.GroupsUnknown() {
			why = append(why, fmt.Sprintf("the resource_groups of ClusterQueue %s are %s", q.Label(), unknownText))
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
	for _, q := range append(append([]*model.ClusterQueue{}, mgrs...), workers...) {
		keys, _ := model.Quotas(q.Spec.ResourceGroups, q.Unknown)
		for _, k := range keys {
			res = append(res, k.Resource)
		}
	}
	sum := func(qs []*model.ClusterQueue, resource string) model.Qty {
		total := model.KnownQty("0")
		for _, q := range qs {
			keys, quotas := model.Quotas(q.Spec.ResourceGroups, q.Unknown)
			for _, k := range keys {
				if k.Resource == resource {
					total = total.Plus(quotas[k].Nominal)
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

func (t MultiKueueTeam) managerText() string {
	if len(t.Managers) == 1 {
		return "ClusterQueue " + t.Managers[0]
	}
	return "ClusterQueues " + strings.Join(t.Managers, ", ")
}

// MultiKueue compares each MultiKueue team's manager quota with its
// workers' on the platform; none without a MultiKueue check.
func MultiKueue(pl *model.Platform) []MultiKueueTeam {
	return (&ctx{pl: pl}).multiKueue()
}
