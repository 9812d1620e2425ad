package kueue

import (
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// WorkloadPriorityClass builds the apply configuration for w. Only the fields
// the platform owns are set, so server-side apply leaves others' fields alone.
// Validate w first: Value must fit an int32.
func WorkloadPriorityClass(w spec.WorkloadPriorityClass) *kueueac.WorkloadPriorityClassApplyConfiguration {
	ac := kueueac.WorkloadPriorityClass(w.Name).WithValue(int32(w.Value)) //nolint:gosec // range checked by spec.Validate
	if w.Description != "" {
		ac.WithDescription(w.Description)
	}
	return ac
}

// WorkloadPriorityClassSpec reads the platform's view of obj.
func WorkloadPriorityClassSpec(obj *kueuev1beta2.WorkloadPriorityClass) spec.WorkloadPriorityClass {
	return spec.WorkloadPriorityClass{Name: obj.Name, Value: int64(obj.Value), Description: obj.Description}
}
