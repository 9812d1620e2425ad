package rules

// The MultiKueue rules (MLP015-MLP017), over the teams multikueue.go pairs.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// MLP015: a MultiKueue manager's nominal quota of a resource (summed over
// its flavors) above the sum of its workers'; or no worker queue at all.
func checkMultiKueueAbove(c *ctx) {
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
			if !r.Above() {
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
func checkMultiKueueBelow(c *ctx) {
	for _, t := range c.multiKueue() {
		if t.Undecided || t.NoWorker || t.NotCompared != "" {
			continue // MLP015 reports these
		}
		for _, r := range t.Rows {
			if !r.Below() {
				continue
			}
			c.add(SevWarning, t.resources,
				fmt.Sprintf("team %s: its workers' ClusterQueues hold %s %s together, and MultiKueue manager %s admits only %s (nominal quota over its flavors): %s of the workers' capacity is never used by the team's workloads",
					t.Team, r.Workers.Raw, r.Resource, t.managerText(), r.Manager.Raw, r.Workers.Minus(r.Manager).Raw),
				fmt.Sprintf("set the manager's nominal_quota of %s to the workers' sum, %s, or lower the workers' quota", r.Resource, r.Workers.Raw))
		}
	}
}

// MLP017: a ClusterQueue whose admission checks Kueue refuses to combine
// with a MultiKueue check. Kueue v0.17 to v0.19 keeps such a queue inactive, so it
// admits nothing (pkg/cache/scheduler/clusterqueue.go, updateWithAdmissionChecks
// and inactiveReason):
//   - a MultiKueue check whose flavors are not all the queue's flavors
//     (on_flavors naming some of them; none or all is the queue-wide check):
//     ClusterQueueActiveReasonMultiKueueAdmissionCheckAppliedPerFlavor;
//   - two MultiKueue checks: ClusterQueueActiveReasonMultipleMultiKueueAdmissionChecks;
//   - a MultiKueue check and a ProvisioningRequest check (any
//     mlplatform_provisioning_admission_check, whatever its flavors or
//     provisioning_class): ClusterQueueActiveReasonMultiKueueWithProvisioningRequest.
func checkMultiKueueMisconfigured(c *ctx) {
	for _, q := range c.pl.Queues {
		checks, why := c.mkRole(q)
		if why != "" || len(checks) == 0 {
			continue // MLP015 says it could not decide
		}
		res := []string{q.Label()}
		for _, m := range c.pl.MultiKueueChecks {
			for _, n := range checks {
				if mn := model.MultiKueueCheckName(m); mn.Known && mn.S == n {
					res = append(res, m.Label())
				}
			}
		}
		if len(checks) > 1 {
			c.add(SevError, res,
				fmt.Sprintf("ClusterQueue %s admits no workload: it lists MultiKueue admission checks %s, and Kueue keeps a ClusterQueue with more than one MultiKueue check inactive (MultipleMultiKueueAdmissionChecks)", qName(q), strings.Join(checks, ", ")),
				"keep one MultiKueue check on the ClusterQueue, and list every worker cluster in that check's clusters")
		}
		var all []string
		for _, g := range q.Spec.ResourceGroups {
			for _, f := range g.Flavors {
				all = append(all, f.Name)
			}
		}
		all = dedupe(all)
		for _, n := range checks {
			on := q.Spec.AdmissionChecks[n]
			if len(on) == 0 {
				continue // the whole queue
			}
			if q.GroupsUnknown() {
				c.undecided(res, fmt.Sprintf("could not decide whether MultiKueue check %s of ClusterQueue %s covers all its flavors, as Kueue requires: its resource_groups are %s", n, qName(q), unknownText))
				continue
			}
			if sameSet(on, all) {
				continue
			}
			c.add(SevError, res,
				fmt.Sprintf("ClusterQueue %s admits no workload: its MultiKueue check %s has on_flavors (%s), and Kueue keeps a ClusterQueue whose MultiKueue check applies to some of its flavors only inactive (MultiKueueAdmissionCheckAppliedPerFlavor)", qName(q), n, strings.Join(on, ", ")),
				fmt.Sprintf("drop on_flavors from the MultiKueue check: admission_checks = { (%s.name) = {} }; a MultiKueue check dispatches the whole queue's workloads", firstAddr(res[1:], "mlplatform_multikueue_check.NAME")))
		}
		var prov []string
		provRes := append([]string{}, res...)
		for name := range q.Spec.AdmissionChecks {
			if pc := c.pl.ProvisioningCheck(q.Src, name); pc != nil {
				prov = append(prov, name)
				provRes = append(provRes, pc.Label())
			}
		}
		sort.Strings(prov)
		if len(prov) > 0 {
			c.add(SevError, provRes,
				fmt.Sprintf("ClusterQueue %s admits no workload: it lists MultiKueue check %s and provisioning admission check %s, and Kueue keeps a ClusterQueue with both inactive (MultiKueueWithProvisioningRequest)", qName(q), strings.Join(checks, ", "), strings.Join(prov, ", ")),
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

// qName is a ClusterQueue's name, or its label while the name is known only
// after apply.
func qName(q *model.ClusterQueue) string {
	if n := model.QueueName(q); n.Known {
		return n.S
	}
	return q.Label()
}
