package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocalQueueValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in   LocalQueue
		want []string
	}{
		"valid":               {in: LocalQueue{Namespace: "team-a", Name: "gpu", ClusterQueue: "team-a"}},
		"held":                {in: LocalQueue{Namespace: "team-a", Name: "gpu", ClusterQueue: "team-a", StopPolicy: "HoldAndDrain"}},
		"no namespace":        {in: LocalQueue{Name: "gpu", ClusterQueue: "cq"}, want: []string{"namespace: Missing Namespace"}},
		"namespace with dots": {in: LocalQueue{Namespace: "team.a", Name: "gpu", ClusterQueue: "cq"}, want: []string{"namespace: Invalid Namespace"}},
		"no cluster queue":    {in: LocalQueue{Namespace: "a", Name: "gpu"}, want: []string{"cluster_queue: Missing ClusterQueue Name"}},
		"bad stop policy":     {in: LocalQueue{Namespace: "a", Name: "q", ClusterQueue: "cq", StopPolicy: "Pause"}, want: []string{"stop_policy: Invalid Stop Policy"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range tc.in.Validate() {
				got = append(got, e.Path.String()+": "+e.Summary)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Jobs name their queue in a label, so a LocalQueue name longer than a
// label value can hold is refused; 63 characters is fine.
func TestLocalQueueNameFitsTheQueueLabel(t *testing.T) {
	t.Parallel()
	for n, want := range map[int][]string{63: nil, 64: {"name: LocalQueue Name Too Long"}, 254: {"name: Invalid Name"}} {
		q := LocalQueue{Namespace: "a", Name: strings.Repeat("q", n), ClusterQueue: "cq"}
		if diff := cmp.Diff(want, summaries(q.Validate())); diff != "" {
			t.Errorf("%d characters (-want +got):\n%s", n, diff)
		}
	}
}
