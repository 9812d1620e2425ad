package spec

import (
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// KueueConfiguration is the part of Kueue's own configuration
// (config.kueue.x-k8s.io/v1beta2 Configuration) a training platform decides:
// which kinds Kueue manages, what happens to a gang whose pods cannot all
// start, whether jobs without a queue bypass quota, fair sharing, resource
// accounting, feature gates and MultiKueue. Durations are Go durations
// ("30m"); "" is Kueue's default.
type KueueConfiguration struct {
	Namespace                    string // Kueue's namespace
	Frameworks                   []string
	ExternalFrameworks           []string // Kind.version.group
	ManageJobsWithoutQueueName   bool
	ManagedJobsNamespaceSelector *LabelSelector
	WaitForPodsReady             WaitForPodsReady
	FairSharing                  *FairSharingSettings
	AdmissionFairSharing         *AdmissionFairSharingSettings
	ExcludeResourcePrefixes      []string
	Transformations              []ResourceTransformation
	FeatureGates                 map[string]bool
	MultiKueue                   *MultiKueueSettings
}

// WaitForPodsReady is Kueue's all-or-nothing guard for gangs: an admitted
// workload whose pods are not all ready within Timeout is evicted and
// requeued, releasing its quota.
type WaitForPodsReady struct {
	Enabled         bool
	Timeout         string
	RecoveryTimeout string // "" = Timeout (Kueue's default)
	BlockAdmission  bool
	// RequeuingTimestamp is Eviction or Creation; "" = Eviction.
	RequeuingTimestamp string
	BackoffLimitCount  *int64 // nil = requeued without limit
	BackoffBaseSeconds *int64 // nil = 60
	BackoffMaxSeconds  *int64 // nil = 3600
}

// FairSharingSettings turns on fair sharing between the ClusterQueues of a
// cohort, with the preemption strategies Kueue applies.
type FairSharingSettings struct {
	PreemptionStrategies []string
}

// AdmissionFairSharingSettings orders admission within a ClusterQueue by the
// LocalQueues' past usage.
type AdmissionFairSharingSettings struct {
	UsageHalfLifeTime     string
	UsageSamplingInterval string
	ResourceWeights       map[string]float64
}

// ResourceTransformation maps a resource pods request to the resources
// quota is counted in (Kueue's resources.transformations).
type ResourceTransformation struct {
	Input      string
	Strategy   string // Retain or Replace; "" = Retain
	MultiplyBy string // an optional resource whose request multiplies the outputs
	Outputs    map[string]string
}

// MultiKueueSettings are a MultiKueue manager's settings.
type MultiKueueSettings struct {
	GCInterval        string
	Origin            string
	WorkerLostTimeout string
	DispatcherName    string
}

// The values KueueConfiguration's fields take.
var (
	RequeuingTimestamps      = []string{"Eviction", "Creation"}
	TransformationStrategies = []string{"Retain", "Replace"}
	// FairSharingStrategySets are the preemption strategy lists Kueue
	// accepts (pkg/config/validation.go validStrategySets).
	FairSharingStrategySets = [][]string{
		{"LessThanOrEqualToFinalShare"}, {"LessThanInitialShare"}, {"LessThanOrEqualToFinalShare", "LessThanInitialShare"},
	}
	MultiKueueDispatchers = []string{"kueue.x-k8s.io/multikueue-dispatcher-all-at-once", "kueue.x-k8s.io/multikueue-dispatcher-incremental"}
)

// DefaultKueueConfiguration is the configuration a training platform starts
// from. Each choice, and why:
//   - Kueue manages batch/v1 Jobs and JobSets: single jobs and gangs.
//   - waitForPodsReady is on with Kueue v0.19's timeout (30 min, enough for
//     GPU nodes to scale up from zero and pull an image), requeuing by
//     eviction time, without blocking admission: a gang whose pods cannot
//     all start is evicted and requeued instead of holding its quota half
//     placed, and other workloads keep being admitted meanwhile.
//   - Jobs without a queue name in the team namespaces (those labelled
//     mlplatform.dev/team by mlplatform_team_namespace) are managed too, so
//     they are held instead of bypassing quota; jobs elsewhere (system
//     namespaces, other tools) are left alone.
func DefaultKueueConfiguration() KueueConfiguration {
	return KueueConfiguration{
		Namespace:                  "kueue-system",
		Frameworks:                 []string{"batch/job", "jobset.x-k8s.io/jobset"},
		ManageJobsWithoutQueueName: true,
		ManagedJobsNamespaceSelector: &LabelSelector{MatchExpressions: []SelectorRequirement{
			{Key: TeamLabel, Operator: "Exists"},
		}},
		WaitForPodsReady: WaitForPodsReady{Enabled: true, Timeout: "30m"},
	}
}

// Validate checks what Kueue's own validation (sigs.k8s.io/kueue
// pkg/config Validate, which internal/kueue also runs) refuses, in the
// configuration's words, plus what makes a setting meaningless.
func (c KueueConfiguration) Validate() FieldErrors {
	var errs FieldErrors
	validateObjectName(&errs, Path{"namespace"}, "Namespace", c.Namespace)
	validateFrameworks(&errs, c)
	validateSelector(&errs, Path{"managed_jobs_namespace_selector"}, c.ManagedJobsNamespaceSelector)
	if !c.ManageJobsWithoutQueueName && c.ManagedJobsNamespaceSelector != nil && !slices.Contains(c.Frameworks, "pod") &&
		!slices.Contains(c.Frameworks, "deployment") && !slices.Contains(c.Frameworks, "statefulset") {
		errs.add(Path{"managed_jobs_namespace_selector"}, "Selector Has No Effect",
			"managed_jobs_namespace_selector only decides which namespaces' jobs without a queue name Kueue manages (and, for the pod, "+
				"deployment and statefulset integrations, which namespaces Kueue looks at); with %v and none of "+
				"those integrations it does nothing. Set %v, or remove the selector.", set("manage_jobs_without_queue_name", false), set("manage_jobs_without_queue_name", true))
	}
	c.WaitForPodsReady.validate(&errs, Path{"wait_for_pods_ready"})
	if fs := c.FairSharing; fs != nil {
		if !slices.ContainsFunc(FairSharingStrategySets, func(s []string) bool { return slices.Equal(s, fs.PreemptionStrategies) }) {
			sets := make([]string, len(FairSharingStrategySets))
			for i, s := range FairSharingStrategySets {
				sets[i] = "[" + strings.Join(s, ", ") + "]"
			}
			errs.add(Path{"fair_sharing", "preemption_strategies"}, "Invalid Preemption Strategies",
				"preemption_strategies [%s] is not one Kueue accepts: use one of %s (in that order).",
				strings.Join(fs.PreemptionStrategies, ", "), strings.Join(sets, ", "))
		}
	}
	if afs := c.AdmissionFairSharing; afs != nil {
		p := Path{"admission_fair_sharing"}
		validateDuration(&errs, at(p, "usage_half_life_time"), afs.UsageHalfLifeTime, true, false)
		validateDuration(&errs, at(p, "usage_sampling_interval"), afs.UsageSamplingInterval, true, true)
		for _, r := range slices.Sorted(maps.Keys(afs.ResourceWeights)) {
			if afs.ResourceWeights[r] < 0 {
				errs.add(at(at(p, "resource_weights"), Key(r)), "Negative Weight",
					"the weight of %s is %v; a weight is 0 (the resource's usage is ignored) or more.", r, afs.ResourceWeights[r])
			}
		}
	}
	validateTransformations(&errs, c.Transformations)
	if mk := c.MultiKueue; mk != nil {
		p := Path{"multikueue"}
		validateDuration(&errs, at(p, "gc_interval"), mk.GCInterval, false, false)
		validateDuration(&errs, at(p, "worker_lost_timeout"), mk.WorkerLostTimeout, false, false)
		if mk.Origin != "" {
			if problem := LabelValueProblem(mk.Origin); problem != "" {
				errs.add(at(p, "origin"), "Invalid Origin", "origin %q becomes a label value on the workers' objects, so %s.", mk.Origin, problem)
			}
		}
	}
	return errs
}

func validateFrameworks(errs *FieldErrors, c KueueConfiguration) {
	if len(c.Frameworks) == 0 && len(c.ExternalFrameworks) == 0 {
		errs.add(Path{"frameworks"}, "No Framework",
			"Kueue must manage at least one kind of job; list e.g. %v.", set("frameworks", []any{"batch/job", "jobset.x-k8s.io/jobset"}))
	}
	seen := map[string]bool{}
	names := KueueFrameworkNames()
	for i, f := range c.Frameworks {
		p := Path{"frameworks", i}
		fw, ok := LookupKueueFramework(f)
		switch {
		case !ok:
			errs.add(p, "Unknown Framework", "%q is not one of Kueue's integrations (%s)%s. A kind of another controller goes in external_frameworks as Kind.version.group.",
				f, strings.Join(names, ", "), didYouMean(f, names))
		case seen[fw.Group+"/"+fw.Kind]:
			errs.add(p, "Duplicate Framework", "%s is listed twice; list each once.", f)
		default:
			seen[fw.Group+"/"+fw.Kind] = true
		}
	}
	for i, f := range c.ExternalFrameworks {
		p := Path{"external_frameworks", i}
		kind, version, group, ok := parseKindVersionGroup(f)
		switch {
		case !ok:
			errs.add(p, "Invalid External Framework", "%q must be Kind.version.group, e.g. \"MyJob.v1.example.com\".", f)
		case seen[group+"/"+kind]:
			errs.add(p, "Duplicate Framework", "%s (%s) is already managed; list each kind once.", f, version)
		default:
			seen[group+"/"+kind] = true
		}
	}
}

// parseKindVersionGroup splits Kind.version.group (the group holding dots),
// as Kueue's schema.ParseKindArg does for external frameworks.
func parseKindVersionGroup(s string) (kind, version, group string, ok bool) {
	parts := strings.SplitN(s, ".", 3)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", false
	}
	return parts[0], parts[1], parts[2], true
}

func (w WaitForPodsReady) validate(errs *FieldErrors, p Path) {
	if !w.Enabled {
		if w.Timeout != "" || w.RecoveryTimeout != "" || w.BlockAdmission || w.RequeuingTimestamp != "" ||
			w.BackoffLimitCount != nil || w.BackoffBaseSeconds != nil || w.BackoffMaxSeconds != nil {
			errs.add(at(p, "enabled"), "Settings Without Effect",
				"wait_for_pods_ready is disabled, so its other settings do nothing; remove them, or set %v.", set("enabled", true))
		}
		return
	}
	validateDuration(errs, at(p, "timeout"), w.Timeout, true, true)
	validateDuration(errs, at(p, "recovery_timeout"), w.RecoveryTimeout, false, false)
	if w.RequeuingTimestamp != "" && !slices.Contains(RequeuingTimestamps, w.RequeuingTimestamp) {
		errs.add(at(p, "requeuing_timestamp"), "Invalid Requeuing Timestamp", "requeuing_timestamp %q is not one of %s%s.",
			w.RequeuingTimestamp, strings.Join(RequeuingTimestamps, ", "), didYouMean(w.RequeuingTimestamp, RequeuingTimestamps))
	}
	for _, n := range []struct {
		name string
		v    *int64
	}{{"backoff_limit_count", w.BackoffLimitCount}, {"backoff_base_seconds", w.BackoffBaseSeconds}, {"backoff_max_seconds", w.BackoffMaxSeconds}} {
		if n.v != nil && (*n.v < 0 || *n.v > 1<<31-1) {
			errs.add(at(p, n.name), "Out Of Range", "%s is %d; it must be 0 or more (and fit in 32 bits).", n.name, *n.v)
		}
	}
	if b, m := w.BackoffBaseSeconds, w.BackoffMaxSeconds; b != nil && m != nil && *b > *m && *m >= 0 {
		errs.add(at(p, "backoff_max_seconds"), "Backoff Maximum Below Base",
			"backoff_max_seconds (%d) is below backoff_base_seconds (%d), so every requeue waits the maximum; raise the maximum or lower the base.", *m, *b)
	}
}

// validateDuration checks a Go duration ("30m", "1h30m"); required and
// positive say whether "" and 0 are refused.
func validateDuration(errs *FieldErrors, p Path, s string, required, positive bool) {
	if s == "" {
		if required {
			errs.add(p, "Missing Duration", "%s needs a duration such as \"10m\" or \"1h\".", p[len(p)-1])
		}
		return
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		errs.add(p, "Invalid Duration", "%q is not a duration; write it as a number with a unit: \"90s\", \"10m\", \"1h30m\".", s)
	case d < 0:
		errs.add(p, "Negative Duration", "%s is negative; a duration here must be 0 or more.", s)
	case d == 0 && positive:
		errs.add(p, "Zero Duration", "%s is zero; it must be more than 0, e.g. \"10m\".", s)
	}
}

func validateTransformations(errs *FieldErrors, ts []ResourceTransformation) {
	inputs := map[string]bool{}
	for i, t := range ts {
		p := Path{"resources", "transformations", i}
		if problem := QualifiedNameProblem(t.Input); t.Input == "" || problem != "" {
			errs.add(at(p, "input"), "Invalid Resource Name", "input %q must be a resource name such as \"nvidia.com/mig-1g.5gb\".", t.Input)
		} else if inputs[t.Input] {
			errs.add(at(p, "input"), "Duplicate Transformation", "%s already has a transformation; give each input one.", t.Input)
		}
		inputs[t.Input] = true
		if t.Strategy != "" && !slices.Contains(TransformationStrategies, t.Strategy) {
			errs.add(at(p, "strategy"), "Invalid Strategy", "strategy %q is not one of %s%s.", t.Strategy,
				strings.Join(TransformationStrategies, ", "), didYouMean(t.Strategy, TransformationStrategies))
		}
		for _, r := range slices.Sorted(maps.Keys(t.Outputs)) {
			if _, err := resource.ParseQuantity(t.Outputs[r]); err != nil {
				errs.add(at(at(p, "outputs"), Key(r)), "Invalid Quantity", "the output of %s, %q, is not a Kubernetes quantity, e.g. \"5Gi\" or \"4\".", r, t.Outputs[r])
			}
		}
	}
}
