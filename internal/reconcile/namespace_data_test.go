package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// jobSetState reads a JobSet as the JobSet controller (v0.12) writes it:
// finished once its Completed or Failed condition is True (other
// conditions, and those two False, leave it unfinished).
func TestJobSetState(t *testing.T) {
	t.Parallel()
	cond := func(typ, status string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": "R", "message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}
	}
	jobSet := func(suspend bool, conds ...map[string]any) unstructured.Unstructured {
		obj := map[string]any{"spec": map[string]any{"suspend": suspend}}
		if len(conds) > 0 {
			var cs []any
			for _, c := range conds {
				cs = append(cs, c)
			}
			obj["status"] = map[string]any{"conditions": cs}
		}
		return unstructured.Unstructured{Object: obj}
	}
	type got struct {
		State string
		Done  bool
	}
	for name, tc := range map[string]struct {
		js   unstructured.Unstructured
		want got
	}{
		"new":                       {js: jobSet(false), want: got{"running", false}},
		"queued":                    {js: jobSet(true, cond("Suspended", "True")), want: got{"suspended, e.g. waiting in a Kueue queue", false}},
		"resumed":                   {js: jobSet(false, cond("Suspended", "False"), cond("StartupPolicyCompleted", "True")), want: got{"running", false}},
		"completed":                 {js: jobSet(false, cond("Suspended", "False"), cond("Completed", "True")), want: got{"completed", true}},
		"failed":                    {js: jobSet(false, cond("Failed", "True")), want: got{"failed", true}},
		"restarting, not ended":     {js: jobSet(false, cond("RestartingJobSet", "True"), cond("Failed", "False")), want: got{"running", false}},
		"completed while suspended": {js: jobSet(true, cond("Completed", "True")), want: got{"completed", true}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			state, done := jobSetState(tc.js)
			if diff := cmp.Diff(tc.want, got{state, done}); diff != "" {
				t.Errorf("jobSetState (-want +got):\n%s", diff)
			}
		})
	}
}
