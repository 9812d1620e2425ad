package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
)

// The router sends `doctor` to doctorCmd, and the usage lists it.
func TestDoctorCmd(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"doctor", "--list"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "DOC003  kueue-webhooks") {
		t.Errorf("doctor --list: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"doctor", "--format", "xml"}, &stdout, &stderr); code != 2 {
		t.Errorf("bad format: exit %d, want 2", code)
	}
	stdout.Reset()
	run([]string{"help"}, &stdout, &stderr)
	if !strings.Contains(stdout.String(), "mlplatform doctor [--kubeconfig PATH") {
		t.Errorf("top-level usage does not list doctor:\n%s", stdout.String())
	}
}

// doctor's exit codes are the report's for the same outcomes.
func TestDoctorExitCodesAreTheReports(t *testing.T) {
	t.Parallel()
	if doctor.ExitOK != exitReportOK || doctor.ExitError != exitReportError || doctor.ExitUsage != exitReportUsage || doctor.ExitFindings != exitReportChecks {
		t.Errorf("doctor exits %d/%d/%d/%d, the report %d/%d/%d/%d (ok, error, usage, checks found something)",
			doctor.ExitOK, doctor.ExitError, doctor.ExitUsage, doctor.ExitFindings, exitReportOK, exitReportError, exitReportUsage, exitReportChecks)
	}
}
