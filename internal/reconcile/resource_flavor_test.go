package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestDiffResourceFlavor(t *testing.T) {
	t.Parallel()
	gpu := spec.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}
	base := spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{"pool": "a"}, Tolerations: []spec.Toleration{gpu}}
	cases := map[string]struct {
		desired, actual spec.ResourceFlavor
		want            []string
	}{
		"in sync":                  {desired: base, actual: base},
		"empty equals absent":      {desired: spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{}}, actual: spec.ResourceFlavor{Name: "f"}},
		"label added out of band":  {desired: base, actual: spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{"pool": "a", "x": "y"}, Tolerations: []spec.Toleration{gpu}}, want: []string{"node_labels"}},
		"toleration order matters": {desired: spec.ResourceFlavor{Tolerations: []spec.Toleration{gpu, {Key: "b"}}}, actual: spec.ResourceFlavor{Tolerations: []spec.Toleration{{Key: "b"}, gpu}}, want: []string{"tolerations"}},
		"taint added":              {desired: base, actual: spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{"pool": "a"}, Tolerations: []spec.Toleration{gpu}, NodeTaints: []spec.Taint{{Key: "k", Effect: "NoSchedule"}}}, want: []string{"node_taints"}},
		"topology":                 {desired: spec.ResourceFlavor{TopologyName: "t"}, actual: spec.ResourceFlavor{}, want: []string{"topology_name"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffResourceFlavor(tc.desired, tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The restore patch touches only managed fields: it nulls what another
// writer added where the platform wants nothing, and nothing else.
func TestManagedFieldsPatch(t *testing.T) {
	t.Parallel()
	desired := spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{"pool": "a"}}
	cases := map[string]struct {
		actual spec.ResourceFlavor
		want   string
	}{
		"label added by kubectl": {
			actual: spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{"pool": "a", "team": "vision"}},
			want:   `{"spec":{"nodeLabels":{"team":null}}}`,
		},
		"taints added where none are wanted": {
			actual: spec.ResourceFlavor{Name: "f", NodeLabels: map[string]string{"pool": "a"}, NodeTaints: []spec.Taint{{Key: "k", Effect: "NoSchedule"}}},
			want:   `{"spec":{"nodeTaints":null}}`,
		},
		"nothing to restore": {actual: desired, want: `{}`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := managedFieldsPatch(kueue.ResourceFlavor(tc.actual), kueue.ResourceFlavor(desired))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
