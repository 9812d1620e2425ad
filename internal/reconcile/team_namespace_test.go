package reconcile

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestDiffTeamNamespace(t *testing.T) {
	t.Parallel()
	desired := spec.TeamNamespace{Name: "ns", Team: "vision", Labels: map[string]string{"cost-center": "1"}, Annotations: map[string]string{"a": "b"}}
	server := func(mut func(map[string]string)) spec.TeamNamespace {
		labels := map[string]string{"cost-center": "1", "kubernetes.io/metadata.name": "ns"}
		if mut != nil {
			mut(labels)
		}
		return spec.TeamNamespace{Name: "ns", Team: "vision", PodSecurity: "restricted", Labels: labels, Annotations: map[string]string{"a": "b", "other": "x"}}
	}
	cases := map[string]struct {
		actual spec.TeamNamespace
		want   []string
	}{
		"others' labels and annotations are not drift": {actual: server(func(l map[string]string) { l["istio-injection"] = "enabled" })},
		"managed label changed":                        {actual: server(func(l map[string]string) { l["cost-center"] = "2" }), want: []string{"labels"}},
		"managed label removed":                        {actual: server(func(l map[string]string) { delete(l, "cost-center") }), want: []string{"labels"}},
		"pod security loosened":                        {actual: func() spec.TeamNamespace { s := server(nil); s.PodSecurity = "privileged"; return s }(), want: []string{"labels"}},
		"annotation removed":                           {actual: func() spec.TeamNamespace { s := server(nil); s.Annotations = nil; return s }(), want: []string{"annotations"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, DiffTeamNamespace(desired, tc.actual)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
