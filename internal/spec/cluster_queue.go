package spec

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Enumerations of ClusterQueue fields, with Kueue's defaults first
// (apis/kueue/v1beta2/clusterqueue_types.go, kubebuilder:validation:Enum and
// kubebuilder:default markers).
var (
	QueueingStrategies     = []string{"BestEffortFIFO", "StrictFIFO"}
	ReclaimPolicies        = []string{"Never", "LowerPriority", "Any"}
	WithinQueuePolicies    = []string{"Never", "LowerPriority", "LowerOrNewerEqualPriority"}
	BorrowWithinPolicies   = []string{"Never", "LowerPriority"}
	FungibilityPolicies    = []string{"MayStopSearch", "TryNextFlavor"}
	FungibilityPreferences = []string{"BorrowingOverPreemption", "PreemptionOverBorrowing"}
	// SelectorOperators: k8s.io/apimachinery/pkg/apis/meta/v1 LabelSelectorOperator.
	SelectorOperators = []string{"In", "NotIn", "Exists", "DoesNotExist"}
)

// Limits on a ClusterQueue's admission checks
// (apis/kueue/v1beta2/clusterqueue_types.go AdmissionChecksStrategy:
// admissionChecks MaxItems=64; AdmissionCheckStrategyRule: onFlavors
// MaxItems=64, listType=set).
const (
	maxAdmissionChecks = 64
	maxCheckFlavors    = 64
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

// Validate mirrors Kueue's CRD rules and ClusterQueue webhook
// (pkg/webhooks/clusterqueue_webhook.go ValidateClusterQueue). Each mistake
// is reported once: a rule that combines fields is checked only when each
// of them is valid on its own.
func (q ClusterQueue) Validate() FieldErrors {
	var errs FieldErrors
	d := q.Defaulted()
	validateObjectName(&errs, Path{"name"}, "ClusterQueue", q.Name)
	if q.Cohort != "" { // "" is refused by the schema: the spec cannot tell it from unset
		checkObjectName(&errs, Path{"cohort"}, "Cohort", q.Cohort)
	}
	validateResourceGroups(&errs, Path{"resource_groups"}, q.ResourceGroups, q.Cohort != "")
	oneOf(&errs, Path{"queueing_strategy"}, "Queueing Strategy", d.QueueingStrategy, QueueingStrategies, "BestEffortFIFO")

	// Preemption: the enumerations, and the CRD's CEL rule
	// "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"
	// (also in the webhook's validatePreemption).
	reclaimOK := oneOf(&errs, Path{"preemption", "reclaim_within_cohort"}, "Preemption Policy", d.Preemption.ReclaimWithinCohort, ReclaimPolicies, "Never")
	oneOf(&errs, Path{"preemption", "within_cluster_queue"}, "Preemption Policy", d.Preemption.WithinClusterQueue, WithinQueuePolicies, "Never")
	policyOK := oneOf(&errs, Path{"preemption", "borrow_within_cohort", "policy"}, "Preemption Policy", d.Preemption.BorrowWithinCohortPolicy, BorrowWithinPolicies, "Never")
	if reclaimOK && policyOK && d.Preemption.ReclaimWithinCohort == "Never" && d.Preemption.BorrowWithinCohortPolicy != "Never" {
		errs.add(Path{"preemption", "borrow_within_cohort", "policy"}, "Borrowing Preemption Needs Reclaim",
			"%v lets this queue preempt in the cohort while borrowing, which Kueue only allows when "+
				"reclaim_within_cohort is not Never; set reclaim_within_cohort to LowerPriority or Any, or the policy to Never.",
			set("borrow_within_cohort.policy", d.Preemption.BorrowWithinCohortPolicy))
	}
	if t := q.Preemption.BorrowMaxPriorityThreshold; t != nil {
		switch {
		case *t < math.MinInt32 || *t > math.MaxInt32:
			// BorrowWithinCohort.maxPriorityThreshold is an int32, like workload priorities.
			errs.add(Path{"preemption", "borrow_within_cohort", "max_priority_threshold"}, "Threshold Out Of Range",
				"max_priority_threshold %d is outside what Kueue stores (a 32-bit priority, %d to %d); use a WorkloadPriorityClass value, e.g. 1000.",
				*t, math.MinInt32, math.MaxInt32)
		case policyOK && d.Preemption.BorrowWithinCohortPolicy == "Never":
			// The provider's rule: Kueue ignores the threshold when borrowing
			// never preempts, so setting it is a mistake.
			errs.add(Path{"preemption", "borrow_within_cohort", "max_priority_threshold"}, "Threshold Without Borrowing Preemption",
				"max_priority_threshold only applies when borrow_within_cohort.policy is LowerPriority (it limits which workloads a borrowing workload may preempt); "+
					"set %v or remove the threshold.", set("policy", "LowerPriority"))
		}
	}

	// Flavor fungibility: the enumerations, and the CRD's CEL rule "preference
	// can only be set when both whenCanBorrow and whenCanPreempt are
	// TryNextFlavor" (also in the webhook's validateFlavorFungibility).
	borrowOK := oneOf(&errs, Path{"flavor_fungibility", "when_can_borrow"}, "Flavor Fungibility Policy", d.FlavorFungibility.WhenCanBorrow, FungibilityPolicies, "MayStopSearch")
	preemptOK := oneOf(&errs, Path{"flavor_fungibility", "when_can_preempt"}, "Flavor Fungibility Policy", d.FlavorFungibility.WhenCanPreempt, FungibilityPolicies, "TryNextFlavor")
	if p := q.FlavorFungibility.Preference; p != "" {
		prefOK := oneOf(&errs, Path{"flavor_fungibility", "preference"}, "Flavor Fungibility Preference", p, FungibilityPreferences, "")
		if prefOK && borrowOK && preemptOK && (d.FlavorFungibility.WhenCanBorrow != "TryNextFlavor" || d.FlavorFungibility.WhenCanPreempt != "TryNextFlavor") {
			errs.add(Path{"flavor_fungibility", "preference"}, "Preference Needs TryNextFlavor",
				"%v only applies when both when_can_borrow and when_can_preempt are TryNextFlavor (they are %s and %s); set both, or remove preference.",
				set("preference", p), d.FlavorFungibility.WhenCanBorrow, d.FlavorFungibility.WhenCanPreempt)
		}
	}
	validateStopPolicy(&errs, Path{"stop_policy"}, q.StopPolicy)
	validateFairSharingWeight(&errs, Path{"fair_sharing_weight"}, q.FairSharingWeight)
	validateSelector(&errs, Path{"namespace_selector"}, q.NamespaceSelector)
	validateAdmissionChecks(&errs, Path{"admission_checks"}, q.AdmissionChecks, q.ResourceGroups)
	return errs
}

// oneOf reports v when it is not one of allowed, and says whether it is.
// def is Kueue's default ("" for none), which the message offers.
func oneOf(errs *FieldErrors, path Path, what, v string, allowed []string, def string) bool {
	if slices.Contains(allowed, v) {
		return true
	}
	remedy := "write one of them exactly"
	if def != "" {
		remedy = fmt.Sprintf("write one of them exactly, or leave %s out for Kueue's default, %s", path[len(path)-1], def)
	}
	errs.add(path, "Invalid "+what, "%s %q is not one of %s%s; %s.", path[len(path)-1], v, strings.Join(allowed, ", "), didYouMean(v, allowed), remedy)
	return false
}

// validateSelector checks a namespace selector as the webhook does
// (k8s.io/apimachinery/pkg/apis/meta/v1/validation ValidateLabelSelector:
// match_labels are labels; each expression's key is a label key, its
// operator one of SelectorOperators, with values for In and NotIn only, and
// the values are label values).
func validateSelector(errs *FieldErrors, path Path, s *LabelSelector) {
	if s == nil {
		return
	}
	validateLabels(errs, at(path, "match_labels"), s.MatchLabels)
	for i, r := range s.MatchExpressions {
		p := at(at(path, "match_expressions"), i)
		if r.Key == "" {
			errs.add(at(p, "key"), "Missing Label Key", "a match expression needs the label key it tests, e.g. \"mlplatform.dev/team\".")
		} else if problem := QualifiedNameProblem(r.Key); problem != "" {
			errs.add(at(p, "key"), "Invalid Label Key", "label key %q is not valid: %s. %s", r.Key, problem, keyAdvice)
		}
		switch r.Operator {
		case "In", "NotIn":
			if len(r.Values) == 0 {
				errs.add(at(p, "values"), "Values Required", "operator %s needs at least one value, e.g. %v.", r.Operator, set("values", []any{"vision"}))
			}
			for j, v := range r.Values {
				if problem := LabelValueProblem(v); problem != "" {
					errs.add(at(at(p, "values"), j), "Invalid Label Value", "%q cannot be a label value: %s. %s", v, problem, valueAdvice)
				}
			}
		case "Exists", "DoesNotExist":
			if len(r.Values) > 0 {
				errs.add(at(p, "values"), "Values Not Allowed", "operator %s matches on the key alone; remove values, or use In or NotIn to match values.", r.Operator)
			}
		default:
			errs.add(at(p, "operator"), "Invalid Operator", "operator %q is not one of %s%s.", r.Operator, strings.Join(SelectorOperators, ", "), didYouMean(r.Operator, SelectorOperators))
		}
	}
}

// validateAdmissionChecks checks the admission checks by name: at most 64
// (the CRD's MaxItems), each the name of an AdmissionCheck object (a DNS
// subdomain; the CRD only limits AdmissionCheckReference to 316 characters,
// but no longer name can exist), each on at most 64 distinct flavors (MaxItems,
// listType=set). The provider adds: each of on_flavors is a flavor of this
// queue, since a check on any other flavor never runs.
func validateAdmissionChecks(errs *FieldErrors, path Path, checks map[string][]string, groups []ResourceGroup) {
	tooMany(errs, path, len(checks), maxAdmissionChecks, "admission checks per ClusterQueue")
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
		p := at(path, Key(n))
		if n == "" {
			errs.add(p, "Missing Admission Check Name", "admission_checks has an entry with an empty name; use the name of an AdmissionCheck, e.g. mlplatform_provisioning_admission_check.dws.name.")
			continue
		}
		checkObjectName(errs, p, "AdmissionCheck", n)
		on := checks[n]
		tooMany(errs, at(p, "on_flavors"), len(on), maxCheckFlavors, "flavors per admission check")
		seen := map[string]bool{}
		for i, f := range on {
			switch {
			case seen[f]:
				errs.add(at(at(p, "on_flavors"), i), "Duplicate Flavor", "flavor %q is listed twice in on_flavors; remove the second one.", f)
			case !flavors[f]:
				errs.add(at(at(p, "on_flavors"), i), "Unknown Flavor",
					"admission check %q applies to flavor %q, which none of this queue's resource_groups lists; %s", n, f, flavorHint(flavors))
			}
			seen[f] = true
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
