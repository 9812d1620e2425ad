package reconcile

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Cohorts reconciles Kueue Cohorts.
type Cohorts = Object[spec.Cohort, *kueuev1beta2.Cohort, *kueueac.CohortApplyConfiguration]

var _ Reconciler[Ref, spec.Cohort, spec.Cohort] = Cohorts{}

// NewCohorts reconciles through c.
func NewCohorts(c *kube.Client) Cohorts {
	return Cohorts{
		Kind: "Cohort",
		List: kube.Listed(c, "Cohort", kube.ListFunc[*kueuev1beta2.Cohort](c.Kueue.KueueV1beta2().Cohorts().List, metav1.ListOptions{})),
		API: func(string) ObjectAPI[*kueuev1beta2.Cohort, *kueueac.CohortApplyConfiguration] {
			return c.Kueue.KueueV1beta2().Cohorts()
		},
		Build:    kueue.Cohort,
		Read:     kueue.CohortSpec,
		DiffSpec: DiffCohort,
	}
}

// DiffCohort names the fields of actual that differ from desired.
// Quantities are compared by value ("12" equals "12000m").
func DiffCohort(desired, actual spec.Cohort) []string {
	var d []string
	if desired.Parent != actual.Parent {
		d = append(d, "parent")
	}
	if !spec.ResourceGroupsEqual(desired.ResourceGroups, actual.ResourceGroups) {
		d = append(d, "resource_groups")
	}
	if !spec.QuantityEqual(desired.FairSharingWeight, actual.FairSharingWeight) {
		d = append(d, "fair_sharing_weight")
	}
	return d
}
