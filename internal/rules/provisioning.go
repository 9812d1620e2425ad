package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// checksUnknown: a ClusterQueue's admission checks are known only after apply.
func checksUnknown(q *model.ClusterQueue) bool { return q.Unknown.Any("admission_checks") }

// checksOn lists the admission checks of the queue that apply to the flavor
// (one without on_flavors applies to all).
func checksOn(q *model.ClusterQueue, flavor string) []string {
	var out []string
	for name, on := range q.Spec.AdmissionChecks {
		if len(on) == 0 {
			out = append(out, name)
			continue
		}
		for _, f := range on {
			if f == flavor {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

func queued(p *model.Pool) (bool, bool) {
	return p.Spec.QueuedProvisioning, !p.Unknown.Any("queued_provisioning")
}

// MLP009: a queued-provisioning pool's flavor without a provisioning
// admission check in a ClusterQueue that has quota on it.
func checkQueuedWithoutCheck(c *ctx) {
	for _, q := range c.pl.Queues {
		for _, fname := range q.FlavorNames() {
			f := c.pl.Flavor(q.Src, fname)
			if f == nil {
				continue // MLP004
			}
			pools, decided := c.pl.PinnedPoolsOf(f)
			unknown := !decided
			var qd []*model.Pool
			for _, p := range pools {
				isQueued, ok := queued(p)
				if !ok {
					unknown = true
				} else if isQueued {
					qd = append(qd, p)
				}
			}
			if len(qd) == 0 && !unknown {
				continue
			}
			res := append([]string{q.Label(), f.Label()}, labels(qd)...)
			if unknown || checksUnknown(q) {
				c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s guards flavor %s with a provisioning admission check: its admission_checks, or the flavor's pools or their queued_provisioning, are %s", q.Spec.Name, fname, unknownText))
				continue
			}
			guarded, other := false, []string{}
			for _, name := range checksOn(q, fname) {
				pc := c.pl.ProvisioningCheck(q.Src, name)
				if pc == nil {
					other = append(other, name)
					continue
				}
				if isQueued, ok := pc.Queued(); !ok {
					other = append(other, name)
				} else if isQueued {
					guarded = true
				}
			}
			switch {
			case guarded:
			case len(other) > 0 && !c.pl.Live:
				c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s guards flavor %s with a provisioning admission check: %s %s not in this configuration (or their provisioning_class is %s)",
					q.Spec.Name, fname, strings.Join(other, ", "), map[bool]string{true: "is", false: "are"}[len(other) == 1], unknownText))
			default:
				c.add(SevError, res,
					fmt.Sprintf("workloads ClusterQueue %s admits on flavor %s wait for nodes that never come: pool %s has queued_provisioning, so GKE creates its nodes only for a ProvisioningRequest, and no provisioning admission check of the queue applies to %s",
						q.Spec.Name, fname, namesOf(qd, poolName), fname),
					fmt.Sprintf("add to the ClusterQueue admission_checks = { (mlplatform_provisioning_admission_check.CHECK.name) = { on_flavors = [%q] } }", fname))
			}
		}
	}
}

// MLP010: a queued-provisioning admission check on flavors whose pools are
// not queued.
func checkProvisioningWithoutQueued(c *ctx) {
	for _, q := range c.pl.Queues {
		if checksUnknown(q) {
			continue // MLP009 says it could not decide
		}
		checkNames := make([]string, 0, len(q.Spec.AdmissionChecks))
		for n := range q.Spec.AdmissionChecks {
			checkNames = append(checkNames, n)
		}
		sort.Strings(checkNames)
		for _, name := range checkNames {
			pc := c.pl.ProvisioningCheck(q.Src, name)
			if pc == nil {
				continue
			}
			isQueued, ok := pc.Queued()
			if ok && !isQueued {
				continue // another provisioning class
			}
			on := q.Spec.AdmissionChecks[name]
			if len(on) == 0 {
				on = q.FlavorNames()
			}
			var bad, res []string
			undecided := !ok
			for _, fname := range on {
				f := c.pl.Flavor(q.Src, fname)
				if f == nil {
					continue
				}
				pools, decided := c.pl.PinnedPoolsOf(f)
				unknown := !decided
				if len(pools) == 0 && !unknown {
					continue // MLP005
				}
				anyQueued := false
				for _, p := range pools {
					isQ, ok := queued(p)
					if !ok {
						unknown = true
					}
					anyQueued = anyQueued || isQ
				}
				switch {
				case unknown:
					undecided = true
				case !anyQueued:
					bad = append(bad, fmt.Sprintf("%s (pool %s)", fname, namesOf(pools, poolName)))
					res = append(res, f.Label())
					res = append(res, labels(pools)...)
				}
			}
			res = append([]string{q.Label(), pc.Label()}, res...)
			switch {
			case len(bad) > 0:
				c.add(SevError, res,
					fmt.Sprintf("workloads ClusterQueue %s admits on %s wait on admission check %s for a %s ProvisioningRequest that GKE never fulfils there: the pools are not queued_provisioning, and Kueue retries and then deactivates the workloads",
						q.Spec.Name, strings.Join(bad, ", "), name, spec.QueuedProvisioningClass),
					"limit the check to the flex-start flavors with on_flavors, or set queued_provisioning = true (and capacity = \"flex_start\") on the pool")
			case undecided:
				c.undecided(res, fmt.Sprintf("could not decide whether admission check %s of ClusterQueue %s applies only to queued-provisioning pools: its provisioning_class, or a flavor's pools or their queued_provisioning, are %s", name, q.Spec.Name, unknownText))
			}
		}
	}
}
