package kueue

import (
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// WorkloadPriorityClass builds the apply configuration for w. Every field the
// resource manages is sent, empty ones included: server-side apply only
// removes a value someone else set (kubectl edit) when the platform owns the
// field, so omitting an empty description would leave an out-of-band one in
// place forever. Validate w first: Value must fit an int32.
func WorkloadPriorityClass(w spec.WorkloadPriorityClass) *kueueac.WorkloadPriorityClassApplyConfiguration {
	return kueueac.WorkloadPriorityClass(w.Name).
		WithValue(int32(w.Value)). //nolint:gosec // range checked by spec.Validate
		WithDescription(w.Description)
}

// WorkloadPriorityClassSpec reads the platform's view of obj.
func WorkloadPriorityClassSpec(obj *kueuev1beta2.WorkloadPriorityClass) spec.WorkloadPriorityClass {
	return spec.WorkloadPriorityClass{Name: obj.Name, Value: int64(obj.Value), Description: obj.Description}
}
