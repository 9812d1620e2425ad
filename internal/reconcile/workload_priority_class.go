package reconcile

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// WorkloadPriorityClasses reconciles Kueue WorkloadPriorityClasses.
type WorkloadPriorityClasses = Object[spec.WorkloadPriorityClass, *kueuev1beta2.WorkloadPriorityClass, *kueueac.WorkloadPriorityClassApplyConfiguration]

var _ Reconciler[Ref, spec.WorkloadPriorityClass, spec.WorkloadPriorityClass] = WorkloadPriorityClasses{}

// NewWorkloadPriorityClasses reconciles through c.
func NewWorkloadPriorityClasses(c *kube.Client) WorkloadPriorityClasses {
	return WorkloadPriorityClasses{
		Kind: "WorkloadPriorityClass",
		List: kube.Listed(c, "WorkloadPriorityClass", kube.ListFunc[*kueuev1beta2.WorkloadPriorityClass](c.Kueue.KueueV1beta2().WorkloadPriorityClasses().List, metav1.ListOptions{})),
		API: func(string) ObjectAPI[*kueuev1beta2.WorkloadPriorityClass, *kueueac.WorkloadPriorityClassApplyConfiguration] {
			return c.Kueue.KueueV1beta2().WorkloadPriorityClasses()
		},
		Build:    kueue.WorkloadPriorityClass,
		Read:     kueue.WorkloadPriorityClassSpec,
		DiffSpec: DiffWorkloadPriorityClass,
	}
}

// DiffWorkloadPriorityClass names the fields of actual that differ from desired.
func DiffWorkloadPriorityClass(desired, actual spec.WorkloadPriorityClass) []string {
	var d []string
	if desired.Value != actual.Value {
		d = append(d, "value")
	}
	if desired.Description != actual.Description {
		d = append(d, "description")
	}
	return d
}
