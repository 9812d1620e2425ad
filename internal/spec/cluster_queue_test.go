package spec

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClusterQueueValidate(t *testing.T) {
	t.Parallel()
	threshold := func(v int64) *int64 { return &v }
	ok := ClusterQueue{Name: "team-a", Cohort: "research", NamespaceSelector: &LabelSelector{}, ResourceGroups: []ResourceGroup{gpuGroup()},
		AdmissionChecks: map[string][]string{"dws": {"h100"}}}
	with := func(f func(*ClusterQueue)) ClusterQueue {
		q := ok
		f(&q)
		return q
	}
	cases := map[string]struct {
		in   ClusterQueue
		want []string
	}{
		"valid":      {in: ok},
		"defaults":   {in: ClusterQueue{Name: "q"}},
		"bad name":   {in: with(func(q *ClusterQueue) { q.Name = "Team_A" }), want: []string{"name: Invalid Name"}},
		"bad cohort": {in: with(func(q *ClusterQueue) { q.Cohort = "Research" }), want: []string{"cohort: Invalid Name"}},
		"strategy":   {in: with(func(q *ClusterQueue) { q.QueueingStrategy = "LIFO" }), want: []string{"queueing_strategy: Invalid Queueing Strategy"}},
		"within queue Any": {in: with(func(q *ClusterQueue) { q.Preemption.WithinClusterQueue = "Any" }),
			want: []string{"preemption.within_cluster_queue: Invalid Preemption Policy"}},
		"borrowing preemption without reclaim": {in: with(func(q *ClusterQueue) { q.Preemption.BorrowWithinCohortPolicy = "LowerPriority" }),
			want: []string{"preemption.borrow_within_cohort.policy: Borrowing Preemption Needs Reclaim"}},
		"misspelt borrowing policy is one error": {in: with(func(q *ClusterQueue) { q.Preemption.BorrowWithinCohortPolicy = "Lower" }),
			want: []string{"preemption.borrow_within_cohort.policy: Invalid Preemption Policy"}},
		"misspelt reclaim is one error": {in: with(func(q *ClusterQueue) {
			q.Preemption.ReclaimWithinCohort, q.Preemption.BorrowWithinCohortPolicy = "Nevr", "LowerPriority"
		}), want: []string{"preemption.reclaim_within_cohort: Invalid Preemption Policy"}},
		"threshold without policy": {in: with(func(q *ClusterQueue) { q.Preemption.BorrowMaxPriorityThreshold = threshold(10) }),
			want: []string{"preemption.borrow_within_cohort.max_priority_threshold: Threshold Without Borrowing Preemption"}},
		"threshold beyond int32": {in: with(func(q *ClusterQueue) {
			q.Preemption.ReclaimWithinCohort, q.Preemption.BorrowWithinCohortPolicy = "Any", "LowerPriority"
			q.Preemption.BorrowMaxPriorityThreshold = threshold(1 << 31)
		}), want: []string{"preemption.borrow_within_cohort.max_priority_threshold: Threshold Out Of Range"}},
		"threshold at int32 bounds": {in: with(func(q *ClusterQueue) {
			q.Preemption.ReclaimWithinCohort, q.Preemption.BorrowWithinCohortPolicy = "Any", "LowerPriority"
			q.Preemption.BorrowMaxPriorityThreshold = threshold(-1 << 31)
		})},
		"preference without TryNextFlavor": {in: with(func(q *ClusterQueue) { q.FlavorFungibility.Preference = "BorrowingOverPreemption" }),
			want: []string{"flavor_fungibility.preference: Preference Needs TryNextFlavor"}},
		"preference with a misspelt policy is one error": {in: with(func(q *ClusterQueue) {
			q.FlavorFungibility = FlavorFungibility{WhenCanBorrow: "TryNext", WhenCanPreempt: "TryNextFlavor", Preference: "BorrowingOverPreemption"}
		}), want: []string{"flavor_fungibility.when_can_borrow: Invalid Flavor Fungibility Policy"}},
		"misspelt preference is one error": {in: with(func(q *ClusterQueue) { q.FlavorFungibility.Preference = "Borrowing" }),
			want: []string{"flavor_fungibility.preference: Invalid Flavor Fungibility Preference"}},
		"preference with both TryNextFlavor": {in: with(func(q *ClusterQueue) {
			q.FlavorFungibility = FlavorFungibility{WhenCanBorrow: "TryNextFlavor", WhenCanPreempt: "TryNextFlavor", Preference: "PreemptionOverBorrowing"}
		})},
		"stop policy": {in: with(func(q *ClusterQueue) { q.StopPolicy = "Pause" }), want: []string{"stop_policy: Invalid Stop Policy"}},
		"selector": {in: with(func(q *ClusterQueue) {
			q.NamespaceSelector = &LabelSelector{MatchLabels: map[string]string{"a b": "x"}, MatchExpressions: []SelectorRequirement{
				{Key: "team", Operator: "In", Values: []string{"ok", "not ok"}},
				{Key: "", Operator: "Exists"},
				{Key: "tier", Operator: "Equals", Values: []string{"x"}},
				{Key: "tier", Operator: "NotIn"},
				{Key: "tier", Operator: "DoesNotExist", Values: []string{"x"}},
			}}
		}), want: []string{
			`namespace_selector.match_labels["a b"]: Invalid Label Key`,
			"namespace_selector.match_expressions[0].values[1]: Invalid Label Value",
			"namespace_selector.match_expressions[1].key: Missing Label Key",
			"namespace_selector.match_expressions[2].operator: Invalid Operator",
			"namespace_selector.match_expressions[3].values: Values Required",
			"namespace_selector.match_expressions[4].values: Values Not Allowed",
		}},
		"many selector requirements": {in: with(func(q *ClusterQueue) {
			// The API sets no limit on match expressions.
			for range 100 {
				q.NamespaceSelector.MatchExpressions = append(q.NamespaceSelector.MatchExpressions, SelectorRequirement{Key: "k", Operator: "Exists"})
			}
		})},
		"checks": {in: with(func(q *ClusterQueue) {
			q.AdmissionChecks = map[string][]string{"DWS": nil, "": nil, "dws": {"h100", "h100", "a100"}}
		}), want: []string{
			`admission_checks[""]: Missing Admission Check Name`,
			`admission_checks["DWS"]: Invalid Name`,
			`admission_checks["dws"].on_flavors[1]: Duplicate Flavor`,
			`admission_checks["dws"].on_flavors[2]: Unknown Flavor`,
		}},
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

// Messages are plain words: no regular expression, no Go error text, and a
// Title Case summary.
func TestKueueMessagesArePlain(t *testing.T) {
	t.Parallel()
	unplain := regexp.MustCompile(`regex used for validation|\[a-z0-9\]|\^\[|strconv\.|<nil>|%!`)
	bad := []FieldErrors{
		ClusterQueue{Name: "Q_", Cohort: "C!", QueueingStrategy: "x", StopPolicy: "y", FairSharingWeight: "z",
			NamespaceSelector: &LabelSelector{MatchLabels: map[string]string{"a/b/c": "-"}, MatchExpressions: []SelectorRequirement{{Key: "-", Operator: "In", Values: []string{"a b"}}}},
			ResourceGroups:    []ResourceGroup{{CoveredResources: []string{"GPU!", "cpu"}, Flavors: []FlavorQuotas{{Name: "F_", Resources: []ResourceQuota{{Name: "GPU!", NominalQuota: "x"}, {Name: "mem", NominalQuota: "-1"}}}}}},
			AdmissionChecks:   map[string][]string{"A.": {"x"}}}.Validate(),
		Cohort{Name: "-", Parent: "P Q", FairSharingWeight: "-1"}.Validate(),
		LocalQueue{Namespace: "a.b", Name: "Q", ClusterQueue: "C_"}.Validate(),
		ResourceFlavor{Name: "F", NodeLabels: map[string]string{"a b": "c"}, TopologyName: "T",
			NodeTaints:  []Taint{{Key: "-", Value: "a b", Effect: "x"}},
			Tolerations: []Toleration{{Key: "a b", Operator: "x", Effect: "y"}}}.Validate(),
		ProvisioningAdmissionCheck{Name: "a.b", ProvisioningClass: "A_B", ManagedResources: []string{"g!"}, RetryStrategy: RetryStrategy{BackoffLimitCount: -1}}.Validate(),
	}
	for _, errs := range bad {
		if len(errs) == 0 {
			t.Fatal("expected errors")
		}
		for _, e := range errs {
			if d := e.DetailIn(Plain); unplain.MatchString(d) {
				t.Errorf("%s: quotes %q: %s", e.Path, unplain.FindString(d), d)
			}
			for _, w := range strings.Fields(e.Summary) {
				if w[0] < 'A' || w[0] > 'Z' {
					t.Errorf("%s: summary %q is not Title Case", e.Path, e.Summary)
				}
			}
		}
	}
}
