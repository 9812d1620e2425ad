package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func gpuQuota(nominal, lend string) []spec.ResourceGroup {
	return []spec.ResourceGroup{{CoveredResources: []string{"nvidia.com/gpu"}, Flavors: []spec.FlavorQuotas{
		{Name: "h100", Resources: []spec.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: nominal, LendingLimit: lend}}},
	}}}
}

func TestDiffCohort(t *testing.T) {
	t.Parallel()
	base := spec.Cohort{Name: "vision", Parent: "research", ResourceGroups: gpuQuota("16", "4"), FairSharingWeight: "2"}
	with := func(f func(*spec.Cohort)) spec.Cohort {
		c := base
		f(&c)
		return c
	}
	cases := map[string]struct {
		actual spec.Cohort
		want   []string
	}{
		"in sync":                   {actual: base},
		"same quantities respelled": {actual: with(func(c *spec.Cohort) { c.ResourceGroups = gpuQuota("16000m", "4000m"); c.FairSharingWeight = "2000m" })},
		"quota changed out of band": {actual: with(func(c *spec.Cohort) { c.ResourceGroups = gpuQuota("24", "4") }), want: []string{"resource_groups"}},
		"lending limit removed":     {actual: with(func(c *spec.Cohort) { c.ResourceGroups = gpuQuota("16", "") }), want: []string{"resource_groups"}},
		"groups removed":            {actual: with(func(c *spec.Cohort) { c.ResourceGroups = nil }), want: []string{"resource_groups"}},
		"reparented":                {actual: with(func(c *spec.Cohort) { c.Parent = "" }), want: []string{"parent"}},
		"weight defaulted":          {actual: with(func(c *spec.Cohort) { c.FairSharingWeight = "1" }), want: []string{"fair_sharing_weight"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffCohort(base, tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Restoring a cohort after an out-of-band edit patches only what differs,
// and removes a fair-sharing block the platform does not want.
func TestCohortRestorePatch(t *testing.T) {
	t.Parallel()
	desired := spec.Cohort{Name: "vision", Parent: "research", ResourceGroups: gpuQuota("16", "")}
	cases := map[string]struct {
		actual spec.Cohort
		want   string
	}{
		"weight added by kubectl": {
			actual: spec.Cohort{Name: "vision", Parent: "research", ResourceGroups: gpuQuota("16", ""), FairSharingWeight: "3"},
			want:   `{"spec":{"fairSharing":null}}`,
		},
		"respelled quota needs nothing": {actual: spec.Cohort{Name: "vision", Parent: "research", ResourceGroups: gpuQuota("16000m", "")}, want: `{}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := managedFieldsPatch(kueue.Cohort(tc.actual), kueue.Cohort(desired))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
