package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
)

func TestReportCmd(t *testing.T) {
	t.Parallel()
	full := filepath.Join("..", "..", "internal", "report", "testdata", "full.json")
	noPools := filepath.Join("..", "..", "internal", "report", "testdata", "no_pools.json")
	sharing := filepath.Join("..", "..", "internal", "report", "testdata", "gpu_sharing.json")
	unknown := filepath.Join("..", "..", "internal", "report", "testdata", "unknown.json")
	multikueue := filepath.Join("..", "..", "internal", "report", "testdata", "multikueue.json")
	review := filepath.Join("..", "..", "internal", "report", "testdata", "review")
	reviewPlan := filepath.Join("..", "..", "internal", "report", "testdata", "real_review.json")
	fullJSON, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	prices := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(prices, []byte(`{"source": "test contract", "date": "2026-05-01", "prices": {"nvidia-l4": {"on_demand": 1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	badPrices := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(badPrices, []byte(`{"source": "x", "date": "2026-05-01", "prices": {"nvidia-l4": {"ondemand": 1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args       []string
		stdin      string
		wantCode   int
		wantOut    []string
		wantStderr []string
	}{
		"markdown by default": {args: []string{full}, wantCode: 0, wantOut: []string{"## mlplatform plan report", "| team-nlp | h100-spot | nvidia.com/gpu | 8 → 16 |"}},
		"text from stdin":     {args: []string{"--format", "text", "-"}, stdin: string(fullJSON), wantOut: []string{"mlplatform plan report\n======"}},
		"fail on overcommit":  {args: []string{"--fail-on", "overcommit", full}, wantCode: 3, wantStderr: []string{"over-commit found (exit 3)"}},
		"fail on drift":       {args: []string{"--fail-on", "drift", full}, wantCode: 4},
		"fail on both":        {args: []string{"--fail-on", "overcommit,drift", full}, wantCode: 5},
		"over-commit in slices": {args: []string{"--fail-on", "overcommit", "--format", "text", sharing}, wantCode: 3,
			wantOut: []string{"over-commit: queues may admit 17 slices, pools provide 7 (10 short, = 1 3/7 GPUs)", "+3 slices (= 3/7 GPU)"}},
		"fail on checks": {args: []string{"--fail-on", "checks", sharing}, wantCode: 6,
			wantOut: []string{"### Checks", "MLP013 gang-larger-than-pools (error)"}, wantStderr: []string{"check findings found (exit 6)"}},
		"checks win over the other gates": {args: []string{"--fail-on", "overcommit,checks", sharing}, wantCode: 6, wantStderr: []string{"check findings, over-commit found (exit 6)"}},
		"checks clean":                    {args: []string{"--fail-on", "checks", full}, wantCode: 0, wantOut: []string{fmt.Sprintf("All %d checks passed.", report.CheckCount())}},
		"MultiKueue checks fail": {args: []string{"--fail-on", "checks", multikueue}, wantCode: 6,
			wantOut: []string{"### MultiKueue: manager quota vs workers", "MLP015 multikueue-manager-quota-above-workers (error)", "MLP016 multikueue-manager-quota-below-workers (warning)"}},
		"undecided does not fail":    {args: []string{"--fail-on", "checks", unknown}, wantCode: 0, wantOut: []string{"MLP013 gang-larger-than-pools (undecided)"}},
		"checks without the gate":    {args: []string{sharing}, wantCode: 0, wantOut: []string{"MLP013"}},
		"gate holds nothing":         {args: []string{"--fail-on", "overcommit,drift", noPools}, wantCode: 0},
		"price override is printed":  {args: []string{"--prices", prices, full}, wantOut: []string{"overridden by test contract (2026-05-01)", "| l4-dev | nvidia-l4 | on_demand | 8 | $8.00 |"}},
		"invalid price file":         {args: []string{"--prices", badPrices, full}, wantCode: 1, wantStderr: []string{`unknown capacity type "ondemand"`}},
		"unknown gate":               {args: []string{"--fail-on", "cost", full}, wantCode: 2, wantStderr: []string{`unknown condition "cost"`, "usage: mlplatform report"}},
		"unknown format":             {args: []string{"--format", "html", full}, wantCode: 2, wantStderr: []string{`unknown format "html"`}},
		"two plans":                  {args: []string{full, full}, wantCode: 2, wantStderr: []string{"expected one plan file, got 2"}},
		"missing file":               {args: []string{"nope.json"}, wantCode: 1, wantStderr: []string{"opening the plan"}},
		"not a plan":                 {args: []string{"-"}, stdin: "No changes.", wantCode: 1, wantStderr: []string{"stdin: the input is not plan JSON"}},
		"help":                       {args: []string{"--help"}, wantOut: []string{"Exit codes:", "6 check findings", "overcommit, drift, checks"}},
		"dispatched from the router": {args: nil, wantCode: 0},
		"json": {args: []string{"--format", "json", "--fail-on", "overcommit", full}, wantCode: 3,
			wantOut: []string{`"version": 1`, `"overcommitted": true`}},
		"sarif at the lines of the configuration": {args: []string{"--format", "sarif", "--config-dir", review, reviewPlan}, wantCode: 0,
			wantOut: []string{`"version": "2.1.0"`, `"uri": "internal/report/testdata/review/modules/team/main.tf"`, `"ruleId": "OVERCOMMIT"`}},
		"sarif relative to a source root": {args: []string{"--format", "sarif", "--config-dir", review, "--source-root", review, reviewPlan}, wantCode: 0,
			wantOut: []string{`"uri": "modules/team/main.tf"`}},
		"sarif without a configuration": {args: []string{"--format", "sarif", "--config-dir", t.TempDir(), reviewPlan}, wantCode: 1,
			wantStderr: []string{"--config-dir: ", "holds no Terraform resource or module block"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			var code int
			if tc.args == nil {
				code = run([]string{"help"}, &stdout, &stderr)
				if !strings.Contains(stdout.String(), "mlplatform report [--format markdown|text|json|sarif]") {
					t.Errorf("top-level usage does not list report:\n%s", stdout.String())
				}
			} else {
				code = reportCmd(tc.args, strings.NewReader(tc.stdin), &stdout, &stderr)
			}
			if diff := cmp.Diff(tc.wantCode, code); diff != "" {
				t.Errorf("exit code (-want +got):\n%s\nstderr: %s", diff, stderr.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

// TestReportChecksOnRealPlans runs `mlplatform report --fail-on checks` on
// the plans internal/report's acceptance tests saved from real terraform
// plans: one per check that a small platform can break (exit 6), a
// MultiKueue platform of three provider aliases with MLP015 and MLP016
// findings (exit 6), the flavor-pool relation's two cases (a label the
// pool's nodes lack: MLP005, exit 6; only the accelerator label: clean), the
// clean platform and the example configuration (exit 0, "All N checks
// passed."), and a plan whose check could not decide (exit 0: undecided
// never fails).
func TestReportChecksOnRealPlans(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "internal", "report", "testdata")
	plans, err := filepath.Glob(filepath.Join(dir, "real_check_*.json"))
	if err != nil {
		t.Fatal(err)
	}
	plans = append(plans, filepath.Join(dir, "real_training_cluster.json"))
	if len(plans) < 18 {
		t.Fatalf("found %d real plans, want MLP001 to MLP014, multikueue, clean, undecided and the example", len(plans))
	}
	for _, plan := range plans {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(plan), "real_check_"), ".json")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wantCode, wantOut := 0, fmt.Sprintf("All %d checks passed.", report.CheckCount())
			switch {
			case strings.HasPrefix(name, "mlp"):
				wantCode, wantOut = 6, "MLP"+strings.TrimPrefix(name, "mlp")[:3]+" "
			case name == "relation_extra_label":
				wantCode, wantOut = 6, "MLP005 "
			case name == "multikueue":
				wantCode, wantOut = 6, "MLP015 "
			case name == "undecided":
				wantOut = "(undecided)"
			}
			var stdout, stderr bytes.Buffer
			code := reportCmd([]string{"--fail-on", "checks", plan}, nil, &stdout, &stderr)
			if code != wantCode {
				t.Errorf("exit code %d, want %d; stderr: %s", code, wantCode, stderr.String())
			}
			if !strings.Contains(stdout.String(), wantOut) {
				t.Errorf("stdout lacks %q:\n%s", wantOut, stdout.String())
			}
			if code := reportCmd([]string{plan}, nil, &stdout, &stderr); code != 0 {
				t.Errorf("without --fail-on checks: exit %d, want 0", code)
			}
		})
	}
}
