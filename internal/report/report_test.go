package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got); if the change is intended run go test ./internal/report -update:\n%s", path, diff)
	}
}

func buildFile(t *testing.T, path string) Report {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	p, err := ReadPlan(f)
	if err != nil {
		t.Fatal(err)
	}
	return Build(p, Options{Prices: pricing.Default()})
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"full", "unknown", "no_pools", "gpu_sharing", "multikueue"} {
		for _, f := range []Format{Markdown, Text} {
			t.Run(name+"/"+string(f), func(t *testing.T) {
				t.Parallel()
				r := buildFile(t, filepath.Join("testdata", name+".json"))
				var b bytes.Buffer
				if err := Render(&b, r, f); err != nil {
					t.Fatal(err)
				}
				ext := map[Format]string{Markdown: ".md", Text: ".txt"}[f]
				golden(t, name+ext, b.String())
			})
		}
	}
}

func TestGates(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ overcommit, drift bool }{
		"full":     {overcommit: true, drift: true},
		"unknown":  {},
		"no_pools": {},
		// 17 slices of quota on 7 slices of a sliced A100
		"gpu_sharing": {overcommit: true},
		// a manager and two workers: no pool, no drift
		"multikueue": {},
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := buildFile(t, filepath.Join("testdata", name+".json"))
			got := struct{ overcommit, drift bool }{r.Overcommitted(), r.Drifted()}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(want)); diff != "" {
				t.Errorf("gates (-want +got):\n%s", diff)
			}
		})
	}
}

// Unknown values are reported as unknown, never as a number.
func TestUnknownValuesAreReportedAsUnknown(t *testing.T) {
	t.Parallel()
	r := buildFile(t, filepath.Join("testdata", "unknown.json"))
	if len(r.Capacity) != 1 {
		t.Fatalf("capacity rows: %+v", r.Capacity)
	}
	c := r.Capacity[0]
	if c.Admissible.After.State != qUnknown || c.Provided.After.State != qUnknown || c.Overcommit {
		t.Errorf("capacity of %s: admissible %+v, provided %+v, over-commit %v; want both unknown and no verdict", c.Flavor, c.Admissible.After, c.Provided.After, c.Overcommit)
	}
	if r.Costs[0].Hourly.After.State != qUnknown || r.Costs[0].Window.After.State != qUnknown || r.CostTotal.UnknownAfter != 1 {
		t.Errorf("cost: %+v, total %+v; want unknown", r.Costs[0], r.CostTotal)
	}
	var b bytes.Buffer
	if err := Render(&b, r, Text); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), unknownText); n < 5 {
		t.Errorf("the text report names %q only %d times:\n%s", unknownText, n, b.String())
	}
}

func TestQuantitiesCompareByValue(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		a, b string
		want bool
	}{
		"same":          {"16", "16", true},
		"milli":         {"16", "16000m", true},
		"binary":        {"1Gi", "1024Mi", true},
		"different":     {"16", "24", false},
		"not quantity":  {"lots", "lots", true},
		"not quantity2": {"lots", "16", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := model.KnownQty(tc.a).Equal(model.KnownQty(tc.b)); got != tc.want {
				t.Errorf("%q equal %q = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestReadPlanErrors(t *testing.T) {
	t.Parallel()
	tests := map[string]struct{ in, want string }{
		"empty":     {"", "the plan is empty"},
		"not json":  {"Terraform will perform the following actions", "not plan JSON"},
		"no format": {`{"resource_changes": []}`, "no format_version"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := ReadPlan(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadPlan error = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
