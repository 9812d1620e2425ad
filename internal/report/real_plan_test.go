package report

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/bench"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

// TestRealPlanOfTrainingCluster runs the real Terraform CLI on
// examples/training-cluster against the provider built from this tree and
// reports on the JSON it produces. A plan of new objects makes no request, so
// no control plane is needed; with TF_ACC unset the test is skipped like the
// other acceptance tests. It takes a few seconds once the build is cached.
func TestRealPlanOfTrainingCluster(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 to run terraform plan on examples/training-cluster")
	}
	t.Parallel()
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			t.Skip("no terraform on PATH and TF_ACC_TERRAFORM_PATH unset")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) []byte {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "terraformrc"), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
			// The example's empty provider block takes these from the
			// environment, as after `source .sandbox/env`; the Workload
			// Identity bindings need the project at plan time.
			"MLPLATFORM_PROJECT=mlplatform-sandbox", "MLPLATFORM_LOCATION=us-central1", "MLPLATFORM_CLUSTER=training")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s%s", name, args, err, out, stderr.Bytes())
		}
		return out
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "terraform-provider-mlplatform"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	rc := "provider_installation {\n  dev_overrides {\n" +
		"    \"registry.terraform.io/mlplatform/mlplatform\" = \"" + bin + "\"\n" +
		"    \"registry.opentofu.org/mlplatform/mlplatform\" = \"" + bin + "\"\n" +
		"  }\n  direct {}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "terraformrc"), []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	example, err := bench.LoadExample(filepath.Join(root, bench.Example))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteExample(dir, example); err != nil {
		t.Fatal(err)
	}
	run(tf, "get", "-no-color") // installs modules/team, offline
	run(tf, "plan", "-input=false", "-no-color", "-out", "plan.tfplan")
	planJSON := run(tf, "show", "-json", "plan.tfplan")

	p, err := ReadPlan(bytes.NewReader(planJSON))
	if err != nil {
		t.Fatal(err)
	}
	r := Build(p, Options{Prices: pricing.Default()})
	if len(r.QuotaGroups) == 0 || r.Drifted() || r.Overcommitted() {
		t.Errorf("report of a plan of creates: %d quota groups, drift %v, over-commit %v", len(r.QuotaGroups), r.Drifted(), r.Overcommitted())
	}
	var b bytes.Buffer
	if err := Render(&b, r, Markdown); err != nil {
		t.Fatal(err)
	}
	golden(t, "real_training_cluster.md", b.String())
}
