package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCohortValidate(t *testing.T) {
	t.Parallel()
	lend := withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", LendingLimit: "4", BorrowingLimit: "0"})
	cases := map[string]struct {
		in   Cohort
		want []string
	}{
		"valid root":  {in: Cohort{Name: "research", ResourceGroups: []ResourceGroup{gpuGroup()}, FairSharingWeight: "2"}},
		"valid child": {in: Cohort{Name: "vision", Parent: "research", ResourceGroups: lend}},
		"no name":     {in: Cohort{}, want: []string{"name: Missing Name"}},
		"bad parent":  {in: Cohort{Name: "a", Parent: "Research"}, want: []string{"parent: Invalid Name"}},
		"own parent":  {in: Cohort{Name: "a", Parent: "a"}, want: []string{"parent: Cohort Is Its Own Parent"}},
		"limits without parent": {in: Cohort{Name: "a", ResourceGroups: lend}, want: []string{
			"resource_groups[0].flavors[0].resources[0].borrowing_limit: Limit Needs A Parent",
			"resource_groups[0].flavors[0].resources[0].lending_limit: Limit Needs A Parent",
		}},
		"zero weight":         {in: Cohort{Name: "a", FairSharingWeight: "0"}},
		"milli weight":        {in: Cohort{Name: "a", FairSharingWeight: "500m"}},
		"negative weight":     {in: Cohort{Name: "a", FairSharingWeight: "-1"}, want: []string{"fair_sharing_weight: Negative Fair Sharing Weight"}},
		"weight too small":    {in: Cohort{Name: "a", FairSharingWeight: "1n"}, want: []string{"fair_sharing_weight: Fair Sharing Weight Too Small"}},
		"weight not a number": {in: Cohort{Name: "a", FairSharingWeight: "heavy"}, want: []string{"fair_sharing_weight: Invalid Quantity"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, summaries(tc.in.Validate())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
