package report

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// The example's empty provider block takes these from the environment,
	// as after `source .sandbox/env`; the Workload Identity bindings need the
	// project at plan time.
	cli := acctest.NewCLI(ctx, t, root, "MLPLATFORM_PROJECT=mlplatform-sandbox", "MLPLATFORM_LOCATION=us-central1", "MLPLATFORM_CLUSTER=training")
	example, err := bench.LoadExample(filepath.Join(root, bench.Example))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteExample(cli.Dir, example); err != nil {
		t.Fatal(err)
	}
	cli.Run("get", "-no-color") // installs modules/team, offline
	cli.Run("plan", "-input=false", "-no-color", "-out", "plan.tfplan")
	planJSON := cli.Run("show", "-json", "plan.tfplan")

	if *update {
		// the parts the report reads, for cmd/mlplatform's exit-code test
		var parts struct {
			FormatVersion   string          `json:"format_version"`
			ResourceDrift   json.RawMessage `json:"resource_drift,omitempty"`
			ResourceChanges json.RawMessage `json:"resource_changes,omitempty"`
		}
		if err := json.Unmarshal(planJSON, &parts); err != nil {
			t.Fatal(err)
		}
		fixture, err := json.MarshalIndent(parts, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "real_training_cluster.json"), append(fixture, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ReadPlan(bytes.NewReader(planJSON))
	if err != nil {
		t.Fatal(err)
	}
	r := Build(p, Options{Prices: pricing.Default()})
	if len(r.Checks) != 0 {
		t.Errorf("the example has check findings: %+v", r.Checks)
	}
	if len(r.QuotaGroups) == 0 || r.Drifted() || r.Overcommitted() {
		t.Errorf("report of a plan of creates: %d quota groups, drift %v, over-commit %v", len(r.QuotaGroups), r.Drifted(), r.Overcommitted())
	}
	var b bytes.Buffer
	if err := Render(&b, r, Markdown); err != nil {
		t.Fatal(err)
	}
	golden(t, "real_training_cluster.md", b.String())
}
