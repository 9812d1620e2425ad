package kueue

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The apply configuration carries every field the platform owns, and what
// the server returns reads back to the same spec.
func TestWorkloadPriorityClassRoundTrip(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in       spec.WorkloadPriorityClass
		wantJSON string
	}{
		"with description": {
			in:       spec.WorkloadPriorityClass{Name: "production", Value: 1000, Description: "prod runs"},
			wantJSON: `{"kind":"WorkloadPriorityClass","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"production"},"value":1000,"description":"prod runs"}`,
		},
		"an empty description is still owned, so apply can clear an out-of-band one": {
			in:       spec.WorkloadPriorityClass{Name: "low", Value: -1},
			wantJSON: `{"kind":"WorkloadPriorityClass","apiVersion":"kueue.x-k8s.io/v1beta2","metadata":{"name":"low"},"value":-1,"description":""}`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := json.Marshal(WorkloadPriorityClass(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantJSON, string(data)); diff != "" {
				t.Errorf("apply configuration (-want +got):\n%s", diff)
			}
			var obj kueuev1beta2.WorkloadPriorityClass
			if err := json.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.in, WorkloadPriorityClassSpec(&obj)); diff != "" {
				t.Errorf("round trip (-want +got):\n%s", diff)
			}
		})
	}
}
