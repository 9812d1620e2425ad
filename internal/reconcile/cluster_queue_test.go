package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestDiffClusterQueue(t *testing.T) {
	t.Parallel()
	quota := func(gpus string) []spec.ResourceGroup {
		return []spec.ResourceGroup{{CoveredResources: []string{"nvidia.com/gpu"},
			Flavors: []spec.FlavorQuotas{{Name: "h100", Resources: []spec.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: gpus}}}}}}
	}
	desired := spec.ClusterQueue{Name: "q", ResourceGroups: quota("12"), NamespaceSelector: &spec.LabelSelector{}}
	cases := map[string]struct {
		actual spec.ClusterQueue
		want   []string
	}{
		"server defaults are not drift": {actual: spec.ClusterQueue{Name: "q", ResourceGroups: quota("12"), NamespaceSelector: &spec.LabelSelector{},
			QueueingStrategy: "BestEffortFIFO", StopPolicy: "None",
			Preemption:        spec.Preemption{ReclaimWithinCohort: "Never", WithinClusterQueue: "Never", BorrowWithinCohortPolicy: "Never"},
			FlavorFungibility: spec.FlavorFungibility{WhenCanBorrow: "MayStopSearch", WhenCanPreempt: "TryNextFlavor"}}},
		"12 is 12000m":              {actual: spec.ClusterQueue{Name: "q", ResourceGroups: quota("12000m"), NamespaceSelector: &spec.LabelSelector{}}},
		"quota edited":              {actual: spec.ClusterQueue{Name: "q", ResourceGroups: quota("24"), NamespaceSelector: &spec.LabelSelector{}}, want: []string{"resource_groups"}},
		"selector removed":          {actual: spec.ClusterQueue{Name: "q", ResourceGroups: quota("12")}, want: []string{"namespace_selector"}},
		"held and weighted by hand": {actual: spec.ClusterQueue{Name: "q", ResourceGroups: quota("12"), NamespaceSelector: &spec.LabelSelector{}, StopPolicy: "Hold", FairSharingWeight: "2"}, want: []string{"stop_policy", "fair_sharing_weight"}},
		"check added":               {actual: spec.ClusterQueue{Name: "q", ResourceGroups: quota("12"), NamespaceSelector: &spec.LabelSelector{}, AdmissionChecks: map[string][]string{"dws": nil}}, want: []string{"admission_checks"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffClusterQueue(desired, tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// What the builder sends reads back as the same (defaulted) spec.
func TestClusterQueueRoundTrip(t *testing.T) {
	t.Parallel()
	thr := int64(100)
	in := spec.ClusterQueue{
		Name: "team-a", Cohort: "research",
		NamespaceSelector: &spec.LabelSelector{MatchLabels: map[string]string{"team": "a"},
			MatchExpressions: []spec.SelectorRequirement{{Key: "tier", Operator: "In", Values: []string{"gold"}}}},
		ResourceGroups: []spec.ResourceGroup{{CoveredResources: []string{"nvidia.com/gpu"},
			Flavors: []spec.FlavorQuotas{{Name: "h100", Resources: []spec.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: "16", BorrowingLimit: "8", LendingLimit: "4"}}}}}},
		Preemption:        spec.Preemption{ReclaimWithinCohort: "Any", BorrowWithinCohortPolicy: "LowerPriority", BorrowMaxPriorityThreshold: &thr},
		FlavorFungibility: spec.FlavorFungibility{WhenCanBorrow: "TryNextFlavor", WhenCanPreempt: "TryNextFlavor", Preference: "BorrowingOverPreemption"},
		AdmissionChecks:   map[string][]string{"dws": {"h100"}},
		FairSharingWeight: "2",
	}
	got := readBack(t, kueue.ClusterQueue(in), kueue.ClusterQueueSpec)
	if d := DiffClusterQueue(in, got); len(d) > 0 {
		t.Errorf("round trip differs in %v:\n%s", d, cmp.Diff(in.Defaulted(), got))
	}
}
