package spec

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Enumerations of ClusterQueue fields, with Kueue's defaults first.
var (
	QueueingStrategies      = []string{"BestEffortFIFO", "StrictFIFO"}
	ReclaimPolicies         = []string{"Never", "LowerPriority", "Any"}
	WithinQueuePolicies     = []string{"Never", "LowerPriority", "LowerOrNewerEqualPriority"}
	BorrowWithinPolicies    = []string{"Never", "LowerPriority"}
	FungibilityPolicies     = []string{"MayStopSearch", "TryNextFlavor"}
	FungibilityPreferences  = []string{"BorrowingOverPreemption", "PreemptionOverBorrowing"}
	SelectorOperators       = []string{"In", "NotIn", "Exists", "DoesNotExist"}
	maxAdmissionChecks      = 64
	maxSelectorRequirements = 64
)

// LabelSelector selects namespaces. A nil *LabelSelector matches no
// namespace; an empty one matches all.
type LabelSelector struct {
	MatchLabels      map[string]string
	MatchExpressions []SelectorRequirement
}

// SelectorRequirement is one match expression.
type SelectorRequirement struct {
	Key      string
	Operator string
	Values   []string
}

// Preemption is a ClusterQueue's preemption policy ("" = Kueue's default).
type Preemption struct {
	ReclaimWithinCohort        string // Never
	WithinClusterQueue         string // Never
	BorrowWithinCohortPolicy   string // Never
	BorrowMaxPriorityThreshold *int64
}

// FlavorFungibility says how Kueue moves on to the next flavor.
type FlavorFungibility struct {
	WhenCanBorrow  string // MayStopSearch
	WhenCanPreempt string // TryNextFlavor
	Preference     string // optional
}

// ClusterQueue is a Kueue ClusterQueue: a pool of quota per flavor, shared
// by the namespaces its selector matches.
type ClusterQueue struct {
	Name              string
	Cohort            string
	NamespaceSelector *LabelSelector
	ResourceGroups    []ResourceGroup
	QueueingStrategy  string
	Preemption        Preemption
	FlavorFungibility FlavorFungibility
	// AdmissionChecks maps an AdmissionCheck name to the flavors it applies
	// to (empty: all flavors). Order means nothing to Kueue, hence a map.
	AdmissionChecks   map[string][]string
	StopPolicy        string
	FairSharingWeight string
}

// Defaulted fills Kueue's defaults, so desired and observed compare equal
// when the configuration leaves a field to Kueue.
func (q ClusterQueue) Defaulted() ClusterQueue {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&q.QueueingStrategy, "BestEffortFIFO")
	def(&q.Preemption.ReclaimWithinCohort, "Never")
	def(&q.Preemption.WithinClusterQueue, "Never")
	def(&q.Preemption.BorrowWithinCohortPolicy, "Never")
	def(&q.FlavorFungibility.WhenCanBorrow, "MayStopSearch")
	def(&q.FlavorFungibility.WhenCanPreempt, "TryNextFlavor")
	def(&q.StopPolicy, "None")
	return q
}

// Validate mirrors Kueue's CRD rules and ClusterQueue webhook.
func (q ClusterQueue) Validate() FieldErrors {
	var errs FieldErrors
	d := q.Defaulted()
	validateObjectName(&errs, Path{"name"}, "ClusterQueue", q.Name)
	if q.Cohort != "" {
		validateObjectName(&errs, Path{"cohort"}, "Cohort", q.Cohort)
	}
	validateResourceGroups(&errs, Path{"resource_groups"}, q.ResourceGroups, q.Cohort != "")
	oneOf(&errs, Path{"queueing_strategy"}, d.QueueingStrategy, QueueingStrategies)
	oneOf(&errs, Path{"preemption", "reclaim_within_cohort"}, d.Preemption.ReclaimWithinCohort, ReclaimPolicies)
	oneOf(&errs, Path{"preemption", "within_cluster_queue"}, d.Preemption.WithinClusterQueue, WithinQueuePolicies)
	oneOf(&errs, Path{"preemption", "borrow_within_cohort", "policy"}, d.Preemption.BorrowWithinCohortPolicy, BorrowWithinPolicies)
	if d.Preemption.ReclaimWithinCohort == "Never" && d.Preemption.BorrowWithinCohortPolicy != "Never" {
		errs.add(Path{"preemption", "borrow_within_cohort", "policy"}, "Borrowing Preemption Needs Reclaim",
			"borrow_within_cohort.policy = %q lets this queue preempt in the cohort while borrowing, which Kueue only allows when "+
				"reclaim_within_cohort is not Never; set reclaim_within_cohort to LowerPriority or Any, or the policy to Never.", d.Preemption.BorrowWithinCohortPolicy)
	}
	if q.Preemption.BorrowMaxPriorityThreshold != nil && d.Preemption.BorrowWithinCohortPolicy == "Never" {
		errs.add(Path{"preemption", "borrow_within_cohort", "max_priority_threshold"}, "Threshold Without Borrowing Preemption",
			"max_priority_threshold only applies when borrow_within_cohort.policy is LowerPriority; set the policy or remove the threshold.")
	}
	oneOf(&errs, Path{"flavor_fungibility", "when_can_borrow"}, d.FlavorFungibility.WhenCanBorrow, FungibilityPolicies)
	oneOf(&errs, Path{"flavor_fungibility", "when_can_preempt"}, d.FlavorFungibility.WhenCanPreempt, FungibilityPolicies)
	if p := q.FlavorFungibility.Preference; p != "" {
		oneOf(&errs, Path{"flavor_fungibility", "preference"}, p, FungibilityPreferences)
		if d.FlavorFungibility.WhenCanBorrow != "TryNextFlavor" || d.FlavorFungibility.WhenCanPreempt != "TryNextFlavor" {
			errs.add(Path{"flavor_fungibility", "preference"}, "Preference Needs TryNextFlavor",
				"preference = %q only applies when both when_can_borrow and when_can_preempt are TryNextFlavor (they are %s and %s); set both, or remove preference.",
				p, d.FlavorFungibility.WhenCanBorrow, d.FlavorFungibility.WhenCanPreempt)
		}
	}
	validateStopPolicy(&errs, Path{"stop_policy"}, q.StopPolicy)
	validateFairSharingWeight(&errs, Path{"fair_sharing_weight"}, q.FairSharingWeight)
	validateSelector(&errs, Path{"namespace_selector"}, q.NamespaceSelector)
	validateAdmissionChecks(&errs, Path{"admission_checks"}, q.AdmissionChecks, q.ResourceGroups)
	return errs
}

func oneOf(errs *FieldErrors, path Path, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		errs.add(path, "Invalid Value", "%q is not one of %s.", v, strings.Join(allowed, ", "))
	}
}

func validateSelector(errs *FieldErrors, path Path, s *LabelSelector) {
	if s == nil {
		return
	}
	validateLabels(errs, append(slices.Clone(path), "match_labels"), s.MatchLabels)
	if len(s.MatchExpressions) > maxSelectorRequirements {
		tooMany(errs, append(slices.Clone(path), "match_expressions"), len(s.MatchExpressions), maxSelectorRequirements)
	}
	for i, r := range s.MatchExpressions {
		p := append(slices.Clone(path), "match_expressions", i)
		if problems := validation.IsQualifiedName(r.Key); len(problems) > 0 {
			errs.add(append(p, "key"), "Invalid Label Key", "label key %q is not valid: %s.", r.Key, strings.Join(problems, "; "))
		}
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				errs.add(append(p, "values"), "Values Required", "operator %s needs at least one value.", r.Operator)
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) > 0 {
				errs.add(append(p, "values"), "Values Not Allowed", "operator %s matches on the key alone; remove values.", r.Operator)
			}
		default:
			errs.add(append(p, "operator"), "Invalid Operator", "operator %q is not one of %s.", r.Operator, strings.Join(SelectorOperators, ", "))
		}
	}
}

func validateAdmissionChecks(errs *FieldErrors, path Path, checks map[string][]string, groups []ResourceGroup) {
	tooMany(errs, path, len(checks), maxAdmissionChecks)
	flavors := map[string]bool{}
	for _, g := range groups {
		for _, f := range g.Flavors {
			flavors[f.Name] = true
		}
	}
	names := make([]string, 0, len(checks))
	for n := range checks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		validateObjectName(errs, append(slices.Clone(path), Key(n)), "AdmissionCheck", n)
		for i, f := range checks[n] {
			if !flavors[f] {
				errs.add(append(slices.Clone(path), Key(n), "on_flavors", i), "Unknown Flavor",
					"admission check %q applies to flavor %q, which none of this queue's resource_groups lists; %s", n, f, flavorHint(flavors))
			}
		}
	}
}

func flavorHint(flavors map[string]bool) string {
	if len(flavors) == 0 {
		return "add the flavor to resource_groups first."
	}
	names := make([]string, 0, len(flavors))
	for f := range flavors {
		names = append(names, f)
	}
	sort.Strings(names)
	return fmt.Sprintf("use one of %s.", strings.Join(names, ", "))
}
