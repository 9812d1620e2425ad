package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/mlplatform/terraform-provider-mlplatform/datasources"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
	"github.com/mlplatform/terraform-provider-mlplatform/provider"
	"github.com/mlplatform/terraform-provider-mlplatform/resources"
)

// The README's counts and lists, each tested against what it counts or
// lists, so that none of them can go stale: the number of platform rules,
// the resources and data sources, the provider's environment variables, the
// GPUs, the sandbox's workers, the tool versions, the make targets, the
// example that make demo applies, and the Contents links.

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	ruleRange = regexp.MustCompile(`MLP001\s*(?:–|-|to)\s*(MLP\d{3})`)
	ruleCount = regexp.MustCompile(`\b(\d+) (?:platform |report )?(?:checks|rules)\b`)
)

// checkCountProblems says where text gives the rules another count or
// range than the registry holds (n rules, the last one last).
func checkCountProblems(text string, n int, last string) []string {
	var out []string
	for _, m := range ruleRange.FindAllStringSubmatch(text, -1) {
		if m[1] != last {
			out = append(out, fmt.Sprintf("%q: the last rule is %s", m[0], last))
		}
	}
	for _, m := range ruleCount.FindAllStringSubmatch(text, -1) {
		if got, _ := strconv.Atoi(m[1]); got != n {
			out = append(out, fmt.Sprintf("%q: there are %d rules", m[0], n))
		}
	}
	return out
}

func TestCheckCountProblems(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		text string
		want []string
	}{
		"in step":                 {text: "It runs the 17 platform rules (MLP001–MLP017).", want: nil},
		"the issue's stale range": {text: "the checks are MLP001–MLP016", want: []string{`"MLP001–MLP016": the last rule is MLP017`}},
		"a stale count":           {text: "all 16 checks, and 16 rules", want: []string{`"16 checks": there are 17 rules`, `"16 rules": there are 17 rules`}},
		"hyphen and to":           {text: "MLP001-MLP015, MLP001 to MLP017", want: []string{`"MLP001-MLP015": the last rule is MLP017`}},
		"N in words is no claim":  {text: "All N checks passed", want: nil},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, checkCountProblems(tc.text, 17, "MLP017")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadmeCheckCount: the README says how many platform rules there are
// and which identifiers they have; both are the registry's (internal/rules).
// The docs and CONTRIBUTING may not say otherwise either.
func TestReadmeCheckCount(t *testing.T) {
	t.Parallel()
	last := rules.Rules[len(rules.Rules)-1].ID
	readme := readFile(t, "README.md")
	if !ruleRange.MatchString(readme) || !ruleCount.MatchString(readme) {
		t.Errorf("the README no longer says how many platform rules there are (%q) and which (%q); the test would pass vacuously", ruleCount, ruleRange)
	}
	files := []string{"README.md", "CONTRIBUTING.md", filepath.Join("templates", "index.md.tmpl")}
	guides, err := filepath.Glob(filepath.Join("templates", "guides", "*.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append(files, guides...) {
		for _, p := range checkCountProblems(readFile(t, f), rules.Count(), last) {
			t.Errorf("%s: %s", f, p)
		}
	}
}

// section is the README's text from the heading to the next one of its level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("the README has no %q", heading)
	}
	rest := doc[i+len(heading)+2:]
	level := heading[:strings.Index(heading, " ")+1]
	if j := strings.Index(rest, "\n"+level); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestReadmeResources: the Resources table has one row per resource the
// provider registers, and the text under it names every data source.
func TestReadmeResources(t *testing.T) {
	t.Parallel()
	var wantRes, wantDS []string
	for _, r := range resources.All() {
		var resp resource.MetadataResponse
		r().Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "mlplatform"}, &resp)
		wantRes = append(wantRes, resp.TypeName)
	}
	for _, d := range datasources.All() {
		var resp datasource.MetadataResponse
		d().Metadata(context.Background(), datasource.MetadataRequest{ProviderTypeName: "mlplatform"}, &resp)
		wantDS = append(wantDS, resp.TypeName)
	}
	sec := section(t, readFile(t, "README.md"), "## Resources")
	var gotRes []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(mlplatform_[a-z0-9_]+)` \\|").FindAllStringSubmatch(sec, -1) {
		gotRes = append(gotRes, m[1])
	}
	slices.Sort(wantRes)
	slices.Sort(gotRes)
	if diff := cmp.Diff(wantRes, gotRes); diff != "" {
		t.Errorf("the README's Resources table against the provider's resources (-registered +README):\n%s", diff)
	}
	for _, ds := range wantDS {
		if !strings.Contains(sec, "`"+ds+"`") {
			t.Errorf("the README's Resources section does not name data source %s", ds)
		}
	}
}

// TestReadmeEnvironment: the README lists every environment variable the
// provider's attributes fall back to (each attribute's description names
// them after "Environment:").
func TestReadmeEnvironment(t *testing.T) {
	t.Parallel()
	var resp fwprovider.SchemaResponse
	provider.New("test")().Schema(context.Background(), fwprovider.SchemaRequest{}, &resp)
	sec := section(t, readFile(t, "README.md"), "## Pointing the provider at a real GKE cluster")
	env := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	n := 0
	for name, attr := range resp.Schema.Attributes {
		_, says, ok := strings.Cut(attr.GetMarkdownDescription(), "Environment:")
		if !ok {
			continue
		}
		for _, m := range env.FindAllStringSubmatch(says, -1) {
			n++
			if !strings.Contains(sec, "`"+m[1]+"`") {
				t.Errorf("the README's provider section does not name %s, the environment variable of %s", m[1], name)
			}
		}
	}
	if n < 10 {
		t.Errorf("found %d environment variables in the provider's schema; the test reads the descriptions wrong", n)
	}
}

// TestReadmeGPUs: the GPUs the README says mlplatform_gpu_pool knows are
// the catalog's.
func TestReadmeGPUs(t *testing.T) {
	t.Parallel()
	m := regexp.MustCompile(`a GKE GPU node pool by what it is for \(([A-Z0-9, ]+);`).FindStringSubmatch(readFile(t, "README.md"))
	if m == nil {
		t.Fatal("the README's mlplatform_gpu_pool row lists no GPUs")
	}
	got := strings.Split(m[1], ", ")
	var want []string
	for _, a := range catalog.Accelerators() {
		// "NVIDIA H100 Mega 80GB" is an H100.
		if f := strings.Fields(a.DisplayName); !slices.Contains(want, f[1]) {
			want = append(want, f[1])
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the GPUs the README lists against the catalog's (-catalog +README):\n%s", diff)
	}
}

// TestReadmeSandboxWorkers: the most workers the sandbox starts, and where
// the first two are.
func TestReadmeSandboxWorkers(t *testing.T) {
	t.Parallel()
	sec := section(t, readFile(t, "README.md"), "## The local sandbox")
	wl := testenv.WorkerLocations
	for _, want := range []string{
		fmt.Sprintf("(at most %d)", len(wl)),
		fmt.Sprintf("`%s` in %s, `%s` in %s", testenv.WorkerName(1), wl[0], testenv.WorkerName(2), wl[1]),
		fmt.Sprintf("clusters/%s", testenv.DefaultCluster),
		fmt.Sprintf("projects/%s/locations/%s/", testenv.DefaultProject, testenv.DefaultLocation),
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("the README's sandbox section does not say %q", want)
		}
	}
}

// TestReadmeToolVersions: every version the README gives a tool is the one
// scripts/tools.sh builds (JobSet: the one go.mod pins, which Kueue's go.mod
// chose), and each is given.
func TestReadmeToolVersions(t *testing.T) {
	t.Parallel()
	tools := readFile(t, filepath.Join("scripts", "tools.sh"))
	def := func(v string) string {
		t.Helper()
		m := regexp.MustCompile(`(?m)^` + v + `=\$\{` + v + `:-([0-9.]+)\}`).FindStringSubmatch(tools)
		if m == nil {
			t.Fatalf("scripts/tools.sh sets no default %s", v)
		}
		return m[1]
	}
	jobset := regexp.MustCompile(`(?m)^\s*sigs\.k8s\.io/jobset v([0-9.]+)`).FindStringSubmatch(readFile(t, "go.mod"))
	if jobset == nil {
		t.Fatal("go.mod pins no sigs.k8s.io/jobset")
	}
	readme := readFile(t, "README.md")
	for _, c := range []struct {
		tool string // as the README writes it before a version
		want []string
	}{
		{"kube-apiserver", []string{def("K8S_VERSION")}},
		{"Kubernetes", []string{def("K8S_VERSION")}},
		{"etcd", []string{def("ETCD_VERSION")}},
		{"Kueue", []string{def("KUEUE_VERSION"), def("KUEUE_OLDEST_VERSION")}},
		{"Kueue manager", []string{def("KUEUE_VERSION")}},
		{"JobSet manager", []string{jobset[1]}},
		{"OpenTofu", []string{def("TOFU_VERSION")}},
		{"golangci-lint", []string{def("GOLANGCI_LINT_VERSION")}},
		{"actionlint", []string{def("ACTIONLINT_VERSION")}},
		{"goreleaser", []string{def("GORELEASER_VERSION")}},
	} {
		re := regexp.MustCompile(`\b` + regexp.QuoteMeta(c.tool) + `\*{0,2} \*{0,2}v?(\d+\.\d+\.\d+)\b`)
		seen := map[string]bool{}
		for _, m := range re.FindAllStringSubmatch(readme, -1) {
			seen[m[1]] = true
			if !slices.Contains(c.want, m[1]) {
				t.Errorf("the README says %q; scripts/tools.sh builds %s %v", m[0], c.tool, c.want)
			}
		}
		if !seen[c.want[0]] {
			t.Errorf("the README never gives %s's version, %s", c.tool, c.want[0])
		}
	}
}

// TestReadmeMakeTargets: every make target the README names exists.
func TestReadmeMakeTargets(t *testing.T) {
	t.Parallel()
	mk := readFile(t, "GNUmakefile")
	readme := readFile(t, "README.md")
	n := 0
	for _, m := range regexp.MustCompile("(?m)(?:`|^)make ([a-z][a-z-]*)").FindAllStringSubmatch(readme, -1) {
		n++
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(m[1]) + `:`).MatchString(mk) {
			t.Errorf("the README names `make %s`; the GNUmakefile has no such target", m[1])
		}
	}
	if n < 10 {
		t.Errorf("found %d make commands in the README; the test reads it wrong", n)
	}
}

// TestReadmeDemoExample: what the README says make demo applies is the
// example's: its GPU pools and teams, counted.
func TestReadmeDemoExample(t *testing.T) {
	t.Parallel()
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight"}
	dir := filepath.Join("examples", "training-cluster")
	pools := 0
	tfs, err := filepath.Glob(filepath.Join(dir, "*.tf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range tfs {
		pools += strings.Count(readFile(t, f), `resource "mlplatform_gpu_pool"`)
	}
	teamsBlock := regexp.MustCompile(`(?s)teams = \{\n(.*?)\n  \}`).FindStringSubmatch(readFile(t, filepath.Join(dir, "teams.tf")))
	if teamsBlock == nil {
		t.Fatal("examples/training-cluster/teams.tf has no teams map")
	}
	teams := len(regexp.MustCompile(`(?m)^\s+[a-z0-9_-]+ += \{`).FindAllString(teamsBlock[1], -1))
	readme := readFile(t, "README.md")
	for _, want := range []string{words[pools] + " GPU node pools", words[teams] + " teams (one line each"} {
		if !strings.Contains(readme, want) {
			t.Errorf("the README does not say %q (examples/training-cluster has %d pools, %d teams)", want, pools, teams)
		}
	}
}

// TestReadmeAnchors: every link to a section of the README reaches one.
func TestReadmeAnchors(t *testing.T) {
	t.Parallel()
	readme := readFile(t, "README.md")
	slugs := map[string]bool{}
	punct := regexp.MustCompile(`[^a-z0-9 _-]`)
	for _, m := range regexp.MustCompile(`(?m)^#{1,6} (.+)$`).FindAllStringSubmatch(readme, -1) {
		slugs[strings.ReplaceAll(punct.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")] = true
	}
	links := regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(readme, -1)
	if len(links) < 10 {
		t.Errorf("found %d links to sections; the test reads the README wrong", len(links))
	}
	for _, m := range links {
		if !slugs[m[1]] {
			t.Errorf("the README links to #%s, which no heading has", m[1])
		}
	}
}

// TestReadmeLinters: the README's make lint row names every linter and
// formatter .golangci.yml enables.
func TestReadmeLinters(t *testing.T) {
	t.Parallel()
	cfg := readFile(t, ".golangci.yml")
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s+enable:\n((?:\s+- [a-z0-9]+\n)+)`).FindAllStringSubmatch(cfg, -1) {
		for _, n := range regexp.MustCompile(`- ([a-z0-9]+)`).FindAllStringSubmatch(m[1], -1) {
			names = append(names, n[1])
		}
	}
	if !slices.Contains(names, "gofmt") || !slices.Contains(names, "errcheck") {
		t.Fatalf(".golangci.yml enables %v; the test reads it wrong", names)
	}
	row := regexp.MustCompile("(?m)^\\| `make lint` \\|.*$").FindString(readFile(t, "README.md"))
	for _, n := range names {
		if !regexp.MustCompile(`\b` + n + `\b`).MatchString(row) {
			t.Errorf("the README's make lint row does not name %s, which .golangci.yml enables: %s", n, row)
		}
	}
}

// TestReadmeBenchTeams: the team counts the README says make bench plans
// are the benchmark's default.
func TestReadmeBenchTeams(t *testing.T) {
	t.Parallel()
	m := regexp.MustCompile(`flag\.String\("teams", "([0-9,]+)"`).FindStringSubmatch(readFile(t, filepath.Join("cmd", "mlplatform-bench", "main.go")))
	if m == nil {
		t.Fatal("cmd/mlplatform-bench has no --teams default")
	}
	n := strings.Split(m[1], ",")
	if len(n) < 2 {
		t.Fatalf("--teams default %q", m[1])
	}
	want := strings.Join(n[:len(n)-1], ", ") + " and " + n[len(n)-1] + " teams"
	readme := readFile(t, "README.md")
	if c := strings.Count(readme, want); c < 2 {
		t.Errorf("the README says %q %d times, want it in the make bench row and Benchmarks (the benchmark's --teams default is %s)", want, c, m[1])
	}
	for _, got := range regexp.MustCompile(`\d+(?:, \d+)* and \d+ teams`).FindAllString(readme, -1) {
		if got != want {
			t.Errorf("the README says %q; make bench plans %s", got, want)
		}
	}
}
