package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestDiffWorkloadPriorityClass(t *testing.T) {
	t.Parallel()
	base := spec.WorkloadPriorityClass{Name: "p", Value: 10, Description: "d"}
	cases := map[string]struct {
		actual spec.WorkloadPriorityClass
		want   []string
	}{
		"in sync":             {actual: base},
		"value edited":        {actual: spec.WorkloadPriorityClass{Name: "p", Value: 42, Description: "d"}, want: []string{"value"}},
		"description removed": {actual: spec.WorkloadPriorityClass{Name: "p", Value: 10}, want: []string{"description"}},
		"both": {
			actual: spec.WorkloadPriorityClass{Name: "p", Value: 1, Description: "x"},
			want:   []string{"value", "description"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffWorkloadPriorityClass(base, tc.actual)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
