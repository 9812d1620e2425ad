package spec

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// ResourceGroup is a Kueue resource group, shared by ClusterQueue and Cohort:
// the resources it covers and, per flavor, the quota of each of them.
type ResourceGroup struct {
	CoveredResources []string
	Flavors          []FlavorQuotas
}

// FlavorQuotas are the quotas granted on one ResourceFlavor; Resources must
// list the group's CoveredResources in the same order.
type FlavorQuotas struct {
	Name      string
	Resources []ResourceQuota
}

// ResourceQuota is the quota of one resource on one flavor. The values are
// Kubernetes quantities ("16", "500m", "1Ti"); empty means unset.
type ResourceQuota struct {
	Name           string
	NominalQuota   string
	BorrowingLimit string
	LendingLimit   string
}

// Kueue's limits on resource groups: apis/kueue/v1beta2/clusterqueue_types.go
// (resourceGroups MaxItems=16; coveredResources and flavors MinItems=1,
// MaxItems=64) and, for a ClusterQueue only, pkg/webhooks/clusterqueue_webhook.go
// (validateTotalFlavors, validateTotalCoveredResources,
// validateFlavorResourceCombinations).
const (
	MaxResourceGroups        = 16  // per ClusterQueue or Cohort
	MaxCoveredResources      = 64  // per group
	MaxGroupFlavors          = 64  // per group
	MaxQueueFlavors          = 256 // per ClusterQueue, all groups
	MaxQueueCoveredResources = 256 // per ClusterQueue, all groups
	MaxFlavorResourcePairs   = 512 // flavors × resources per group of a ClusterQueue
)

// groupRules are the differences between Kueue's ClusterQueue and Cohort
// checks of the same resource groups (pkg/webhooks validationConfig).
type groupRules struct {
	// hasParent: the queue has a cohort, or the cohort a parent. Without
	// one, borrowing and lending limits are rejected.
	hasParent bool
	// limitsNeed is what borrowing and lending limits need, for messages:
	// "Cohort" or "Parent".
	limitsNeed string
	// clusterQueue adds the ClusterQueue-only rules: lending_limit ≤
	// nominal_quota, and the totals across groups.
	clusterQueue bool
}

// validateResourceGroups checks a ClusterQueue's resource groups the way
// Kueue does (CRD markers, CEL and the ClusterQueue webhook). hasParentOrCohort
// says whether the queue belongs to a cohort: only then may quotas carry
// borrowing_limit or lending_limit.
func validateResourceGroups(errs *FieldErrors, path Path, groups []ResourceGroup, hasParentOrCohort bool) {
	checkResourceGroups(errs, path, groups, groupRules{hasParent: hasParentOrCohort, limitsNeed: "Cohort", clusterQueue: true})
}

// validateCohortResourceGroups checks a Cohort's resource groups: the rules
// of validateResourceGroups without the ClusterQueue-only ones (Kueue's Cohort
// webhook lets a cohort lend more than its own nominal quota, since it lends
// what its members own too).
func validateCohortResourceGroups(errs *FieldErrors, path Path, groups []ResourceGroup, hasParent bool) {
	checkResourceGroups(errs, path, groups, groupRules{hasParent: hasParent, limitsNeed: "Parent"})
}

// checkResourceGroups holds the rules both kinds share: the CRD's
// (MaxItems, MinItems, the CEL rule "flavors must have the same number of
// resources as the coveredResources") and the webhook's validateResourceGroups
// (resource names are label keys; a resource and a flavor belong to one group
// only; each flavor's resources follow coveredResources by name, in order;
// quantities are not negative; limits need a cohort or parent).
func checkResourceGroups(errs *FieldErrors, path Path, groups []ResourceGroup, rules groupRules) {
	if n := len(groups); n > MaxResourceGroups {
		errs.add(path, "Too Many Resource Groups",
			"%d resource groups; Kueue accepts at most %d. Merge groups whose flavors cover the same resources, or remove %d.", n, MaxResourceGroups, n-MaxResourceGroups)
	}
	coveredIn := map[string]int{} // resource → group that covers it
	flavorIn := map[string]int{}  // flavor → group that lists it
	totalFlavors, totalCovered := 0, 0
	for i, g := range groups {
		gp := at(path, i)
		totalFlavors += len(g.Flavors)
		totalCovered += len(g.CoveredResources)
		cp := at(gp, "covered_resources")
		switch n := len(g.CoveredResources); {
		case n == 0:
			errs.add(cp, "No Covered Resources",
				"a resource group covers at least one resource; list the resources its flavors grant, e.g. [\"cpu\", \"memory\", \"nvidia.com/gpu\"].")
		case n > MaxCoveredResources:
			errs.add(cp, "Too Many Covered Resources",
				"%d covered resources; Kueue accepts at most %d per group. Split them across groups or remove %d.", n, MaxCoveredResources, n-MaxCoveredResources)
		}
		coveredOK := true // no duplicates within the group: flavors can be compared with it
		inGroup := map[string]bool{}
		for j, r := range g.CoveredResources {
			if p := QualifiedNameProblem(r); p != "" {
				errs.add(at(cp, j), "Invalid Resource Name",
					"%q is not a valid resource name: %s. Resource names are NAME or PREFIX/NAME, as pods request them: cpu, memory, ephemeral-storage, nvidia.com/gpu.", r, p)
				continue
			}
			if inGroup[r] {
				errs.add(at(cp, j), "Duplicate Covered Resource", "%q is listed twice in this group's covered_resources; remove the second one (and its quota in every flavor).", r)
				coveredOK = false
				continue
			}
			inGroup[r] = true
			if prev, seen := coveredIn[r]; seen {
				errs.add(at(cp, j), "Resource In Several Groups",
					"%q is already covered by resource_groups[%d]; a resource may belong to one group only. Remove it here, or move this group's flavors into that group.", r, prev)
				continue
			}
			coveredIn[r] = i
		}
		fp := at(gp, "flavors")
		switch n := len(g.Flavors); {
		case n == 0:
			errs.add(fp, "No Flavors", "a resource group grants its resources on at least one flavor; add a flavor with a quota for each covered resource, e.g. %v.",
				obj("name", "h100-spot", "resources", []any{obj("name", "nvidia.com/gpu", "nominal_quota", "16")}))
		case n > MaxGroupFlavors:
			errs.add(fp, "Too Many Flavors", "%d flavors; Kueue accepts at most %d per group. Remove %d.", n, MaxGroupFlavors, n-MaxGroupFlavors)
		}
		pairs := 0
		for j, f := range g.Flavors {
			pairs += len(f.Resources)
			fjp := at(fp, j)
			if f.Name == "" {
				errs.add(at(fjp, "name"), "Missing Flavor Name", "each flavor needs the name of a ResourceFlavor, e.g. mlplatform_resource_flavor.h100_spot.name.")
			} else {
				checkObjectName(errs, at(fjp, "name"), "ResourceFlavor", f.Name)
				if prev, seen := flavorIn[f.Name]; seen {
					if prev == i {
						errs.add(at(fjp, "name"), "Duplicate Flavor", "flavor %q appears twice in this group; merge the two entries into one.", f.Name)
					} else {
						errs.add(at(fjp, "name"), "Flavor In Several Groups",
							"flavor %q already has quotas in resource_groups[%d]; a flavor may belong to one group only. Move these quotas into that group (adding the resources to its covered_resources), or remove them here.", f.Name, prev)
					}
				} else {
					flavorIn[f.Name] = i
				}
			}
			if coveredOK {
				checkFlavorResources(errs, fjp, f, g.CoveredResources)
			}
			for k, q := range f.Resources {
				checkQuota(errs, at(at(fjp, "resources"), k), q, rules)
			}
		}
		if rules.clusterQueue && pairs > MaxFlavorResourcePairs {
			errs.add(fp, "Too Many Quotas", "%d flavor×resource quotas in this group; Kueue accepts at most %d per group. Remove flavors or resources.", pairs, MaxFlavorResourcePairs)
		}
	}
	if rules.clusterQueue && totalFlavors > MaxQueueFlavors {
		errs.add(path, "Too Many Flavors", "%d flavors across all resource groups; Kueue accepts at most %d per ClusterQueue. Remove %d.", totalFlavors, MaxQueueFlavors, totalFlavors-MaxQueueFlavors)
	}
	if rules.clusterQueue && totalCovered > MaxQueueCoveredResources {
		errs.add(path, "Too Many Covered Resources", "%d covered resources across all resource groups; Kueue accepts at most %d per ClusterQueue. Remove %d.",
			totalCovered, MaxQueueCoveredResources, totalCovered-MaxQueueCoveredResources)
	}
}

// checkFlavorResources reports how a flavor's resources differ from the
// group's covered_resources, which they must match in count and order
// (Kueue's CRD rule on the count; its webhook's validateFlavorQuotas, "must
// match the name in coveredResources", on each name). covered has no
// duplicates. One mistake gives one error: a misspelt name is reported where
// it is written (not also as a missing resource), and the order is reported
// only when the names are right.
func checkFlavorResources(errs *FieldErrors, fp Path, f FlavorQuotas, covered []string) {
	rp := at(fp, "resources")
	names := make([]string, len(f.Resources))
	for k, q := range f.Resources {
		names[k] = q.Name
	}
	if slices.Equal(names, covered) || len(covered) == 0 {
		return
	}
	seen := map[string]bool{}
	for k, n := range names {
		if seen[n] {
			errs.add(at(at(rp, k), "name"), "Duplicate Resource Quota", "flavor %q has two quotas for %q; remove the second one. Its resources must be %s, in that order.",
				f.Name, n, strings.Join(covered, ", "))
			return
		}
		seen[n] = true
	}
	listed := map[string]bool{}
	for _, n := range names {
		listed[n] = true
	}
	explained := map[string]bool{} // missing resources a misspelt name stands for
	notCovered := false
	for k, n := range names {
		if slices.Contains(covered, n) {
			continue
		}
		notCovered = true
		hint := fmt.Sprintf("add %q to covered_resources or remove this quota", n)
		if k < len(covered) && !listed[covered[k]] {
			hint = fmt.Sprintf("covered_resources[%d] is %q: did you mean it? Otherwise add %q to covered_resources or remove this quota", k, covered[k], n)
			explained[covered[k]] = true
		}
		errs.add(at(at(rp, k), "name"), "Resource Not Covered",
			"flavor %q has a quota for %q, which the group's covered_resources (%s) does not list; %s.", f.Name, n, strings.Join(covered, ", "), hint)
	}
	var missing []int // indexes in covered
	for c, n := range covered {
		if !listed[n] && !explained[n] {
			missing = append(missing, c)
		}
	}
	// The order of what is listed, when it is also wrong, is said in the
	// same error: fixing the one reported mistake must fix the flavor.
	reorder := ""
	if !notCovered && !inCoveredOrder(names, covered) {
		reorder = fmt.Sprintf(" Also reorder them: they must follow covered_resources (%s).", strings.Join(covered, ", "))
	}
	switch {
	case len(missing) == 1:
		c := missing[0]
		errs.add(rp, "Missing Resource Quota",
			"flavor %q has no quota for %q, which covered_resources lists as covered_resources[%d]; every flavor must list all covered resources, in their order. Add %v as resources[%d] (a quota of 0 grants none).%s",
			f.Name, covered[c], c, obj("name", covered[c], "nominal_quota", "0"), c, reorder)
	case len(missing) > 1:
		var ms []string
		for _, c := range missing {
			ms = append(ms, fmt.Sprintf("%q (covered_resources[%d])", covered[c], c))
		}
		errs.add(rp, "Missing Resource Quota",
			"flavor %q has no quota for %s; every flavor must list all covered resources, in their order: %s. Add the missing ones, with %v where the flavor grants none.",
			f.Name, strings.Join(ms, ", "), strings.Join(covered, ", "), set("nominal_quota", "0"))
	case !notCovered:
		errs.add(rp, "Resources Out Of Order",
			"flavor %q lists its quotas as %s, but they must follow covered_resources: %s. Reorder the resources of this flavor.",
			f.Name, strings.Join(names, ", "), strings.Join(covered, ", "))
	}
}

// inCoveredOrder reports whether names (all in covered, no duplicates) come
// in the order covered lists them.
func inCoveredOrder(names, covered []string) bool {
	last := -1
	for _, n := range names {
		i := slices.Index(covered, n)
		if i < last {
			return false
		}
		last = i
	}
	return true
}

func checkQuota(errs *FieldErrors, p Path, q ResourceQuota, rules groupRules) {
	nominal, nominalOK := quantity(errs, at(p, "nominal_quota"), q.NominalQuota, true)
	for _, l := range []struct{ attr, val string }{{"borrowing_limit", q.BorrowingLimit}, {"lending_limit", q.LendingLimit}} {
		if l.val == "" {
			continue
		}
		if !rules.hasParent {
			what, remedy := "a ClusterQueue that belongs to a cohort", textf("put the queue in a cohort (%v)", set("cohort", "..."))
			if rules.limitsNeed == "Parent" {
				what, remedy = "a Cohort with a parent", textf("set parent to the cohort above this one (e.g. %v)", set("parent", "org"))
			}
			errs.add(at(p, l.attr), "Limit Needs A "+rules.limitsNeed,
				"%s only applies to %s (it limits what is borrowed from or lent to the rest of the tree); %s, or remove %s (Kueue rejects it otherwise).",
				l.attr, what, remedy, l.attr)
			continue
		}
		v, ok := quantity(errs, at(p, l.attr), l.val, false)
		if ok && l.attr == "lending_limit" && rules.clusterQueue && nominalOK && v.Cmp(nominal) > 0 {
			errs.add(at(p, l.attr), "Lending Limit Above Nominal Quota",
				"lending_limit %s is more than nominal_quota %s; a queue can lend at most what it owns. Lower lending_limit to at most %s.",
				l.val, q.NominalQuota, q.NominalQuota)
		}
	}
}

// quantity parses a quota value (a Kubernetes quantity, the CRD's
// resource.Quantity) and checks it is not negative (the webhook's
// validateResourceQuantity).
func quantity(errs *FieldErrors, p Path, s string, required bool) (resource.Quantity, bool) {
	if s == "" {
		if required {
			errs.add(p, "Missing Nominal Quota", "every resource of a flavor needs a nominal_quota; use \"0\" to grant none.")
		}
		return resource.Quantity{}, false
	}
	attr := p[len(p)-1]
	q, err := resource.ParseQuantity(s)
	if err != nil {
		errs.add(p, "Invalid Quantity", "%s %q is not a Kubernetes quantity; write a number with an optional suffix, e.g. \"16\", \"500m\", \"64Gi\" (no spaces or units in words).", attr, s)
		return q, false
	}
	if q.Sign() < 0 {
		errs.add(p, "Negative Quantity", "%s %s must not be negative; use \"0\" for none.", attr, s)
		return q, false
	}
	return q, true
}

func at(p Path, elem any) Path { return append(slices.Clone(p), elem) }

// quantityEqual reports whether a and b are the same quantity ("12" and
// "12000m", "1Gi" and "1024Mi"). Empty means unset: equal only to empty.
// Values that do not parse are compared as written.
func quantityEqual(a, b string) bool {
	if a == b {
		return true
	}
	if a == "" || b == "" {
		return false
	}
	qa, errA := resource.ParseQuantity(a)
	qb, errB := resource.ParseQuantity(b)
	if errA != nil || errB != nil {
		return false
	}
	return qa.Cmp(qb) == 0
}

// QuantityEqual is quantityEqual, for the packages that compare what the
// server holds with a spec.
func QuantityEqual(a, b string) bool { return quantityEqual(a, b) }

// ResourceGroupsEqual reports whether a and b grant the same quotas: the same
// groups, resources and flavors in the same order, quantities compared by
// value. Nil and empty are equal.
func ResourceGroupsEqual(a, b []ResourceGroup) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !slices.Equal(a[i].CoveredResources, b[i].CoveredResources) || len(a[i].Flavors) != len(b[i].Flavors) {
			return false
		}
		for j, fa := range a[i].Flavors {
			fb := b[i].Flavors[j]
			if fa.Name != fb.Name || len(fa.Resources) != len(fb.Resources) {
				return false
			}
			for k, ra := range fa.Resources {
				rb := fb.Resources[k]
				if ra.Name != rb.Name || !quantityEqual(ra.NominalQuota, rb.NominalQuota) ||
					!quantityEqual(ra.BorrowingLimit, rb.BorrowingLimit) || !quantityEqual(ra.LendingLimit, rb.LendingLimit) {
					return false
				}
			}
		}
	}
	return true
}

// KeepSpelling returns prior when it is the same quantity as server, else
// server: state keeps the configuration's "12000m" while the server says "12".
func KeepSpelling(server, prior string) string {
	if quantityEqual(server, prior) {
		return prior
	}
	return server
}

// KeepQuotaSpelling returns server's groups with each quantity written as in
// prior wherever prior has the same value for the same flavor and resource.
func KeepQuotaSpelling(server, prior []ResourceGroup) []ResourceGroup {
	type key struct{ flavor, resource string }
	was := map[key]ResourceQuota{}
	for _, g := range prior {
		for _, f := range g.Flavors {
			for _, r := range f.Resources {
				was[key{f.Name, r.Name}] = r
			}
		}
	}
	out := make([]ResourceGroup, len(server))
	for i, g := range server {
		out[i] = ResourceGroup{CoveredResources: slices.Clone(g.CoveredResources), Flavors: make([]FlavorQuotas, len(g.Flavors))}
		for j, f := range g.Flavors {
			fq := FlavorQuotas{Name: f.Name, Resources: make([]ResourceQuota, len(f.Resources))}
			for k, r := range f.Resources {
				if p, ok := was[key{f.Name, r.Name}]; ok {
					r.NominalQuota = KeepSpelling(r.NominalQuota, p.NominalQuota)
					r.BorrowingLimit = KeepSpelling(r.BorrowingLimit, p.BorrowingLimit)
					r.LendingLimit = KeepSpelling(r.LendingLimit, p.LendingLimit)
				}
				fq.Resources[k] = r
			}
			out[i].Flavors[j] = fq
		}
	}
	return out
}
