package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/rbac"
)

func TestPermissionsCommand(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		args     []string
		wantCode int
		wantOut  []string // each in stdout
		wantErr  string   // in stderr
	}{
		"provider RBAC": {args: nil, wantOut: []string{rbac.Provider}},
		"worker RBAC":   {args: []string{"--worker"}, wantOut: []string{rbac.Worker}},
		"IAM": {args: []string{"--iam"}, wantOut: []string{
			"container.clusters.update", "CreateNodePool", "roles/container.clusterAdmin", "roles/iam.serviceAccountAdmin",
			"Or a custom role with: container.clusters.get,",
		}},
		"both":     {args: []string{"--worker", "--iam"}, wantCode: 2, wantErr: "at most one of --worker and --iam"},
		"argument": {args: []string{"x"}, wantCode: 2, wantErr: "no arguments"},
		"help":     {args: []string{"--help"}, wantOut: []string{"usage: mlplatform permissions"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := run(append([]string{"permissions"}, tc.args...), &out, &errOut)
			if diff := cmp.Diff(tc.wantCode, code); diff != "" {
				t.Errorf("exit code (-want +got):\n%s\nstderr: %s", diff, errOut.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errOut.String(), tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tc.wantErr)
			}
		})
	}
}
