// Command mlplatform is the platform's command-line companion:
//
//	mlplatform sandbox up    start the local sandbox (real kube-apiserver, etcd,
//	                         kube-controller-manager, the JobSet controller and Kueue,
//	                         plus the GKE/IAM fake)
//	mlplatform sandbox down  stop it and everything it started
//	mlplatform report        review a plan: quota changes, capacity, cost, drift
//	mlplatform doctor        check the live platform: Kueue, queues, flavors, pools, pending workloads
//	mlplatform permissions   the provider's Kubernetes RBAC and IAM permissions, least privilege
//	mlplatform version
package main

import (
	"fmt"
	"io"
	"os"
)

var version = "dev"

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

const usage = `usage:
  mlplatform sandbox up   [--dir DIR] [--provider-dir DIR] [--workers N] [--timeout DURATION] [--format text|json]
                                                             start the local sandbox in the background
                                                             (--workers: also N MultiKueue worker clusters;
                                                             --format json: each cluster's kubeconfig and GKE
                                                             project/location/cluster/endpoints on stdout)
  mlplatform sandbox down [--dir DIR]                        stop it and every process it started
  mlplatform sandbox status [--dir DIR] [--format text|json] say whether it runs, and where
  mlplatform report [--format markdown|text|json|sarif] [--config-dir DIR] [--source-root DIR]
                  [--prices FILE] [--fail-on overcommit,drift,checks] [PLAN_JSON|-]
                                                             review a plan (terraform show -json): quotas, capacity,
                                                             cost, drift, platform rules (sarif: at the config's lines)
  mlplatform doctor [--kubeconfig PATH [--kube-context NAME]] [--project P --location L --cluster C]
                  [--container-endpoint HOST:PORT [--insecure-endpoints]] [--format text|json]
                  [--pending-threshold DURATION] [--check-timeout DURATION] [--timeout DURATION]
                  [--idle-threshold DURATION] [--flex-deadline-warning DURATION] [--prices FILE]
                  [--fail-on-idle-usd-per-hour USD] [--multikueue-workers] [--list] [--rbac]
                  [--plan PLAN_JSON] [--compute-endpoint HOST:PORT]
                                                             check the live platform (exit 6 on findings),
                                                             idle GPU capacity priced, GPU quota against
                                                             the pools (and a saved plan's), the cluster's
                                                             prerequisites
  mlplatform permissions [--worker | --iam]                  the provider's least privilege: Kubernetes RBAC (of a
                                                             MultiKueue worker), or the IAM permissions by RPC
  mlplatform version
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "sandbox":
		err = sandboxCmd(args[1:], stdout, stderr)
	case "report":
		return reportCmd(args[1:], os.Stdin, stdout, stderr)
	case "doctor":
		return doctorCmd(args[1:], stdout, stderr)
	case "permissions":
		return permissionsCmd(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "mlplatform", version)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "mlplatform: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "mlplatform:", err)
		return 1
	}
	return 0
}
