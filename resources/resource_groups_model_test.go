package resources

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func groupsSpec(gpu, mem string) []spec.ResourceGroup {
	return []spec.ResourceGroup{{CoveredResources: []string{"memory", "nvidia.com/gpu"}, Flavors: []spec.FlavorQuotas{
		{Name: "h100", Resources: []spec.ResourceQuota{{Name: "memory", NominalQuota: mem}, {Name: "nvidia.com/gpu", NominalQuota: gpu, LendingLimit: "2"}}},
	}}}
}

func groupsList(t *testing.T, groups []spec.ResourceGroup) types.List {
	t.Helper()
	var d diag.Diagnostics
	l := resourceGroupsToList(context.Background(), groups, types.ListNull(resourceGroupType), &d)
	if d.HasError() {
		t.Fatal(d)
	}
	return l
}

// Server quantities are stored as configured when they are the same value,
// and as the server has them otherwise.
func TestResourceGroupsState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := map[string]struct {
		server []spec.ResourceGroup
		prior  types.List
		want   []spec.ResourceGroup
	}{
		"configured spelling kept": {server: groupsSpec("12", "1Gi"), prior: groupsList(t, groupsSpec("12000m", "1024Mi")), want: groupsSpec("12000m", "1024Mi")},
		"changed value shown":      {server: groupsSpec("24", "1Gi"), prior: groupsList(t, groupsSpec("16", "1024Mi")), want: groupsSpec("24", "1024Mi")},
		"import (no prior)":        {server: groupsSpec("12", "1Gi"), prior: types.ListNull(resourceGroupType), want: groupsSpec("12", "1Gi")},
		"empty stays empty":        {server: nil, prior: types.ListValueMust(resourceGroupType, []attr.Value{}), want: []spec.ResourceGroup{}},
		"absent stays null":        {server: nil, prior: types.ListNull(resourceGroupType), want: nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d diag.Diagnostics
			l := resourceGroupsToList(ctx, tc.server, tc.prior, &d)
			got := resourceGroupsFromList(ctx, l, &d)
			if d.HasError() {
				t.Fatal(d)
			}
			if tc.want == nil && !l.IsNull() {
				t.Errorf("want null, got %s", l)
			}
			if tc.want != nil && len(tc.want) == 0 && (l.IsNull() || len(l.Elements()) != 0) {
				t.Errorf("want an empty list, got %s", l)
			}
			if len(tc.want) > 0 {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			}
		})
	}
}

// Unknown values (from resources not created yet) read as empty, without
// errors, so plan-time validation can run on the rest.
func TestResourceGroupsFromUnknown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	flavor := types.ObjectValueMust(flavorQuotasType.AttrTypes, map[string]attr.Value{
		"name": types.StringUnknown(), "resources": types.ListUnknown(resourceQuotaType),
	})
	group := types.ObjectValueMust(resourceGroupType.AttrTypes, map[string]attr.Value{
		"covered_resources": types.ListUnknown(types.StringType),
		"flavors":           types.ListValueMust(flavorQuotasType, []attr.Value{flavor}),
	})
	cases := map[string]struct {
		in   types.List
		want []spec.ResourceGroup
	}{
		"unknown list":  {in: types.ListUnknown(resourceGroupType)},
		"null list":     {in: types.ListNull(resourceGroupType)},
		"unknown parts": {in: types.ListValueMust(resourceGroupType, []attr.Value{group}), want: []spec.ResourceGroup{{Flavors: []spec.FlavorQuotas{{}}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d diag.Diagnostics
			got := resourceGroupsFromList(ctx, tc.in, &d)
			if d.HasError() {
				t.Fatal(d)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCohortState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	prior := cohortModel{FairSharingWeight: types.StringValue("2000m"), ResourceGroups: groupsList(t, groupsSpec("12000m", "1Gi"))}
	var d diag.Diagnostics
	got := cohortState(ctx, spec.Cohort{Name: "vision", Parent: "research", ResourceGroups: groupsSpec("12", "1Gi"), FairSharingWeight: "2"}, prior, &d)
	if d.HasError() {
		t.Fatal(d)
	}
	want := cohortModel{
		ID: types.StringValue("vision"), Name: types.StringValue("vision"), Parent: types.StringValue("research"),
		ResourceGroups: groupsList(t, groupsSpec("12000m", "1Gi")), FairSharingWeight: types.StringValue("2000m"),
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b types.List) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
