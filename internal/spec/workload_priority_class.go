package spec

import (
	"math"
	"unicode/utf8"
)

// MaxPriorityDescription is Kueue's limit on WorkloadPriorityClass.description.
const MaxPriorityDescription = 2048

// WorkloadPriorityClass is a Kueue WorkloadPriorityClass (kueue.x-k8s.io/v1beta2):
// the priority a workload gets when its job carries the class's name in the
// kueue.x-k8s.io/priority-class label.
type WorkloadPriorityClass struct {
	Name        string
	Value       int64 // int32 on the server; wider here so out-of-range input is reported, not wrapped
	Description string
}

// Validate reports what the Kubernetes API server would reject, before
// anything is sent to it.
func (w WorkloadPriorityClass) Validate() FieldErrors {
	var errs FieldErrors
	validateObjectName(&errs, Path{"name"}, "WorkloadPriorityClass", w.Name)
	if w.Value < math.MinInt32 || w.Value > math.MaxInt32 {
		errs.add(Path{"value"}, "Priority Out Of Range",
			"value %d does not fit Kueue's 32-bit priority; use a number between %d and %d (Kubernetes reserves values above 1000000000 for system classes, so stay below that).",
			w.Value, math.MinInt32, math.MaxInt32)
	}
	if n := utf8.RuneCountInString(w.Description); n > MaxPriorityDescription {
		errs.add(Path{"description"}, "Description Too Long",
			"description has %d characters; Kueue accepts at most %d. Shorten it.", n, MaxPriorityDescription)
	}
	return errs
}
