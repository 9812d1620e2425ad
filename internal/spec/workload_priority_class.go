package spec

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Kueue's rules for a WorkloadPriorityClass (kueue.x-k8s.io/v1beta2,
// sigs.k8s.io/kueue apis/kueue/v1beta2/workloadpriorityclass_types.go and
// its CRD): value is an int32 ("format: int32"), description has
// "+kubebuilder:validation:MaxLength=2048" (characters: the API server's
// OpenAPI maxLength counts runes). Neither is immutable (no
// x-kubernetes-validations; "Changing the value of workloadPriorityClass
// doesn't affect the priority of workloads that were already created"); the
// name is, as metadata.name always is (the resource replaces on a change).
const (
	// MaxPriorityDescription is Kueue's limit on WorkloadPriorityClass.description.
	MaxPriorityDescription = 2048
	// maxPriorityClassNameForJobs is the longest name a job can select: jobs
	// name their class in the label kueue.x-k8s.io/priority-class, and a
	// label value is at most 63 characters
	// (k8s.io/apimachinery/pkg/util/validation LabelValueMaxLength).
	maxPriorityClassNameForJobs = labelValueMaxLength
)

// WorkloadPriorityClass is a Kueue WorkloadPriorityClass (kueue.x-k8s.io/v1beta2):
// the priority a workload gets when its job carries the class's name in the
// kueue.x-k8s.io/priority-class label.
type WorkloadPriorityClass struct {
	Name        string
	Value       int64 // int32 on the server; wider here so out-of-range input is reported, not wrapped
	Description string
}

// Validate reports what the Kubernetes API server would reject, and a name
// no job could use, before anything is sent to it.
func (w WorkloadPriorityClass) Validate() FieldErrors {
	var errs FieldErrors
	// A custom resource's name is a DNS-1123 subdomain (apiextensions-apiserver
	// customresource validator: NameIsDNSSubdomain).
	switch p := DNSSubdomainProblem(w.Name); {
	case w.Name == "":
		errs.add(Path{"name"}, "Missing Name", "a WorkloadPriorityClass needs a name, e.g. \"high\"; jobs choose it with the label kueue.x-k8s.io/priority-class.")
	case p != "":
		errs.add(Path{"name"}, "Invalid Name",
			"%q is not a valid WorkloadPriorityClass name: %s. Use lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, e.g. %q.",
			w.Name, p, exampleKubeName(w.Name, true, "high"))
	case len(w.Name) > maxPriorityClassNameForJobs:
		errs.add(Path{"name"}, "Name Too Long For Jobs",
			"%q is %d characters long. Jobs choose their WorkloadPriorityClass by name in the label kueue.x-k8s.io/priority-class, and a label "+
				"value is at most %d characters, so no job could use this class: shorten the name to %d characters or fewer.",
			w.Name, len(w.Name), maxPriorityClassNameForJobs, maxPriorityClassNameForJobs)
	}
	if w.Value < math.MinInt32 || w.Value > math.MaxInt32 {
		errs.add(Path{"value"}, "Priority Out Of Range",
			"value %d does not fit Kueue's 32-bit priority: use a number between %d and %d (a workload of higher value is admitted "+
				"first and may preempt lower ones).",
			w.Value, math.MinInt32, math.MaxInt32)
	}
	if n := utf8.RuneCountInString(w.Description); n > MaxPriorityDescription {
		errs.add(Path{"description"}, "Description Too Long",
			"description has %d characters; Kueue accepts at most %d: shorten it by %s.", n, MaxPriorityDescription, plural(n-MaxPriorityDescription, "character"))
	}
	return errs
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
