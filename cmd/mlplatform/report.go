package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
)

// Exit codes of `mlplatform report`, for CI gates.
const (
	exitReportOK         = 0 // report written; no --fail-on condition holds
	exitReportError      = 1 // the plan or the price file could not be read
	exitReportUsage      = 2 // bad flags or arguments
	exitReportOvercommit = 3 // --fail-on overcommit: queues may admit more GPUs than the pools provide
	exitReportDrift      = 4 // --fail-on drift: something changed outside Terraform
	exitReportBoth       = 5 // both of the above
	exitReportChecks     = 6 // --fail-on checks: a platform check found an error or a warning (whatever else holds)
)

const reportUsage = `usage: mlplatform report [--format markdown|text|json|sarif] [--config-dir DIR] [--source-root DIR]
                         [--prices FILE] [--fail-on LIST] [PLAN_JSON|-]

Reads the JSON of a Terraform plan (terraform show -json PLANFILE) from PLAN_JSON,
or from stdin when it is "-" or absent, and writes a review of it: quota changes per
ClusterQueue, flavor and resource; GPUs the queues may admit against what the pools
provide (MIG slices and time-sharing/MPS shares, for pools that have them); estimated
pool cost; drift; and platform checks (cross-resource rules MLP001..., each
described in docs/guides/checks.md).

  --format   markdown (default, for a PR comment), text, json (the report as a
             versioned document: docs/guides/report_formats.md) or sarif
             (SARIF 2.1.0 for code scanning: each finding, over-commit, drift
             and destructive change at the configuration lines of its resources)
  --config-dir  sarif: the Terraform configuration the plan was made from
             (default "."), read for the lines of the resources and module calls
  --source-root sarif: the directory the SARIF file paths are relative to
             (default: the root of the git work tree holding --config-dir, else
             --config-dir), as code scanning expects the repository's root
  --prices   JSON price file overriding the default price table, e.g.
             {"source": "2026 contract", "date": "2026-05-01",
              "prices": {"nvidia-h100-80gb": {"on_demand": 9.8, "spot": 3.9}}}
  --fail-on  comma-separated: overcommit, drift, checks (checks fails on
             findings of severity error or warning, never on "undecided": a
             value known only after apply)

Exit codes: 0 report written and no --fail-on condition holds; 1 the plan or price
file could not be read; 2 usage error; 3 over-commit; 4 drift; 5 over-commit and drift;
6 check findings (whatever else holds; stderr names every condition found).
The report is written in every case but 1 and 2.
`

// reportCmd runs `mlplatform report` and returns its exit code.
func reportCmd(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", "markdown", "markdown, text, json or sarif")
	configDir := fs.String("config-dir", ".", "sarif: the Terraform configuration")
	sourceRoot := fs.String("source-root", "", "sarif: what file paths are relative to")
	pricesFile := fs.String("prices", "", "JSON price file")
	failOn := fs.String("fail-on", "", "overcommit,drift,checks")
	usageErr := func(err error) int {
		fmt.Fprintf(stderr, "mlplatform report: %v\n\n%s", err, reportUsage)
		return exitReportUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, reportUsage)
			return exitReportOK
		}
		return usageErr(err)
	}
	f, err := report.ParseFormat(*format)
	if err != nil {
		return usageErr(err)
	}
	gateOvercommit, gateDrift, gateChecks := false, false, false
	for _, g := range strings.Split(*failOn, ",") {
		switch strings.TrimSpace(g) {
		case "":
		case "overcommit":
			gateOvercommit = true
		case "drift":
			gateDrift = true
		case "checks":
			gateChecks = true
		default:
			return usageErr(fmt.Errorf("--fail-on: unknown condition %q: use overcommit, drift, checks (comma-separated)", g))
		}
	}
	if fs.NArg() > 1 {
		return usageErr(fmt.Errorf("expected one plan file, got %d: %s", fs.NArg(), strings.Join(fs.Args(), " ")))
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "mlplatform report:", err)
		return exitReportError
	}
	prices := pricing.Default()
	if *pricesFile != "" {
		pf, err := os.Open(*pricesFile)
		if err != nil {
			return fail(fmt.Errorf("opening the price file: %w", err))
		}
		o, err := pricing.Load(pf)
		_ = pf.Close() // read only: Load's error is the one that counts
		if err != nil {
			return fail(fmt.Errorf("%s: %w", *pricesFile, err))
		}
		prices = prices.Override(o)
	}
	in, name := stdin, "stdin"
	if a := fs.Arg(0); a != "" && a != "-" {
		pf, err := os.Open(a)
		if err != nil {
			return fail(fmt.Errorf("opening the plan: %w", err))
		}
		defer func() { _ = pf.Close() }() // read only
		in, name = pf, a
	}
	plan, err := report.ReadPlan(in)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", name, err))
	}
	r := report.Build(plan, report.Options{Prices: prices})
	if f == report.SARIF {
		root := *sourceRoot
		if root == "" {
			root = gitRoot(*configDir)
		}
		loc, err := report.NewLocator(*configDir, root)
		if err != nil {
			return fail(fmt.Errorf("--config-dir: %w", err))
		}
		err = report.RenderSARIF(stdout, r, report.SARIFOptions{Locator: loc, ToolVersion: version})
		if err != nil {
			return fail(err)
		}
	} else if err := report.Render(stdout, r, f); err != nil {
		return fail(err)
	}
	over, drift := gateOvercommit && r.Overcommitted(), gateDrift && r.Drifted()
	if gateChecks && r.ChecksFailed() {
		found := []string{"check findings"}
		if over {
			found = append(found, "over-commit")
		}
		if drift {
			found = append(found, "drift")
		}
		fmt.Fprintf(stderr, "mlplatform report: %s found (exit 6)\n", strings.Join(found, ", "))
		return exitReportChecks
	}
	switch {
	case over && drift:
		fmt.Fprintln(stderr, "mlplatform report: over-commit and drift found (exit 5)")
		return exitReportBoth
	case over:
		fmt.Fprintln(stderr, "mlplatform report: over-commit found (exit 3)")
		return exitReportOvercommit
	case drift:
		fmt.Fprintln(stderr, "mlplatform report: drift found (exit 4)")
		return exitReportDrift
	}
	return exitReportOK
}

// gitRoot is the root of the git work tree holding dir (the directory with
// .git), or dir itself outside one.
func gitRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
