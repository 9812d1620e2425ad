package tfplan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDeclaration(t *testing.T) {
	t.Parallel()
	type decl struct {
		Calls    []string
		Resource string
		OK       bool
	}
	for _, tc := range []struct {
		addr string
		want decl
	}{
		{"mlplatform_cluster_queue.q", decl{nil, "mlplatform_cluster_queue.q", true}},
		{`mlplatform_cluster_queue.q["a.b[c]"]`, decl{nil, "mlplatform_cluster_queue.q", true}},
		{"module.team.mlplatform_local_queue.gpu", decl{[]string{"team"}, "mlplatform_local_queue.gpu", true}},
		{`module.team["x.y"].module.inner[0].mlplatform_gpu_pool.p[1]`, decl{[]string{"team", "inner"}, "mlplatform_gpu_pool.p", true}},
		{"data.mlplatform_gpu_catalog.all", decl{}},
		{"module.team.data.mlplatform_gpu_catalog.all", decl{}},
		{"module.team", decl{}},
		{"", decl{}},
	} {
		calls, res, ok := Declaration(tc.addr)
		if diff := cmp.Diff(tc.want, decl{calls, res, ok}); diff != "" {
			t.Errorf("Declaration(%q) (-want +got):\n%s", tc.addr, diff)
		}
	}
}
