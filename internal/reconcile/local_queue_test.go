package reconcile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestDiffLocalQueue(t *testing.T) {
	t.Parallel()
	q := spec.LocalQueue{Namespace: "a", Name: "gpu", ClusterQueue: "cq"}
	cases := map[string]struct {
		actual spec.LocalQueue
		want   []string
	}{
		"unset stop policy is None": {actual: spec.LocalQueue{Namespace: "a", Name: "gpu", ClusterQueue: "cq", StopPolicy: "None"}},
		"held by hand":              {actual: spec.LocalQueue{Namespace: "a", Name: "gpu", ClusterQueue: "cq", StopPolicy: "Hold"}, want: []string{"stop_policy"}},
		"other cluster queue":       {actual: spec.LocalQueue{Namespace: "a", Name: "gpu", ClusterQueue: "x"}, want: []string{"cluster_queue"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffLocalQueue(q, tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestExplainLocalQueue(t *testing.T) {
	t.Parallel()
	explain := ExplainLocalQueue(spec.LocalQueue{ClusterQueue: "team-a"})
	for reason, want := range map[string]string{
		"ClusterQueueDoesNotExist": `ClusterQueue "team-a" does not exist`,
		"ClusterQueueIsInactive":   "kubectl describe clusterqueue team-a",
		"NoStatus":                 "Kueue manager is running",
	} {
		if got := explain(Readiness{Reason: reason}); !strings.Contains(got, want) {
			t.Errorf("%s: %q does not contain %q", reason, got, want)
		}
	}
}
