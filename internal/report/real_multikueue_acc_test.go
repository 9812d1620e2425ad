package report_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
)

// A MultiKueue platform planned for real: one configuration, a provider
// alias per cluster (manager, w1, w2), the team's queues a module
// instantiated per cluster with providers = { mlplatform = mlplatform.X }.
// The package's control plane is one cluster, so every alias points at it;
// a plan (never applied) is all the report reads, and the aliases are told
// apart by their provider_config_key as on three clusters. The manager
// admits 24 GPUs for team a (workers: 8 + 8, MLP015) and 8 for team b
// (workers: 8 + 8, MLP016). The plan is saved as
// testdata/real_check_multikueue.json (with -update) and its report compared
// with testdata/real_check_multikueue.md; TestRealMultiKueueFixture renders
// the saved plan without TF_ACC.

const mkTeamModule = `
terraform {
  required_providers {
    mlplatform = { source = "mlplatform/mlplatform" }
  }
}

variable "name" { type = string }
variable "flavor" { type = string }
variable "gpus" { type = string }
variable "check" {
  type    = string
  default = null
}

resource "mlplatform_team_namespace" "this" {
  name = "P-team-${var.name}"
  team = var.name
}

resource "mlplatform_cluster_queue" "this" {
  name               = "P-team-${var.name}"
  namespace_selector = mlplatform_team_namespace.this.selector
  admission_checks   = var.check == null ? null : { (var.check) = {} }
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors           = [{ name = var.flavor, resources = [{ name = "nvidia.com/gpu", nominal_quota = var.gpus }] }]
  }]
}

resource "mlplatform_local_queue" "gpu" {
  namespace     = mlplatform_team_namespace.this.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.this.name
}
`

const mkRootHCL = `
resource "mlplatform_multikueue_check" "mk" {
  provider = mlplatform.manager
  name     = "P-multikueue"
  clusters = ["P-w1", "P-w2"]
}

resource "mlplatform_resource_flavor" "manager" {
  provider = mlplatform.manager
  name     = "P-h100"
}

module "team_manager" {
  source    = "./team"
  for_each  = { a = "24", b = "8" }
  providers = { mlplatform = mlplatform.manager }
  name      = each.key
  flavor    = mlplatform_resource_flavor.manager.name
  gpus      = each.value
  check     = mlplatform_multikueue_check.mk.name
}
#WORKERS
`

const mkWorkerHCL = `
resource "mlplatform_gpu_pool" "W" {
  provider    = mlplatform.W
  name        = "P-h100-spot"
  cluster     = "P-W"
  gpu         = { type = "nvidia-h100-80gb", count = 8 }
  capacity    = "spot"
  autoscaling = { max_nodes = 2 }
}

resource "mlplatform_resource_flavor" "W" {
  provider    = mlplatform.W
  name        = "P-h100-spot"
  node_labels = mlplatform_gpu_pool.W.node_selector
  tolerations = mlplatform_gpu_pool.W.workload_tolerations
}

module "team_W" {
  source    = "./team"
  for_each  = { a = "8", b = "8" }
  providers = { mlplatform = mlplatform.W }
  name      = each.key
  flavor    = mlplatform_resource_flavor.W.name
  gpus      = each.value
}
`

// multiKueueHCL is the root module: a provider block per alias, all of them
// the package's provider configuration.
func multiKueueHCL(provider string) string {
	var b strings.Builder
	b.WriteString(checkTerraformBlock)
	for _, alias := range []string{"manager", "w1", "w2"} {
		b.WriteString(strings.Replace(provider, `provider "mlplatform" {`, "provider \"mlplatform\" {\n  alias = \""+alias+"\"", 1))
	}
	workers := ""
	for _, w := range []string{"w1", "w2"} {
		workers += strings.ReplaceAll(mkWorkerHCL, "W", w)
	}
	b.WriteString(strings.Replace(mkRootHCL, "#WORKERS", workers, 1))
	return strings.ReplaceAll(b.String(), "P-", "kmk-")
}

func TestAccReportMultiKueueOnRealPlan(t *testing.T) {
	acctest.Env(t)
	provider := acctest.ProviderConfig(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cli := acctest.NewCLI(ctx, t, root)
	if err := os.MkdirAll(filepath.Join(cli.Dir, "team"), 0o700); err != nil {
		t.Fatal(err)
	}
	for path, text := range map[string]string{"main.tf": multiKueueHCL(provider), "team/main.tf": strings.ReplaceAll(mkTeamModule, "P-", "kmk-")} {
		if err := os.WriteFile(filepath.Join(cli.Dir, path), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cli.Run("get", "-no-color")
	cli.Run("plan", "-input=false", "-no-color", "-out", "plan.tfplan")
	planJSON, err := planFixture(jsonOf(t, cli.Run("show", "-json", "plan.tfplan")))
	if err != nil {
		t.Fatal(err)
	}
	if report.Updating() {
		if err := os.WriteFile(filepath.Join("testdata", "real_check_multikueue.json"), planJSON, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkRealMultiKueue(t, planJSON)
}

func checkRealMultiKueue(t *testing.T, planJSON []byte) {
	t.Helper()
	md, err := renderReport(planJSON)
	if err != nil {
		t.Fatal(err)
	}
	report.Golden(t, "real_check_multikueue.md", md)
	r := buildReport(t, planJSON)
	var got []string
	for _, f := range r.Checks {
		got = append(got, f.ID+" "+string(f.Severity))
	}
	if want := "MLP015 error,MLP016 warning"; strings.Join(got, ",") != want {
		t.Errorf("findings %v, want %s", got, want)
	}
	var rows []string
	for _, c := range r.Capacity {
		rows = append(rows, c.Cluster+" "+c.Flavor+" "+c.Status)
	}
	if want := "mlplatform.manager kmk-h100 MultiKueue manager flavor: capacity is the workers'," +
		"mlplatform.w1 kmk-h100-spot ok (0 spare),mlplatform.w2 kmk-h100-spot ok (0 spare)"; strings.Join(rows, ",") != want {
		t.Errorf("capacity %v, want %s", rows, want)
	}
	if len(r.Costs) != 2 {
		t.Errorf("%d cost rows, want 2 (a pool per worker)", len(r.Costs))
	}
}

// TestRealMultiKueueFixture renders the plan TestAccReportMultiKueueOnRealPlan saved.
func TestRealMultiKueueFixture(t *testing.T) {
	t.Parallel()
	if report.Updating() && os.Getenv("TF_ACC") != "" {
		t.Skip("the acceptance test is rewriting the fixture")
	}
	planJSON, err := os.ReadFile(filepath.Join("testdata", "real_check_multikueue.json"))
	if err != nil {
		t.Fatalf("%v (run TF_ACC=1 go test ./internal/report -run TestAccReportMultiKueueOnRealPlan -update to create it)", err)
	}
	checkRealMultiKueue(t, planJSON)
}
