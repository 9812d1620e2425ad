package resources

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/requestctx"
)

// The framework workarounds (fw_version.go lists them) were checked against
// one terraform-plugin-framework and one terraform-plugin-go. When go.mod
// moves either, this fails and says what to check again before the
// constants move with it.
func TestFrameworkVersionChecked(t *testing.T) {
	t.Parallel()
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	const (
		framework = "github.com/hashicorp/terraform-plugin-framework"
		pluginGo  = "github.com/hashicorp/terraform-plugin-go"
	)
	for _, c := range []struct {
		module, checked, constant, recheck string
	}{
		{framework, checkedFrameworkVersion, "checkedFrameworkVersion in resources/fw_version.go",
			"resources/fw_model.go (TestModelsConvertLikeTheFramework passes, and the framework's reflection still costs enough to keep it: " +
				"BenchmarkPlanRPCs with and without), resources/fw_schema.go (TestSchemasHaveObjectTypes passes, and the framework still " +
				"rebuilds nested object types per path step), resources/fw_readshortcut.go (ReadResource's response state still starts " +
				"as the current state: internal/fwserver/server_readresource.go)"},
		{framework, requestctx.CheckedFrameworkVersion, "CheckedFrameworkVersion in internal/requestctx/requestctx.go",
			"internal/requestctx (internal/proto6server/serve.go still retains request contexts: TestRequestContextReleased and " +
				"TestProviderReleasesRequestContexts log it when it no longer does)"},
		{pluginGo, requestctx.CheckedPluginGoVersion, "CheckedPluginGoVersion in internal/requestctx/requestctx.go",
			"internal/requestctx (its interface full lists every optional protocol 6 server of tfprotov6, " +
				"and server forwards every unary RPC: a new one would be hidden or served without the fix)"},
	} {
		got, replaced := goModVersion(string(gomod), c.module)
		switch {
		case replaced:
			t.Errorf("go.mod replaces %s; the workarounds were checked against %s itself. Re-check %s.", c.module, c.checked, c.recheck)
		case got != c.checked:
			t.Errorf("go.mod requires %s %s; the workarounds were checked against %s. Re-check %s; then set %s to %s.",
				c.module, got, c.checked, c.recheck, c.constant, got)
		}
	}
}

// goModVersion is the version of module that go.mod requires ("" when it
// does not), and whether a replace directive names the module.
func goModVersion(gomod, module string) (version string, replaced bool) {
	for line := range strings.Lines(gomod) {
		f := strings.Fields(line)
		if len(f) > 0 && (f[0] == "require" || f[0] == "replace") {
			f = f[1:]
		}
		if len(f) < 2 || f[0] != module {
			continue
		}
		if slices.Contains(f, "=>") {
			replaced = true
		} else {
			version = f[1]
		}
	}
	return version, replaced
}

// goModVersion reads requires in and out of blocks, and sees replaces.
func TestGoModVersion(t *testing.T) {
	t.Parallel()
	const m = "example.com/fw"
	for gomod, want := range map[string]struct {
		version  string
		replaced bool
	}{
		"require (\n\texample.com/fw v1.2.3\n)\n":                            {"v1.2.3", false},
		"require example.com/fw v1.2.3 // indirect\n":                        {"v1.2.3", false},
		"require (\n\texample.com/fwx v9.9.9\n)\n":                           {"", false},
		"require example.com/fw v1.2.3\nreplace example.com/fw => ../fw\n":   {"v1.2.3", true},
		"replace (\n\texample.com/fw v1.2.3 => example.com/fork v1.0.0\n)\n": {"", true},
	} {
		if v, r := goModVersion(gomod, m); v != want.version || r != want.replaced {
			t.Errorf("goModVersion(%q) = %q, %v; want %q, %v", gomod, v, r, want.version, want.replaced)
		}
	}
}
