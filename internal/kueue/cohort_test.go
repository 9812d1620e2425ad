package kueue

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The apply configuration carries every field the platform owns, quantities
// in canonical form, and what the server returns reads back to the spec
// (quantities canonical too).
func TestCohortRoundTrip(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in       spec.Cohort
		wantJSON string
		wantRead spec.Cohort
	}{
		"bare root": {
			in:       spec.Cohort{Name: "research"},
			wantJSON: `{"kind":"Cohort","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"research"},"spec":{}}`,
			wantRead: spec.Cohort{Name: "research"},
		},
		"child with quota, limits and weight": {
			in: spec.Cohort{Name: "vision", Parent: "research", FairSharingWeight: "1500m", ResourceGroups: []spec.ResourceGroup{{
				CoveredResources: []string{"memory", "nvidia.com/gpu"},
				Flavors: []spec.FlavorQuotas{{Name: "h100", Resources: []spec.ResourceQuota{
					{Name: "memory", NominalQuota: "1024Mi"},
					{Name: "nvidia.com/gpu", NominalQuota: "12000m", BorrowingLimit: "4", LendingLimit: "0"},
				}}},
			}}},
			wantJSON: `{"kind":"Cohort","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"vision"},"spec":{"parentName":"research",` +
				`"resourceGroups":[{"coveredResources":["memory","nvidia.com/gpu"],"flavors":[{"name":"h100","resources":[` +
				`{"name":"memory","nominalQuota":"1Gi"},{"name":"nvidia.com/gpu","nominalQuota":"12","borrowingLimit":"4","lendingLimit":"0"}]}]}],` +
				`"fairSharing":{"weight":"1500m"}}}`,
			wantRead: spec.Cohort{Name: "vision", Parent: "research", FairSharingWeight: "1500m", ResourceGroups: []spec.ResourceGroup{{
				CoveredResources: []string{"memory", "nvidia.com/gpu"},
				Flavors: []spec.FlavorQuotas{{Name: "h100", Resources: []spec.ResourceQuota{
					{Name: "memory", NominalQuota: "1Gi"},
					{Name: "nvidia.com/gpu", NominalQuota: "12", BorrowingLimit: "4", LendingLimit: "0"},
				}}},
			}}},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(Cohort(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantJSON, string(data)); diff != "" {
				t.Errorf("apply configuration (-want +got):\n%s", diff)
			}
			var obj kueuev1beta2.Cohort
			if err := json.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantRead, CohortSpec(&obj)); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
