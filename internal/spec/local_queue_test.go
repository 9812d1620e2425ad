package spec

import (
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
		"no cluster queue":    {in: LocalQueue{Namespace: "a", Name: "gpu"}, want: []string{"cluster_queue: Missing Name"}},
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
