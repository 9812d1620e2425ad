package model

import "github.com/mlplatform/terraform-provider-mlplatform/internal/spec"

// QuotaKey is a flavor × resource of resource groups.
type QuotaKey struct{ Flavor, Resource string }

// Quota is one flavor × resource's quota.
type Quota struct{ Nominal, Borrowing, Lending Qty }

// QuotaPath is the Unknown path of one quota value: field is
// nominal_quota, borrowing_limit or lending_limit.
func QuotaPath(flavor, resource, field string) string {
	return "quota:" + flavor + ":" + resource + ":" + field
}

// groupsUnknown: resource_groups (a group, flavor or resource name in them)
// is known only after apply, so the quotas may be incomplete.
const groupsUnknown = "resource_groups"

// GroupsUnknown reports whether the resource groups' shape is known only
// after apply.
func (q *ClusterQueue) GroupsUnknown() bool { return q.Unknown[groupsUnknown] }

// GroupsUnknown reports whether the resource groups' shape is known only
// after apply.
func (c *Cohort) GroupsUnknown() bool { return c.Unknown[groupsUnknown] }

// Quotas are the quotas of resource groups, keys in the order the groups
// list them (a flavor of unknown name left out).
func Quotas(groups []spec.ResourceGroup, u Unknown) ([]QuotaKey, map[QuotaKey]Quota) {
	var keys []QuotaKey
	out := map[QuotaKey]Quota{}
	for _, g := range groups {
		for _, f := range g.Flavors {
			if f.Name == "" {
				continue
			}
			for _, r := range f.Resources {
				k := QuotaKey{f.Name, r.Name}
				if _, dup := out[k]; !dup {
					keys = append(keys, k)
				}
				out[k] = Quota{
					Nominal:   QtyOf(r.NominalQuota, u[QuotaPath(f.Name, r.Name, "nominal_quota")]),
					Borrowing: QtyOf(r.BorrowingLimit, u[QuotaPath(f.Name, r.Name, "borrowing_limit")]),
					Lending:   QtyOf(r.LendingLimit, u[QuotaPath(f.Name, r.Name, "lending_limit")]),
				}
			}
		}
	}
	return keys, out
}

// GPUQuota is a ClusterQueue's nominal nvidia.com/gpu quota of the flavor.
func (q *ClusterQueue) GPUQuota(flavor string) (Qty, bool) {
	_, qs := Quotas(q.Spec.ResourceGroups, q.Unknown)
	v, ok := qs[QuotaKey{flavor, spec.GPUResource}]
	return v.Nominal, ok
}

// GPUQuota is a Cohort's nominal nvidia.com/gpu quota of the flavor.
func (c *Cohort) GPUQuota(flavor string) (Qty, bool) {
	_, qs := Quotas(c.Spec.ResourceGroups, c.Unknown)
	v, ok := qs[QuotaKey{flavor, spec.GPUResource}]
	return v.Nominal, ok
}

// FlavorNames lists the flavors a ClusterQueue has quota on, in order.
func (q *ClusterQueue) FlavorNames() []string { return flavorNames(q.Spec.ResourceGroups, q.Unknown) }

// FlavorNames lists the flavors a Cohort has quota on, in order.
func (c *Cohort) FlavorNames() []string { return flavorNames(c.Spec.ResourceGroups, c.Unknown) }

func flavorNames(groups []spec.ResourceGroup, u Unknown) []string {
	var out []string
	seen := map[string]bool{}
	keys, _ := Quotas(groups, u)
	for _, k := range keys {
		if !seen[k.Flavor] {
			seen[k.Flavor] = true
			out = append(out, k.Flavor)
		}
	}
	return out
}
