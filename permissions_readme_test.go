package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gcpperm"
)

// TestReadmePermissions: the README's IAM table is gcpperm's, row for row:
// each permission with the RPCs that need it and the predefined role that
// holds it.
func TestReadmePermissions(t *testing.T) {
	t.Parallel()
	sec := section(t, section(t, readFile(t, "README.md"), "## Pointing the provider at a real GKE cluster"), "### Permissions the provider needs")
	row := regexp.MustCompile("(?m)^\\| `([a-z]+\\.[A-Za-z.]+)` \\| ([A-Za-z, ]+) \\| `(roles/[A-Za-z.]+)` \\|$")
	got := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		got[m[1]] = append(strings.Split(m[2], ", "), m[3])
	}
	want := map[string][]string{}
	for _, r := range gcpperm.Table {
		for _, p := range r.Permissions {
			want[p] = append(want[p], r.Method[strings.LastIndex(r.Method, "/")+1:])
		}
	}
	for p := range want {
		for _, role := range gcpperm.Roles {
			if slices.Contains(role.Covers, p) {
				want[p] = append(want[p], role.Name)
				break
			}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the README's IAM table against internal/gcpperm (-code +README):\n%s", diff)
	}
	for _, f := range []string{"internal/rbac/provider-rbac.yaml", "internal/rbac/worker-rbac.yaml"} {
		if !strings.Contains(sec, "("+f+")") {
			t.Errorf("the README's permissions section does not link %s", f)
		}
	}
}
