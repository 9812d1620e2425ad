package report

import (
	"fmt"
	"sort"
	"strings"
)

// checkDefs are the rules, in identifier order. Identifiers are stable:
// a rule that goes away leaves its number unused. docs/guides/checks.md
// (templates/guides/checks.md.tmpl) describes each one and its fix.
var checkDefs = []checkDef{
	{"MLP001", "queue-selects-no-namespace", checkQueueSelectsNoNamespace},
	{"MLP002", "local-queue-namespace-not-selected", checkLocalQueueNamespace},
	{"MLP003", "local-queue-cluster-queue-missing", checkLocalQueueClusterQueue},
	{"MLP004", "flavor-missing", checkFlavorMissing},
	{"MLP005", "flavor-selects-no-pool", checkFlavorSelectsNoPool},
	{"MLP006", "flavor-selects-mixed-pools", checkFlavorMixedPools},
	{"MLP007", "flavor-misses-pool-taint", checkFlavorMissesTaint},
	{"MLP008", "pool-taint-untolerated", checkPoolTaintUntolerated},
	{"MLP009", "queued-pool-without-provisioning-check", checkQueuedWithoutCheck},
	{"MLP010", "provisioning-check-without-queued-pool", checkProvisioningWithoutQueued},
	{"MLP011", "workload-identity-blocked-by-network-policy", checkWIBlockedByPolicy},
	{"MLP012", "workload-identity-without-metadata-server", checkWIWithoutMetadataServer},
	{"MLP013", "gang-larger-than-pools", checkGangLargerThanPools},
	{"MLP014", "sliced-flavor-before-whole-gpus", checkSlicedBeforeWhole},
	{"MLP015", "multikueue-manager-quota-above-workers", checkMultiKueueAbove},
	{"MLP016", "multikueue-manager-quota-below-workers", checkMultiKueueBelow},
	{"MLP017", "multikueue-check-misconfigured", checkMultiKueueMisconfigured},
}

func jobsOn(lqs []*lqState, cq string) string {
	if len(lqs) == 0 {
		return "no job will ever be admitted to ClusterQueue " + cq
	}
	return "jobs submitted to " + names(lqs, (*lqState).label) + " will never be admitted"
}

// MLP001: a ClusterQueue whose namespace_selector selects none of the
// planned team namespaces (or is unset, which Kueue reads as none).
func checkQueueSelectsNoNamespace(c *checkCtx) {
	for _, q := range c.queues {
		lqs := c.lqsOf(q)
		res := append([]string{q.Address}, addresses(lqs, lqAddr)...)
		switch {
		case q.Selector.Absent:
			continue
		case q.Selector.Unknown:
			c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s selects a team namespace: its namespace_selector is %s", q.Name, unknownText))
			continue
		case q.Selector.Null:
			c.add(SevError, res,
				fmt.Sprintf("%s: ClusterQueue %s has no namespace_selector, which Kueue reads as matching no namespace", jobsOn(lqs, q.Name), q.Name),
				"set namespace_selector to the team namespace's selector (namespace_selector = mlplatform_team_namespace.TEAM.selector); {} selects every namespace")
			continue
		case q.Selector.all() || len(inCluster(q.at(), c.namespaces)) == 0:
			continue // selects every namespace; or the namespaces are managed elsewhere
		}
		var unknown []string
		matched := false
		for _, ns := range inCluster(q.at(), c.namespaces) {
			switch {
			case ns.LabelsUnknown:
				unknown = append(unknown, ns.Address)
			case q.Selector.matches(ns.Labels):
				matched = true
			}
		}
		switch {
		case matched:
		case len(unknown) > 0:
			c.undecided(append(res, unknown...), fmt.Sprintf("could not decide whether ClusterQueue %s selects a team namespace: it selects %s, and the labels of %s are %s",
				q.Name, q.Selector.describe(), strings.Join(unknown, ", "), unknownText))
		default:
			c.add(SevError, res,
				fmt.Sprintf("%s: ClusterQueue %s selects %s, and no team namespace has that label", jobsOn(lqs, q.Name), q.Name, q.Selector.describe()),
				"set the ClusterQueue's namespace_selector to its team namespace's selector (mlplatform_team_namespace.TEAM.selector), or correct the team namespace's team or labels")
		}
	}
}

// MLP002: a LocalQueue in a namespace its ClusterQueue does not select.
func checkLocalQueueNamespace(c *checkCtx) {
	for _, l := range c.lqs {
		if !l.CQ.Known {
			continue // MLP003 says it could not decide
		}
		q := c.queue(l.at(), l.CQ.S)
		if q == nil || q.Selector.Absent || q.Selector.Null || q.Selector.all() {
			continue // MLP003, MLP001; or every namespace is selected
		}
		res := []string{l.Address, q.Address}
		if q.Selector.Unknown || !l.Namespace.Known {
			c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s serves LocalQueue %s: its namespace_selector or the LocalQueue's namespace is %s", q.Name, l.label(), unknownText))
			continue
		}
		selectsSome := false
		for _, ns := range inCluster(q.at(), c.namespaces) {
			if ns.LabelsUnknown || q.Selector.matches(ns.Labels) {
				selectsSome = true
			}
		}
		if !selectsSome {
			continue // MLP001 reports the queue
		}
		ns := c.namespace(l.at(), l.Namespace.S)
		switch {
		case ns == nil:
			c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s serves LocalQueue %s: namespace %s is not an mlplatform_team_namespace of this configuration, so its labels are not in the plan",
				q.Name, l.label(), l.Namespace.S))
		case ns.LabelsUnknown:
			c.undecided(append(res, ns.Address), fmt.Sprintf("could not decide whether ClusterQueue %s serves LocalQueue %s: the labels of namespace %s are %s", q.Name, l.label(), l.Namespace.S, unknownText))
		case !q.Selector.matches(ns.Labels):
			team := ns.Labels["mlplatform.dev/team"]
			c.add(SevError, append(res, ns.Address),
				fmt.Sprintf("jobs submitted to %s will never be admitted: its ClusterQueue %s selects %s, and namespace %s is labelled mlplatform.dev/team=%s", l.label(), q.Name, q.Selector.describe(), l.Namespace.S, team),
				fmt.Sprintf("point the LocalQueue at the ClusterQueue of namespace %s's team, or move it to a namespace the ClusterQueue selects", l.Namespace.S))
		}
	}
}

// MLP003: a LocalQueue naming a ClusterQueue not in the configuration.
func checkLocalQueueClusterQueue(c *checkCtx) {
	for _, l := range c.lqs {
		switch {
		case !l.CQ.Known:
			c.undecided([]string{l.Address}, fmt.Sprintf("could not decide whether LocalQueue %s's ClusterQueue is in this configuration: cluster_queue is %s", l.label(), unknownText))
		case c.queue(l.at(), l.CQ.S) != nil:
		case c.queueNameUnknown():
			c.undecided([]string{l.Address}, fmt.Sprintf("could not decide whether ClusterQueue %s, named by LocalQueue %s, is in this configuration: a ClusterQueue's name is %s", l.CQ.S, l.label(), unknownText))
		default:
			c.add(SevWarning, []string{l.Address},
				fmt.Sprintf("jobs submitted to %s will never be admitted unless ClusterQueue %s exists: it is not in this configuration (if it exists in the cluster, ignore this), and Kueue keeps a LocalQueue whose ClusterQueue is missing inactive", l.label(), l.CQ.S),
				"set cluster_queue to a ClusterQueue of this configuration (mlplatform_cluster_queue.TEAM.name), or check the spelling")
		}
	}
}

// MLP004: a flavor named in a ClusterQueue or Cohort but not in the configuration.
func checkFlavorMissing(c *checkCtx) {
	nameUnknown := false
	for _, f := range c.flavors {
		if !f.NameKnown {
			nameUnknown = true
		}
	}
	owners := make([]*quotaOwner, 0, len(c.queues)+len(c.cohorts))
	for _, q := range c.queues {
		owners = append(owners, q.quotaOwner)
	}
	owners = append(owners, c.cohorts...)
	for _, o := range owners {
		kind := "ClusterQueue"
		if !strings.Contains(o.Address, "mlplatform_cluster_queue.") {
			kind = "Cohort"
		}
		if o.GroupsUnknown {
			c.undecided([]string{o.Address}, fmt.Sprintf("could not decide whether the flavors of %s %s are in this configuration: its resource_groups are %s", kind, o.Name, unknownText))
		}
		seen := map[string]bool{}
		for _, k := range o.Keys {
			if seen[k.Flavor] || c.flavor(o.at(), k.Flavor) != nil {
				continue
			}
			seen[k.Flavor] = true
			if nameUnknown {
				c.undecided([]string{o.Address}, fmt.Sprintf("could not decide whether ResourceFlavor %s, named by %s %s, is in this configuration: a flavor's name is %s", k.Flavor, kind, o.Name, unknownText))
				continue
			}
			c.add(SevWarning, []string{o.Address},
				fmt.Sprintf("%s %s admits no job while ResourceFlavor %s does not exist: the flavor is not in this configuration (if it exists in the cluster, ignore this), and Kueue keeps a %s with a missing flavor inactive", kind, o.Name, k.Flavor, kind),
				"add an mlplatform_resource_flavor named "+k.Flavor+" or name the flavor by reference (mlplatform_resource_flavor.NAME.name) in resource_groups")
		}
	}
}

// gpuQuotaFlavors lists, in name order, the flavors with nvidia.com/gpu
// quota in a ClusterQueue or Cohort of the configuration.
func (c *checkCtx) gpuQuotaFlavors() []*flavorCheck {
	var out []*flavorCheck
	for _, f := range c.flavors {
		if !f.NameKnown {
			continue
		}
		has := false
		for _, q := range c.queues {
			if _, ok := gpuQuota(q.quotaOwner, f.Name); ok && sameCluster(f.at(), q.at()) {
				has = true
			}
		}
		for _, co := range c.cohorts {
			if _, ok := gpuQuota(co, f.Name); ok && sameCluster(f.at(), co.at()) {
				has = true
			}
		}
		if has {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// quotaHolders says who holds GPU quota on the flavor: "team-a: 8, team-b: 16".
func (c *checkCtx) quotaHolders(f *flavorCheck) string {
	var parts []string
	for _, q := range c.queues {
		if n, ok := gpuQuota(q.quotaOwner, f.Name); ok && sameCluster(f.at(), q.at()) {
			parts = append(parts, q.Name+": "+n.text(unknownText))
		}
	}
	return strings.Join(parts, ", ")
}

// MLP005: a flavor with GPU quota whose node_labels select no planned pool.
func checkFlavorSelectsNoPool(c *checkCtx) {
	if len(c.pools) == 0 {
		return // the pools are managed elsewhere
	}
	for _, f := range c.gpuQuotaFlavors() {
		if !f.LabelsUnknown && len(f.Labels) == 0 {
			continue // no node labels: the flavor stands for every node
		}
		pools, unknown := c.poolsOf(f)
		switch {
		case unknown:
			c.undecided([]string{f.Address}, fmt.Sprintf("could not decide whether flavor %s selects a GPU pool: its node_labels or a pool's node_selector is %s", f.Name, unknownText))
		case len(pools) == 0:
			c.add(SevError, []string{f.Address},
				fmt.Sprintf("quota on flavor %s (%s nvidia.com/gpu) is for capacity that cannot exist: its node_labels select no mlplatform_gpu_pool of this configuration, so workloads admitted on it stay Pending", f.Name, c.quotaHolders(f)),
				"set the flavor's node_labels to its pool's node_selector (node_labels = mlplatform_gpu_pool.POOL.node_selector)")
		}
	}
}

// MLP006: a flavor whose node_labels select pools with different GPUs.
func checkFlavorMixedPools(c *checkCtx) {
	for _, f := range c.flavors {
		pools, unknown := c.poolsOf(f)
		if unknown || len(pools) < 2 {
			continue // MLP005 reports unknown labels
		}
		kinds := map[string]bool{}
		undecided := false
		for _, p := range pools {
			if p.GPUType == "" || p.slicing().Unit == "" {
				undecided = true
			}
			kinds[p.gpuKind()] = true
		}
		res := append([]string{f.Address}, addresses(pools, poolAddr)...)
		switch {
		case undecided:
			c.undecided(res, fmt.Sprintf("could not decide whether the pools of flavor %s have the same GPUs: a pool's gpu is %s", f.Name, unknownText))
		case len(kinds) > 1:
			var desc []string
			for _, p := range pools {
				desc = append(desc, fmt.Sprintf("%s (%s)", p.Name, p.gpuKind()))
			}
			c.add(SevWarning, res,
				fmt.Sprintf("a job admitted on flavor %s may run on any of %s: its quota does not say which GPU a job gets", f.Name, strings.Join(desc, ", ")),
				"make one flavor per kind of GPU, each with node_labels = mlplatform_gpu_pool.POOL.node_selector")
		}
	}
}

// poolFlavors lists the flavors whose node_labels select the pool; none when
// a flavor of it lacks tolerations in the plan (taint rules skip the pool);
// unknown when a flavor's node_labels or the pool's node_selector is.
func (c *checkCtx) poolFlavors(p *poolCheck) (flavors []*flavorCheck, unknown bool) {
	for _, f := range inCluster(p.at(), c.flavors) {
		if f.LabelsUnknown || p.SelectorUnknown {
			unknown = true
			continue
		}
		if p.matches(f.Labels) {
			if f.TolAbsent {
				return nil, false
			}
			flavors = append(flavors, f)
		}
	}
	return flavors, unknown
}

func (c *checkCtx) untoleratedByAll(p *poolCheck, flavors []*flavorCheck) []taint {
	var out []taint
	for _, t := range p.Taints {
		tolerated := false
		for _, f := range flavors {
			if f.tolerates(t) {
				tolerated = true
			}
		}
		if !tolerated {
			out = append(out, t)
		}
	}
	return out
}

func taintList(ts []taint) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ", ")
}

func flavorName(f *flavorCheck) string { return f.Name }
func flavorAddr(f *flavorCheck) string { return f.Address }

// MLP007: a flavor whose tolerations miss a taint of a pool it selects,
// which another flavor of that pool tolerates (a taint no flavor of the
// pool tolerates is MLP008).
func checkFlavorMissesTaint(c *checkCtx) {
	for _, p := range c.pools {
		flavors, unknown := c.poolFlavors(p)
		if unknown || len(flavors) == 0 {
			continue
		}
		allKnown := !p.TaintsUnknown
		for _, f := range flavors {
			allKnown = allKnown && !f.TolUnknown
		}
		none := map[taint]bool{}
		if allKnown {
			for _, t := range c.untoleratedByAll(p, flavors) {
				none[t] = true
			}
		}
		for _, f := range flavors {
			if !allKnown {
				c.undecided([]string{f.Address, p.Address}, fmt.Sprintf("could not decide whether flavor %s tolerates the taints of pool %s: the pool's taints or queued_provisioning, or a flavor's tolerations, are %s", f.Name, p.Name, unknownText))
				continue
			}
			var missed []taint
			for _, t := range p.Taints {
				if !none[t] && !f.tolerates(t) {
					missed = append(missed, t)
				}
			}
			if len(missed) > 0 {
				c.add(SevError, []string{f.Address, p.Address},
					fmt.Sprintf("workloads admitted on flavor %s are admitted but their pods stay Pending on pool %s (unless every job tolerates it itself): its nodes carry %s, which the flavor's tolerations do not tolerate", f.Name, p.Name, taintList(missed)),
					fmt.Sprintf("set the flavor's tolerations to its pool's workload_tolerations (tolerations = %s.workload_tolerations)", p.Address))
			}
		}
	}
}

// MLP008: a taint of a pool that none of the flavors selecting it tolerates.
func checkPoolTaintUntolerated(c *checkCtx) {
	for _, p := range c.pools {
		flavors, unknown := c.poolFlavors(p)
		if len(flavors) == 0 && !unknown {
			continue // no flavor stands for this pool
		}
		res := append(addresses(flavors, flavorAddr), p.Address)
		tolUnknown := false
		for _, f := range flavors {
			tolUnknown = tolUnknown || f.TolUnknown
		}
		if unknown || p.TaintsUnknown || tolUnknown {
			c.undecided(res, fmt.Sprintf("could not decide whether the flavors of pool %s tolerate its taints: its taints or queued_provisioning, a flavor's tolerations, or node_labels are %s", p.Name, unknownText))
			continue
		}
		if missed := c.untoleratedByAll(p, flavors); len(missed) > 0 {
			c.add(SevError, res,
				fmt.Sprintf("no job Kueue admits on %s runs on pool %s: its nodes carry %s, which none of its flavors tolerates, so the pods stay Pending (unless every job tolerates it itself)",
					names(flavors, flavorName), p.Name, taintList(missed)),
				fmt.Sprintf("set each flavor's tolerations to the pool's workload_tolerations (tolerations = %s.workload_tolerations), or drop the taint from the pool", p.Address))
		}
	}
}

// MLP009: a queued-provisioning pool's flavor without a provisioning
// admission check in a ClusterQueue that has quota on it.
func checkQueuedWithoutCheck(c *checkCtx) {
	for _, q := range c.queues {
		for _, fname := range q.flavorNames() {
			f := c.flavor(q.at(), fname)
			if f == nil {
				continue // MLP004
			}
			pools, unknown := c.poolsOf(f)
			var queued []*poolCheck
			for _, p := range pools {
				if !p.QueuedKnown {
					unknown = true
				} else if p.Queued {
					queued = append(queued, p)
				}
			}
			if len(queued) == 0 && !unknown {
				continue
			}
			res := append([]string{q.Address, f.Address}, addresses(queued, poolAddr)...)
			if unknown || q.ChecksUnknown {
				c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s guards flavor %s with a provisioning admission check: its admission_checks, or the flavor's pools or their queued_provisioning, are %s", q.Name, fname, unknownText))
				continue
			}
			guarded, other := false, []string{}
			for _, name := range q.checksOn(fname) {
				pc := c.provCheck(q.at(), name)
				if pc == nil {
					other = append(other, name)
					continue
				}
				if isQueued, ok := pc.queued(); !ok {
					other = append(other, name)
				} else if isQueued {
					guarded = true
				}
			}
			switch {
			case guarded:
			case len(other) > 0:
				c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s guards flavor %s with a provisioning admission check: %s %s not in this configuration (or their provisioning_class is %s)",
					q.Name, fname, strings.Join(other, ", "), map[bool]string{true: "is", false: "are"}[len(other) == 1], unknownText))
			default:
				c.add(SevError, res,
					fmt.Sprintf("workloads ClusterQueue %s admits on flavor %s wait for nodes that never come: pool %s has queued_provisioning, so GKE creates its nodes only for a ProvisioningRequest, and no provisioning admission check of the queue applies to %s",
						q.Name, fname, names(queued, poolName), fname),
					fmt.Sprintf("add to the ClusterQueue admission_checks = { (mlplatform_provisioning_admission_check.CHECK.name) = { on_flavors = [%q] } }", fname))
			}
		}
	}
}

// MLP010: a queued-provisioning admission check on flavors whose pools are
// not queued.
func checkProvisioningWithoutQueued(c *checkCtx) {
	for _, q := range c.queues {
		if q.ChecksUnknown {
			continue // MLP009 says it could not decide
		}
		checkNames := make([]string, 0, len(q.Checks))
		for n := range q.Checks {
			checkNames = append(checkNames, n)
		}
		sort.Strings(checkNames)
		for _, name := range checkNames {
			pc := c.provCheck(q.at(), name)
			if pc == nil {
				continue
			}
			isQueued, ok := pc.queued()
			if ok && !isQueued {
				continue // another provisioning class
			}
			on := q.Checks[name]
			if on == nil {
				on = q.flavorNames()
			}
			var bad []string
			var res []string
			undecided := !ok
			for _, fname := range on {
				f := c.flavor(q.at(), fname)
				if f == nil {
					continue
				}
				pools, unknown := c.poolsOf(f)
				if len(pools) == 0 && !unknown {
					continue // MLP005
				}
				anyQueued := false
				for _, p := range pools {
					if !p.QueuedKnown {
						unknown = true
					}
					anyQueued = anyQueued || p.Queued
				}
				switch {
				case unknown:
					undecided = true
				case !anyQueued:
					bad = append(bad, fmt.Sprintf("%s (pool %s)", fname, names(pools, poolName)))
					res = append(res, f.Address)
					res = append(res, addresses(pools, poolAddr)...)
				}
			}
			res = append([]string{q.Address, pc.Address}, res...)
			switch {
			case len(bad) > 0:
				c.add(SevError, res,
					fmt.Sprintf("workloads ClusterQueue %s admits on %s wait on admission check %s for a queued-provisioning.gke.io ProvisioningRequest that GKE never fulfils there: the pools are not queued_provisioning, and Kueue retries and then deactivates the workloads",
						q.Name, strings.Join(bad, ", "), name),
					"limit the check to the flex-start flavors with on_flavors, or set queued_provisioning = true (and capacity = \"flex_start\") on the pool")
			case undecided:
				c.undecided(res, fmt.Sprintf("could not decide whether admission check %s of ClusterQueue %s applies only to queued-provisioning pools: its provisioning_class, or a flavor's pools or their queued_provisioning, are %s", name, q.Name, unknownText))
			}
		}
	}
}

// MLP011: a Workload Identity whose namespace's training network policy
// turns off metadata_server or dns.
func checkWIBlockedByPolicy(c *checkCtx) {
	for _, w := range c.identities {
		for _, p := range inCluster(w.at(), c.policies) {
			res := []string{w.Address, p.Address}
			if !w.Namespace.Known || !p.Namespace.Known {
				if w.Namespace.Unknown || p.Namespace.Unknown {
					c.undecided(res, fmt.Sprintf("could not decide whether network policy %s blocks the Workload Identity of %s: a namespace is %s", p.Address, w.Address, unknownText))
				}
				continue
			}
			if w.Namespace.S != p.Namespace.S {
				continue
			}
			who := fmt.Sprintf("pods in %s running as %s", w.Namespace.S, w.KSA.S)
			if !p.MetaOK || !p.DNSOK {
				c.undecided(res, fmt.Sprintf("could not decide whether the training network policy of %s lets %s reach the metadata server: metadata_server or dns is %s", w.Namespace.S, who, unknownText))
				continue
			}
			var off, fix []string
			if !p.Metadata {
				off = append(off, "metadata_server (egress to 169.254.169.254 and 169.254.169.252)")
				fix = append(fix, "metadata_server = true")
			}
			if !p.DNS {
				off = append(off, "dns (so metadata.google.internal does not resolve)")
				fix = append(fix, "dns = true")
			}
			if len(off) > 0 {
				c.add(SevError, res,
					fmt.Sprintf("%s never get a Workload Identity token, so every Google API call fails: the training network policy of %s turns off %s", who, w.Namespace.S, strings.Join(off, " and ")),
					"set "+strings.Join(fix, " and ")+" on the training network policy (the default), or drop the Workload Identity binding if the pods need no Google API")
			}
		}
	}
}

// MLP012: a Workload Identity used by a team whose quota is only on pools
// with workload_identity = false.
func checkWIWithoutMetadataServer(c *checkCtx) {
	for _, w := range c.identities {
		if !w.Namespace.Known {
			if w.Namespace.Unknown && len(c.pools) > 0 {
				c.undecided([]string{w.Address}, fmt.Sprintf("could not decide on which pools the pods of %s run: its namespace is %s", w.Address, unknownText))
			}
			continue
		}
		var pools []*poolCheck
		var queues []string
		unknown := false
		seen := map[string]bool{}
		for _, l := range inCluster(w.at(), c.lqs) {
			if !l.Namespace.Known || l.Namespace.S != w.Namespace.S || !l.CQ.Known {
				unknown = unknown || l.Namespace.Unknown
				continue
			}
			q := c.queue(l.at(), l.CQ.S)
			if q == nil {
				continue
			}
			queues = append(queues, q.Address)
			unknown = unknown || q.GroupsUnknown
			for _, k := range q.Keys {
				n := q.Quotas[k].Nominal
				if n.State == qUnknown {
					unknown = true
				}
				if n.State != qKnown || n.sign() <= 0 {
					continue
				}
				f := c.flavor(q.at(), k.Flavor)
				if f == nil {
					continue
				}
				ps, u := c.poolsOf(f)
				unknown = unknown || u
				for _, p := range ps {
					if !seen[p.Address] {
						seen[p.Address] = true
						pools = append(pools, p)
					}
				}
			}
		}
		if len(pools) == 0 && !unknown {
			continue
		}
		res := append(append([]string{w.Address}, dedupe(queues)...), addresses(pools, poolAddr)...)
		allOff := len(pools) > 0
		for _, p := range pools {
			if !p.WIKnown {
				unknown = true
			}
			if p.WI {
				allOff = false
			}
		}
		switch {
		case unknown && allOff || unknown && len(pools) == 0:
			c.undecided(res, fmt.Sprintf("could not decide whether the pods of %s in %s run where the GKE metadata server runs: a queue's quota or a pool's workload_identity is %s", w.KSA.S, w.Namespace.S, unknownText))
		case allOff:
			c.add(SevError, res,
				fmt.Sprintf("pods in %s running as %s never get a Workload Identity token: their quota is only on pool %s, whose nodes do not run the GKE metadata server (workload_identity = false)", w.Namespace.S, w.KSA.S, names(pools, poolName)),
				"set workload_identity = true (the default) on the pool, or give the team quota on a pool that has it")
		}
	}
}

// MLP013: a flavor whose pools at max_nodes hold fewer GPUs than the single
// largest queue's nominal quota of it: a job that size fits the quota and
// can never be placed.
func checkGangLargerThanPools(c *checkCtx) {
	for _, f := range c.gpuQuotaFlavors() {
		pools, unknown := c.poolsOf(f)
		if !unknown && len(pools) == 0 {
			continue // MLP005
		}
		var largest Qty
		var largestQ *cqState
		for _, q := range c.queues {
			n, ok := gpuQuota(q.quotaOwner, f.Name)
			if !ok || !sameCluster(f.at(), q.at()) {
				continue
			}
			if n.State == qUnknown {
				unknown = true
				continue
			}
			if n.State == qKnown && (largest.State != qKnown || largest.less(n)) {
				largest, largestQ = n, q
			}
		}
		total := knownQty("0")
		for _, p := range pools {
			u, _ := p.units()
			total = total.plus(u)
		}
		res := append([]string{f.Address}, addresses(pools, poolAddr)...)
		if largestQ != nil {
			res = append([]string{largestQ.Address}, res...)
		}
		switch {
		case unknown || total.State == qUnknown:
			c.undecided(res, fmt.Sprintf("could not decide whether the pools of flavor %s can hold the largest queue's quota: a quota, node_labels, max_nodes or allocatable_gpus_per_node is %s", f.Name, unknownText))
		case largestQ != nil && total.less(largest):
			c.add(SevError, res,
				fmt.Sprintf("a job of %s nvidia.com/gpu on flavor %s fits ClusterQueue %s's quota but can never be placed: its pools (%s) grow to at most %s (max_nodes × allocatable_gpus_per_node), so Kueue admits it and its pods stay Pending",
					largest.Raw, f.Name, largestQ.Name, names(pools, poolName), total.Raw),
				fmt.Sprintf("raise the pools' autoscaling.max_nodes to hold %s, or lower the queue's nominal_quota of %s to at most %s", largest.Raw, f.Name, total.Raw))
		}
	}
}

// MLP014: a sliced flavor (MIG or shared GPUs) listed in a resource group
// before a whole-GPU flavor.
func checkSlicedBeforeWhole(c *checkCtx) {
	// kind: sliced or whole GPUs; known false when the flavor is not in
	// the configuration, has no pool or mixes both (other checks say so);
	// undecided when a value is unknown until apply.
	kind := func(q *cqState, fname string) (sliced, known, undecided bool) {
		f := c.flavor(q.at(), fname)
		if f == nil {
			return false, false, false
		}
		pools, unknown := c.poolsOf(f)
		if unknown {
			return false, false, true
		}
		if len(pools) == 0 {
			return false, false, false
		}
		for _, p := range pools {
			if p.slicing().Unit == "" {
				return false, false, true
			}
		}
		s := pools[0].slicing()
		for _, p := range pools {
			if p.slicing().sliced() != s.sliced() {
				return false, false, false
			}
		}
		return s.sliced(), true, false
	}
	for _, q := range c.queues {
		for _, g := range q.Groups {
			if !g.GPU {
				continue
			}
			var sliced, undecided []string
			found := false
			for _, fname := range g.Flavors {
				sl, known, und := kind(q, fname)
				switch {
				case und:
					undecided = append(undecided, fname)
				case !known:
				case sl:
					sliced = append(sliced, fname)
				case len(sliced) > 0:
					res := []string{q.Address}
					for _, s := range append(append([]string{}, sliced...), fname) {
						if f := c.flavor(q.at(), s); f != nil {
							res = append(res, f.Address)
						}
					}
					c.add(SevWarning, res,
						fmt.Sprintf("a job of ClusterQueue %s that did not ask for slices may be given slices: sliced flavor %s comes before whole-GPU flavor %s, and Kueue tries a resource group's flavors in order",
							q.Name, strings.Join(sliced, ", "), fname),
						"list sliced flavors last in resource_groups, or taint the sliced pool so only jobs that tolerate it land there")
					sliced, found = nil, true
				}
			}
			if !found && len(undecided) > 0 && len(g.Flavors) > 1 {
				c.undecided([]string{q.Address}, fmt.Sprintf("could not decide whether ClusterQueue %s lists a sliced flavor before a whole-GPU one: whether %s is sliced is %s", q.Name, strings.Join(undecided, ", "), unknownText))
			}
		}
	}
}
