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
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"k8s.io/client-go/kubernetes"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/requestctx"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

var env *testenv.Env

// Main is TestMain for a package with acceptance tests. With TF_ACC set it
// starts the environment once, runs the tests, and stops it; without TF_ACC
// only unit tests run (acceptance tests skip themselves).
func Main(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if os.Getenv("TF_ACC") == "" {
		return m.Run()
	}
	if err := prepareTerraform(); err != nil {
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
	e, err := testenv.Start(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "acceptance tests: could not start the test environment:", err)
		return 1
	}
	defer e.Stop()
	env = e
	return m.Run()
}

// prepareTerraform points terraform-plugin-testing at a local CLI and keeps
// it from reaching the network.
func prepareTerraform() error {
	_ = os.Setenv("CHECKPOINT_DISABLE", "1")
	if os.Getenv("TF_ACC_TERRAFORM_PATH") == "" {
		p, err := exec.LookPath("terraform")
		if err != nil {
			return fmt.Errorf("no Terraform CLI: set TF_ACC_TERRAFORM_PATH or run scripts/tools.sh and source the tools.env it writes")
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
	return fmt.Sprintf(`
provider "mlplatform" {
  project            = %q
  location           = %q
  cluster            = %q
  container_endpoint = %q
  iam_endpoint       = %q
  insecure_endpoints = true
  kubeconfig         = %q
}
`, e.Project, e.Location, e.Cluster, e.GCP.Addr(), e.GCP.Addr(), e.Kubeconfig)
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
