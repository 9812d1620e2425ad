package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gcpperm"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rbac"
)

const permissionsUsage = `usage: mlplatform permissions [--worker | --iam]

Print what the Terraform provider may do, least privilege:
  (no flag)  the Kubernetes RBAC of the cluster it manages (a ClusterRole, a Role in
             kueue-system, bindings to a placeholder user: edit the subjects, then
             kubectl apply -f)
  --worker   the Kubernetes RBAC of each MultiKueue worker it sets up
  --iam      the Google Cloud IAM permissions, by the RPC that needs each, and the
             predefined roles that hold them
Doctor's read-only access: mlplatform doctor --rbac.
`

// permissionsCmd runs `mlplatform permissions` and returns its exit code.
func permissionsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("permissions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	worker := fs.Bool("worker", false, "the RBAC of a MultiKueue worker")
	iam := fs.Bool("iam", false, "the Google Cloud IAM permissions")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, permissionsUsage)
			return 0
		}
		fmt.Fprintf(stderr, "mlplatform permissions: %v\n\n%s", err, permissionsUsage)
		return 2
	}
	switch {
	case fs.NArg() > 0 || (*worker && *iam):
		fmt.Fprintf(stderr, "mlplatform permissions: give at most one of --worker and --iam, and no arguments\n\n%s", permissionsUsage)
		return 2
	case *worker:
		_, _ = io.WriteString(stdout, rbac.Worker)
	case *iam:
		writeIAM(stdout)
	default:
		_, _ = io.WriteString(stdout, rbac.Provider)
	}
	return 0
}

// writeIAM prints gcpperm's table and roles.
func writeIAM(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PERMISSION\tON\tRPC\tFOR")
	for _, r := range gcpperm.Table {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", strings.Join(r.Permissions, ", "), r.On, r.Method[strings.LastIndex(r.Method, "/")+1:], r.Why)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nPredefined roles that hold them:")
	for _, role := range gcpperm.Roles {
		fmt.Fprintf(w, "  %s (%s): %s\n    %s\n", role.Name, role.Title, strings.Join(role.Covers, ", "), role.Note)
	}
	fmt.Fprintf(w, "\nOr a custom role with: %s\n", strings.Join(gcpperm.Permissions(), ","))
}
