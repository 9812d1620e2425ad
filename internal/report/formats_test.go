package report_test

// The report's machine-readable formats: --format json against its
// documented schema (docs/schemas/report-v1.schema.json) and --format sarif
// against the OASIS SARIF 2.1.0 schema (vendored in testdata/schema), on
// every saved plan; and a real plan of a configuration with a module
// (testdata/review), whose SARIF names the lines that declare each resource.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

const (
	reviewDir     = "testdata/review"
	reviewPlan    = "testdata/real_review.json"
	jsonSchema    = "../../docs/schemas/report-v1.schema.json"
	sarifSchemaAt = "testdata/schema/sarif-schema-2.1.0.json"
)

// TestAccReportReviewOnRealPlan plans testdata/review against the control
// plane and saves the plan (with -update) for TestReviewFixture.
func TestAccReportReviewOnRealPlan(t *testing.T) {
	acctest.Env(t)
	provider := acctest.ProviderConfig(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cli := acctest.NewCLI(ctx, t, root)
	if err := os.CopyFS(cli.Dir, os.DirFS(reviewDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cli.Dir, "provider.tf"), []byte(provider), 0o600); err != nil {
		t.Fatal(err)
	}
	cli.Run("get", "-no-color") // the local module, offline
	cli.Run("plan", "-input=false", "-no-color", "-out", "plan.tfplan")
	planJSON, err := planFixture(jsonOf(t, cli.Run("show", "-json", "plan.tfplan")))
	if err != nil {
		t.Fatal(err)
	}
	if report.Updating() {
		if err := os.WriteFile(reviewPlan, planJSON, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkReview(t, planJSON)
}

// TestReviewFixture checks the saved plan of testdata/review.
func TestReviewFixture(t *testing.T) {
	t.Parallel()
	if report.Updating() && os.Getenv("TF_ACC") != "" {
		t.Skip("the acceptance test is rewriting the fixture")
	}
	planJSON, err := os.ReadFile(reviewPlan)
	if err != nil {
		t.Fatalf("%v (run TF_ACC=1 go test ./internal/report -run TestAccReportReviewOnRealPlan -update to create it)", err)
	}
	checkReview(t, planJSON)
}

// sarifDoc is the part of a SARIF log the tests read.
type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Rules []struct{ ID, Name, HelpURI string }
			}
		}
		Results []struct {
			RuleID    string
			RuleIndex int
			Level     string
			Message   struct{ Text string }
			Locations []sarifLoc
			Related   []sarifLoc `json:"relatedLocations"`
		}
	}
}

type sarifLoc struct {
	PhysicalLocation *struct {
		ArtifactLocation struct{ URI string }
		Region           struct{ StartLine int }
	}
	LogicalLocations []struct{ FullyQualifiedName, Kind string }
}

func checkReview(t *testing.T, planJSON []byte) {
	t.Helper()
	r := buildReport(t, planJSON)
	loc, err := report.NewLocator(reviewDir, "../..")
	if err != nil {
		t.Fatal(err)
	}
	var sarif bytes.Buffer
	if err := report.RenderSARIF(&sarif, r, report.SARIFOptions{Locator: loc}); err != nil {
		t.Fatal(err)
	}
	report.Golden(t, "formats/review.sarif", sarif.String())
	validate(t, sarifSchemaAt, sarif.Bytes())

	var doc sarifDoc
	if err := json.Unmarshal(sarif.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	rs := doc.Runs[0].Tool.Driver.Rules
	var got []string // "RULE level address", one per result and location
	for i, res := range doc.Runs[0].Results {
		if res.RuleIndex >= len(rs) || rs[res.RuleIndex].ID != res.RuleID || res.Level == "" || rs[res.RuleIndex].HelpURI == "" {
			t.Errorf("result %d: rule %q (index %d) level %q: not a rule of the run with its help", i, res.RuleID, res.RuleIndex, res.Level)
		}
		if len(res.Locations) == 0 {
			t.Errorf("result %d (%s) has no location", i, res.RuleID)
		}
		for _, l := range res.Locations {
			addr := l.LogicalLocations[0].FullyQualifiedName
			got = append(got, res.RuleID+" "+res.Level+" "+addr)
			calls, typeName, ok := tfplan.Declaration(addr)
			if !ok || l.PhysicalLocation == nil {
				t.Errorf("%s: %s has no file and line", res.RuleID, addr)
				continue
			}
			typ, name, _ := strings.Cut(typeName, ".")
			holds(t, l, fmt.Sprintf("resource %q %q", typ, name))
			// each module call on the way is a related location at its block
			for _, c := range calls {
				if !slices.ContainsFunc(res.Related, func(r sarifLoc) bool {
					return r.PhysicalLocation != nil && lineOf(t, r) == fmt.Sprintf("module %q {", c)
				}) {
					t.Errorf("%s: %s: no related location at module %q", res.RuleID, addr, c)
				}
			}
		}
	}
	// Findings in the module and in the root, the over-commit at the flavor,
	// the module's queue and the pool.
	want := []string{
		"MLP008 error mlplatform_gpu_pool.h100",
		"MLP008 error mlplatform_resource_flavor.h100",
		"MLP011 error module.team_nlp.mlplatform_workload_identity.trainer",
		"MLP011 error module.team_nlp.mlplatform_training_network_policy.this",
		"MLP013 error module.team_nlp.mlplatform_cluster_queue.this",
		"MLP013 error mlplatform_resource_flavor.h100",
		"OVERCOMMIT warning mlplatform_resource_flavor.h100",
		"OVERCOMMIT warning module.team_nlp.mlplatform_cluster_queue.this",
		"OVERCOMMIT warning mlplatform_gpu_pool.h100",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("no SARIF location %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}

	var js bytes.Buffer
	if err := report.Render(&js, r, report.JSON); err != nil {
		t.Fatal(err)
	}
	report.Golden(t, "formats/review.json", js.String())
	validate(t, jsonSchema, js.Bytes())
}

// holds fails unless the location's line starts the declaration decl.
func holds(t *testing.T, l sarifLoc, decl string) {
	t.Helper()
	if line := lineOf(t, l); !strings.HasPrefix(line, decl+" {") {
		t.Errorf("%s:%d is %q, not %s", l.PhysicalLocation.ArtifactLocation.URI, l.PhysicalLocation.Region.StartLine, line, decl)
	}
}

// lineOf is the line a location names, read from the repository.
func lineOf(t *testing.T, l sarifLoc) string {
	t.Helper()
	f, err := os.Open(filepath.Join("../..", filepath.FromSlash(l.PhysicalLocation.ArtifactLocation.URI)))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if n == l.PhysicalLocation.Region.StartLine {
			return strings.TrimSpace(s.Text())
		}
	}
	return ""
}

// validate checks doc against the JSON schema in the file schemaPath.
func validate(t *testing.T, schemaPath string, doc []byte) {
	t.Helper()
	sch := compileSchema(t, schemaPath)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("not valid against %s: %v", schemaPath, err)
	}
}

func compileSchema(t *testing.T, path string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	s, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "file:///" + filepath.Base(path)
	if err := c.AddResource(url, s); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestFormatsOnEverySavedPlan renders every saved plan as JSON and as
// SARIF and validates both; the JSON's summary agrees with the report's
// gates, and the SARIF has a result per finding, over-commit, drift and
// destructive change.
func TestFormatsOnEverySavedPlan(t *testing.T) {
	t.Parallel()
	plans, err := fs.Glob(os.DirFS("testdata"), "*.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) < 40 {
		t.Fatalf("only %d saved plans in testdata", len(plans))
	}
	jsonSch, sarifSch := compileSchema(t, jsonSchema), compileSchema(t, sarifSchemaAt)
	for _, name := range plans {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, js, sarif := bothFormats(t, name)
			for _, d := range []struct {
				sch *jsonschema.Schema
				doc []byte
			}{{jsonSch, js.Bytes()}, {sarifSch, sarif.Bytes()}} {
				inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.doc))
				if err != nil {
					t.Fatal(err)
				}
				if err := d.sch.Validate(inst); err != nil {
					t.Errorf("%v\n%s", err, d.doc)
				}
			}
			var j struct {
				Summary struct {
					Destroys      bool `json:"destroys"`
					Overcommitted bool `json:"overcommitted"`
					Drifted       bool `json:"drifted"`
					ChecksFailed  bool `json:"checks_failed"`
				} `json:"summary"`
			}
			if err := json.Unmarshal(js.Bytes(), &j); err != nil {
				t.Fatal(err)
			}
			if j.Summary.Destroys != (len(r.Destructive) > 0) || j.Summary.Overcommitted != r.Overcommitted() ||
				j.Summary.Drifted != r.Drifted() || j.Summary.ChecksFailed != r.ChecksFailed() {
				t.Errorf("summary %+v disagrees with the report", j.Summary)
			}
			var doc sarifDoc
			if err := json.Unmarshal(sarif.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, res := range doc.Runs[0].Results {
				id := res.RuleID
				if _, ok := rules.Lookup(id); ok {
					id = "check"
				}
				counts[id]++
			}
			over := 0
			for _, c := range r.Capacity {
				if c.Overcommit {
					over++
				}
			}
			want := map[string]int{"check": len(r.Checks), report.RuleOvercommit: over, report.RuleDrift: len(r.Drift), report.RuleDestructive: len(r.Destructive)}
			for k, v := range want {
				if counts[k] != v {
					t.Errorf("%d %s results, want %d", counts[k], k, v)
				}
			}
		})
	}
}

// TestDestructiveInFormats: a real plan that changes a pool's
// gpu.partition_size has the replacement in the JSON (the attribute that
// forces it) and in the SARIF (a warning at the pool).
func TestDestructiveInFormats(t *testing.T) {
	t.Parallel()
	_, js, sarif := bothFormats(t, "real_partition_replace.json")
	var j struct {
		Destructive []struct {
			Address, Action string
			Forcing         []string
		}
	}
	if err := json.Unmarshal(js.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Destructive) == 0 || j.Destructive[0].Action != "replace" || !slices.Contains(j.Destructive[0].Forcing, "gpu.partition_size") {
		t.Errorf("JSON destructive = %+v, want the pool replaced by gpu.partition_size first", j.Destructive)
	}
	var doc sarifDoc
	if err := json.Unmarshal(sarif.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, res := range doc.Runs[0].Results {
		if res.RuleID == report.RuleDestructive && res.Level == "warning" && regexp.MustCompile(`gpu\.partition_size`).MatchString(res.Message.Text) &&
			res.Locations[0].LogicalLocations[0].FullyQualifiedName == j.Destructive[0].Address {
			found = true
		}
	}
	if !found {
		t.Errorf("no DESTROY warning at %s naming gpu.partition_size:\n%s", j.Destructive[0].Address, sarif.String())
	}
}

// bothFormats reports on the saved plan testdata/name as JSON and as SARIF
// (without locations).
func bothFormats(t *testing.T, name string) (report.Report, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	r := buildReport(t, b)
	var js, sarif bytes.Buffer
	if err := report.Render(&js, r, report.JSON); err != nil {
		t.Fatal(err)
	}
	if err := report.Render(&sarif, r, report.SARIF); err != nil {
		t.Fatal(err)
	}
	return r, &js, &sarif
}
