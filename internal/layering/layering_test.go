package layering

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/mlplatform/terraform-provider-mlplatform"

// library is what ARCHITECTURE.md puts below resources/: it states facts,
// and only internal/diagnostics turns them into Terraform's words.
var library = []string{
	module + "/internal/spec",
	module + "/internal/reconcile",
	module + "/internal/gke",
	module + "/internal/iam",
	module + "/internal/kube",
	module + "/internal/kueue",
}

// terraform reports the packages the library must not import.
func terraform(importPath string) bool {
	return strings.HasPrefix(importPath, "github.com/hashicorp/terraform-plugin-")
}

func TestLibraryImportsNoTerraform(t *testing.T) {
	t.Parallel()
	imports := goListDeps(t, library...)
	for _, root := range library {
		if _, ok := imports[root]; !ok {
			t.Fatalf("go list did not list %s", root)
		}
		if chain := importChain(imports, root, terraform); chain != nil {
			for i, p := range chain {
				chain[i] = strings.TrimPrefix(p, module+"/")
			}
			t.Errorf("%s imports Terraform, which only internal/diagnostics and the packages above it may: %s",
				chain[0], strings.Join(chain, " → "))
		}
	}
}

// The chain a failure names is the shortest import path to the package.
func TestImportChain(t *testing.T) {
	t.Parallel()
	imports := map[string][]string{
		"a": {"b", "c"},
		"b": {"d"},
		"c": {"github.com/hashicorp/terraform-plugin-go/tftypes"},
		"d": {"c"},
	}
	got := strings.Join(importChain(imports, "a", terraform), " → ")
	if want := "a → c → github.com/hashicorp/terraform-plugin-go/tftypes"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if chain := importChain(imports, "d", func(p string) bool { return p == "a" }); chain != nil {
		t.Errorf("found %v, want none", chain)
	}
}

// goListDeps runs go list -deps on pkgs and returns each package in the
// import graph with the packages it imports (not counting tests).
func goListDeps(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list imports: %v", err)
	}
	args := append([]string{"list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`}, pkgs...)
	var stderr bytes.Buffer
	cmd := exec.Command(goTool, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if len(fields) > 0 {
			imports[fields[0]] = fields[1:]
		}
	}
	return imports
}

// importChain is the shortest chain of imports from root to a package bad
// reports, or nil when there is none.
func importChain(imports map[string][]string, root string, bad func(string) bool) []string {
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if bad(p) {
			var chain []string
			for ; p != ""; p = from[p] {
				chain = append([]string{p}, chain...)
			}
			return chain
		}
		for _, q := range imports[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}
