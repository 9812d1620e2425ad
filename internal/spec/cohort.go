package spec

import "k8s.io/apimachinery/pkg/api/resource"

// Cohort is a Kueue Cohort (kueue.x-k8s.io/v1beta2): a node of the tree in
// which ClusterQueues borrow unused quota from each other. Its resource groups
// are quota added on top of what its members own, shared by them.
type Cohort struct {
	Name              string
	Parent            string // "" = root of its tree
	ResourceGroups    []ResourceGroup
	FairSharingWeight string // a quantity; "" = unset (Kueue's default is 1)
}

// Validate mirrors Kueue's CRD rules and admission webhook for Cohort
// (pkg/webhooks/cohort_webhook.go validateCohort).
func (c Cohort) Validate() FieldErrors {
	var errs FieldErrors
	validateObjectName(&errs, Path{"name"}, "Cohort", c.Name)
	if c.Parent != "" { // "" is refused by the schema: the spec cannot tell it from unset
		// parentName is a CohortReference: a DNS subdomain of at most 253 characters.
		checkObjectName(&errs, Path{"parent"}, "Cohort", c.Parent)
		// Kueue accepts the cycle but stops admitting in every queue of it
		// (apis/kueue/v1beta2/cohort_types.go parentName); the shortest cycle
		// is the only one visible in one resource.
		if c.Parent == c.Name {
			errs.add(Path{"parent"}, "Cohort Is Its Own Parent",
				"a cohort cannot be its own parent (Kueue disables every queue in a cycle); name another cohort, or remove parent to make this one a root.")
		}
	}
	validateCohortResourceGroups(&errs, Path{"resource_groups"}, c.ResourceGroups, c.Parent != "")
	validateFairSharingWeight(&errs, Path{"fair_sharing_weight"}, c.FairSharingWeight)
	return errs
}

// validateFairSharingWeight mirrors Kueue's validateFairSharing
// (pkg/webhooks/common.go; apis/kueue/v1beta2/fairsharing_types.go "When not
// 0, Weight must be greater than 10^-9"): a non-negative quantity that,
// unless 0, is more than 1n (10⁻⁹).
func validateFairSharingWeight(errs *FieldErrors, path Path, w string) {
	if w == "" {
		return
	}
	q, err := resource.ParseQuantity(w)
	switch {
	case err != nil:
		errs.add(path, "Invalid Quantity", "fair_sharing_weight %q is not a Kubernetes quantity; write a number such as \"1\", \"2\", \"0.5\" or \"500m\".", w)
	case q.Sign() < 0:
		errs.add(path, "Negative Fair Sharing Weight", "fair_sharing_weight %s must not be negative; use \"0\" to always lose ties for unused quota.", w)
	case q.Sign() > 0 && q.Cmp(resource.MustParse("1n")) <= 0:
		errs.add(path, "Fair Sharing Weight Too Small",
			"fair_sharing_weight %s is too small for Kueue to tell apart from 0 (it must be 0 or more than 1n, 10⁻⁹); use \"0\" or a larger weight.", w)
	}
}
