package kueue

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Cohort builds the apply configuration for c. Quantities are sent in
// canonical form ("12000m" as "12"); c must be valid (quantities parse).
func Cohort(c spec.Cohort) *kueueac.CohortApplyConfiguration {
	s := kueueac.CohortSpec()
	if c.Parent != "" {
		s.WithParentName(kueuev1beta2.CohortReference(c.Parent))
	}
	if len(c.ResourceGroups) > 0 {
		s.WithResourceGroups(ResourceGroups(c.ResourceGroups)...)
	}
	if c.FairSharingWeight != "" {
		s.WithFairSharing(kueueac.FairSharing().WithWeight(parsedQuantity(c.FairSharingWeight)))
	}
	return kueueac.Cohort(c.Name).WithSpec(s)
}

// CohortSpec reads the platform's view of obj.
func CohortSpec(obj *kueuev1beta2.Cohort) spec.Cohort {
	c := spec.Cohort{
		Name:           obj.Name,
		Parent:         string(obj.Spec.ParentName),
		ResourceGroups: ResourceGroupsSpec(obj.Spec.ResourceGroups),
	}
	if fs := obj.Spec.FairSharing; fs != nil && fs.Weight != nil {
		c.FairSharingWeight = fs.Weight.String()
	}
	return c
}

// ResourceGroups builds the resource groups of a ClusterQueue or Cohort.
func ResourceGroups(groups []spec.ResourceGroup) []*kueueac.ResourceGroupApplyConfiguration {
	out := make([]*kueueac.ResourceGroupApplyConfiguration, 0, len(groups))
	for _, g := range groups {
		covered := make([]corev1.ResourceName, 0, len(g.CoveredResources))
		for _, r := range g.CoveredResources {
			covered = append(covered, corev1.ResourceName(r))
		}
		ac := kueueac.ResourceGroup().WithCoveredResources(covered...)
		for _, f := range g.Flavors {
			fq := kueueac.FlavorQuotas().WithName(kueuev1beta2.ResourceFlavorReference(f.Name))
			for _, r := range f.Resources {
				rq := kueueac.ResourceQuota().WithName(corev1.ResourceName(r.Name)).WithNominalQuota(parsedQuantity(r.NominalQuota))
				if r.BorrowingLimit != "" {
					rq.WithBorrowingLimit(parsedQuantity(r.BorrowingLimit))
				}
				if r.LendingLimit != "" {
					rq.WithLendingLimit(parsedQuantity(r.LendingLimit))
				}
				fq.WithResources(rq)
			}
			ac.WithFlavors(fq)
		}
		out = append(out, ac)
	}
	return out
}

// ResourceGroupsSpec reads resource groups; quantities come back in
// canonical form.
func ResourceGroupsSpec(groups []kueuev1beta2.ResourceGroup) []spec.ResourceGroup {
	if len(groups) == 0 {
		return nil
	}
	out := make([]spec.ResourceGroup, 0, len(groups))
	for _, g := range groups {
		sg := spec.ResourceGroup{CoveredResources: make([]string, 0, len(g.CoveredResources))}
		for _, r := range g.CoveredResources {
			sg.CoveredResources = append(sg.CoveredResources, string(r))
		}
		for _, f := range g.Flavors {
			sf := spec.FlavorQuotas{Name: string(f.Name)}
			for _, r := range f.Resources {
				sf.Resources = append(sf.Resources, spec.ResourceQuota{
					Name:           string(r.Name),
					NominalQuota:   r.NominalQuota.String(),
					BorrowingLimit: quantityString(r.BorrowingLimit),
					LendingLimit:   quantityString(r.LendingLimit),
				})
			}
			sg.Flavors = append(sg.Flavors, sf)
		}
		out = append(out, sg)
	}
	return out
}

func quantityString(q *resource.Quantity) string {
	if q == nil {
		return ""
	}
	return q.String()
}

// parsedQuantity parses a quantity the spec's Validate has accepted. A value
// that does not parse becomes 0 here; Validate runs before any build, so it
// never reaches the server.
func parsedQuantity(s string) resource.Quantity {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}
	}
	return q
}
