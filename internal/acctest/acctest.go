// Package acctest runs acceptance tests against the real parts: one
// environment (etcd, kube-apiserver, kube-controller-manager, Kueue, and the
// GKE/IAM fake) per test package, started by Main from TestMain.
package acctest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"k8s.io/client-go/kubernetes"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/requestctx"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

var env *testenv.Env

// Main is TestMain for a package with acceptance tests. With TF_ACC set it
// starts the environment once, runs the tests, and stops it; without TF_ACC
// only unit tests run (acceptance tests skip themselves) and nothing is
// started: the plan-only tests (UnitTest) need a Terraform CLI, no cluster.
func Main(m *testing.M) { os.Exit(run(m, nil)) }

// MainWith is Main with the environment's options set by configure (e.g. the
// Kueue release it starts with); configure returns an error when the
// environment cannot be set up so (a binary directory not given).
func MainWith(m *testing.M, configure func(*testenv.Options) error) { os.Exit(run(m, configure)) }

func run(m *testing.M, configure func(*testenv.Options) error) int {
	if os.Getenv("TF_ACC") == "" {
		return m.Run()
	}
	if err := terraformCLI(); err != nil {
		fmt.Fprintln(os.Stderr, "acceptance tests:", err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	flag.Parse() // testing.Verbose needs parsed flags; m.Run parses again harmlessly
	opts := testenv.Options{}
	if testing.Verbose() {
		opts.Log = os.Stderr
	}
	if configure != nil {
		if err := configure(&opts); err != nil {
			fmt.Fprintln(os.Stderr, "acceptance tests:", err)
			return 1
		}
	}
	e, err := testenv.Start(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acceptance tests: could not start the test environment:", err)
		return 1
	}
	defer e.Stop()
	env = e
	return m.Run()
}

// terraformCLI points terraform-plugin-testing at a local CLI and keeps it
// from reaching the network (without TF_ACC_TERRAFORM_PATH, it would look
// for the latest release and download it), once per test binary.
var terraformCLI = sync.OnceValue(prepareTerraform)

func prepareTerraform() error {
	_ = os.Setenv("CHECKPOINT_DISABLE", "1")
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		p, err := exec.LookPath("terraform")
		if err != nil {
			return fmt.Errorf("no Terraform CLI: put terraform >= 1.5 on PATH or set TF_ACC_TERRAFORM_PATH; " +
				"make unit and make testacc find one, or build OpenTofu, with scripts/tools.sh (`scripts/tools.sh cli` prints its path)")
		}
		_ = os.Setenv("TF_ACC_TERRAFORM_PATH", p)
	}
	// A CLI config file that does not exist makes the CLI print a warning that
	// terraform-exec cannot parse; use an empty one instead.
	if f := os.Getenv("TF_CLI_CONFIG_FILE"); f != "" {
		if _, err := os.Stat(f); err != nil {
			empty := filepath.Join(os.TempDir(), "mlplatform-empty.tfrc")
			if err := os.WriteFile(empty, nil, 0o600); err != nil {
				return err
			}
			_ = os.Setenv("TF_CLI_CONFIG_FILE", empty)
		}
	}
	return nil
}

// Test is resource.Test with the CLI prepared as in Main (TF_ACC_TERRAFORM_PATH,
// a CLI config file that exists), for a package whose acceptance tests need no
// environment and so have no TestMain: without it, OpenTofu's warning about a
// missing TF_CLI_CONFIG_FILE on stdout breaks terraform-exec's version parse.
func Test(t *testing.T, c resource.TestCase) {
	t.Helper()
	if err := terraformCLI(); err != nil {
		t.Fatalf("acceptance test: %v", err)
	}
	resource.Test(t, c)
}

// UnitTest runs a test case that never reaches a cluster, only plans or
// validates with PlanOnlyProvider, with or without TF_ACC and without the
// control plane: resource.UnitTest, with the CLI found as for acceptance
// tests. Without a CLI the test fails, saying how to get one.
func UnitTest(t *testing.T, c resource.TestCase) {
	t.Helper()
	if err := terraformCLI(); err != nil {
		t.Fatalf("plan-only test (it needs no cluster, but a CLI): %v", err)
	}
	resource.UnitTest(t, c)
}

// PlanOnlyProvider is the provider block of a test that only plans: its
// kubeconfig does not exist, so nothing can connect. attrs are further
// provider arguments, one per line (`project = "p"`).
func PlanOnlyProvider(attrs ...string) string {
	var b strings.Builder
	b.WriteString("provider \"mlplatform\" {\n")
	for _, a := range attrs {
		b.WriteString("  " + a + "\n")
	}
	b.WriteString("  kubeconfig = \"/nonexistent\"\n}\n")
	return b.String()
}

// Env returns the package's environment, skipping the test without TF_ACC.
func Env(t testing.TB) *testenv.Env {
	t.Helper()
	if env == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc) to run against the local control plane")
	}
	return env
}

// ProviderConfig is the provider block for the package's environment.
func ProviderConfig(t testing.TB) string {
	e := Env(t)
	return providerBlock(e, e.GCP.Addr(), e.Kubeconfig)
}

// providerBlock is the provider block for e's cluster, with the GKE/IAM
// fake at gcpAddr and the given kubeconfig.
func providerBlock(e *testenv.Env, gcpAddr, kubeconfig string) string {
	return "\n" + ProviderBlock(e, gcpAddr, kubeconfig, "", "")
}

// ProviderBlock is the provider block that reaches e's cluster with
// kubeconfig and the GKE/IAM fake at gcpAddr; alias ("" for none) names
// it, and extra (whole attribute lines) is written at its end.
func ProviderBlock(e *testenv.Env, gcpAddr, kubeconfig, alias, extra string) string {
	if alias != "" {
		alias = fmt.Sprintf("  alias = %q\n", alias)
	}
	return fmt.Sprintf(`provider "mlplatform" {
%s  project            = %q
  location           = %q
  cluster            = %q
  container_endpoint = %q
  iam_endpoint       = %q
  insecure_endpoints = true
  kubeconfig         = %q
%s}
`, alias, e.Project, e.Location, e.Cluster, gcpAddr, gcpAddr, kubeconfig, extra)
}

// Factories serves the provider in-process to terraform-plugin-testing, as
// the provider binary serves it (requestctx.Wrap included).
func Factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"mlplatform": func() (tfprotov6.ProviderServer, error) {
			return requestctx.Wrap(providerserver.NewProtocol6(provider.New("test")())()), nil
		},
	}
}

// Kube returns clients for out-of-band reads and edits in tests.
func Kube(t testing.TB) (kubernetes.Interface, kueueclient.Interface) {
	t.Helper()
	e := Env(t)
	core, err := kubernetes.NewForConfig(e.REST)
	if err != nil {
		t.Fatal(err)
	}
	kq, err := kueueclient.NewForConfig(e.REST)
	if err != nil {
		t.Fatal(err)
	}
	return core, kq
}
