package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
)

// Goldens of the platform checks on real plans: `terraform plan` of a small
// platform (one pool, flavor, team namespace, Workload Identity, network
// policy, ClusterQueue and LocalQueue) against the package's control plane,
// broken once per case. Each plan is saved as testdata/real_check_<case>.json
// (with -update) and its report compared with testdata/real_check_<case>.md;
// TestRealCheckFixtures renders the saved plans without TF_ACC, and
// cmd/mlplatform's TestReportChecksOnRealPlans runs `mlplatform report
// --fail-on checks` on them for the exit code.

// checkCase is a broken (or clean) platform and what its report must say.
type checkCase struct {
	Edit func(hcl string) string // applied to checkBaseHCL
	ID   string                  // the check that must report, "" for none
	Sev  report.Severity
}

const checkTerraformBlock = `terraform {
  required_providers {
    mlplatform = { source = "mlplatform/mlplatform" }
  }
}
`

// checkBaseHCL is clean under every check. P is the case's name prefix.
const checkBaseHCL = `
resource "mlplatform_gpu_pool" "h100" {
  name        = "P-h100"
  gpu         = { type = "nvidia-h100-80gb", count = 8 }
  capacity    = "spot"
  autoscaling = { max_nodes = 2 }
  #POOL
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "P-h100"
  node_labels = mlplatform_gpu_pool.h100.node_selector
  tolerations = mlplatform_gpu_pool.h100.workload_tolerations
}

resource "mlplatform_team_namespace" "nlp" {
  name = "P-team-nlp"
  team = "nlp"
}

resource "mlplatform_workload_identity" "nlp" {
  namespace                     = mlplatform_team_namespace.nlp.name
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "P-nlp-trainer" }
}

resource "mlplatform_training_network_policy" "nlp" {
  namespace = mlplatform_team_namespace.nlp.name
  #POLICY
}

resource "mlplatform_cluster_queue" "nlp" {
  name               = "P-team-nlp"
  namespace_selector = mlplatform_team_namespace.nlp.selector
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [
      #FLAVORS
      { name = mlplatform_resource_flavor.h100.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "16" }] },
    ]
  }]
  #QUEUE
}

resource "mlplatform_local_queue" "nlp" {
  namespace     = mlplatform_team_namespace.nlp.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.nlp.name
}
`

func repl(pairs ...string) func(string) string {
	return func(s string) string {
		for i := 0; i < len(pairs); i += 2 {
			if !strings.Contains(s, pairs[i]) {
				panic("checkBaseHCL has no " + pairs[i])
			}
			s = strings.Replace(s, pairs[i], pairs[i+1], 1)
		}
		return s
	}
}

// withTopology names a Topology in the flavor of checkBaseHCL (tolsLine
// ends it); gkeTopology is GKE's Topology.
func withTopology(expr string) func(string) string { return repl(tolsLine, withTopologyLine(expr)) }

func withTopologyLine(expr string) string {
	return "tolerations = mlplatform_gpu_pool.h100.workload_tolerations\n  topology_name = " + expr + "\n}"
}

const (
	tolsLine    = "tolerations = mlplatform_gpu_pool.h100.workload_tolerations\n}"
	gkeTopology = `
resource "mlplatform_topology" "gke" {
  name   = "P-gke"
  levels = ["cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-host", "kubernetes.io/hostname"]
}
`
)

func realCheckCases() map[string]checkCase {
	const dedicated = `taints = { dedicated = { value = "ml", effect = "NoSchedule" } }`
	const gpuOnly = `tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]`
	return map[string]checkCase{
		// The example's clean platform and an undecided one.
		"clean": {Edit: func(s string) string { return s }},
		// The LocalQueue names its ClusterQueue by id, unknown until apply.
		"undecided": {Edit: repl("cluster_queue = mlplatform_cluster_queue.nlp.name", "cluster_queue = mlplatform_cluster_queue.nlp.id"), ID: "MLP003", Sev: report.SevUndecided},
		"mlp001": {Edit: repl("namespace_selector = mlplatform_team_namespace.nlp.selector",
			`namespace_selector = { match_labels = { "mlplatform.dev/team" = "nlp-research" } }`), ID: "MLP001", Sev: report.SevError},
		"mlp002": {Edit: func(s string) string {
			return s + `
resource "mlplatform_team_namespace" "cv" {
  name = "P-team-cv"
  team = "cv"
}

resource "mlplatform_local_queue" "cv" {
  namespace     = mlplatform_team_namespace.cv.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.nlp.name
}
`
		}, ID: "MLP002", Sev: report.SevError},
		"mlp003": {Edit: repl("cluster_queue = mlplatform_cluster_queue.nlp.name", `cluster_queue = "P-team-nlp-old"`), ID: "MLP003", Sev: report.SevWarning},
		"mlp004": {Edit: repl("#FLAVORS", `{ name = "P-a100", resources = [{ name = "nvidia.com/gpu", nominal_quota = "8" }] },`), ID: "MLP004", Sev: report.SevWarning},
		"mlp005": {Edit: repl("node_labels = mlplatform_gpu_pool.h100.node_selector", `node_labels = { "cloud.google.com/gke-nodepool" = "P-h100-old" }`), ID: "MLP005", Sev: report.SevError},
		// A pool of the same name in another cluster: the flavor's labels select both.
		"mlp006": {Edit: func(s string) string {
			return s + `
resource "mlplatform_gpu_pool" "l4" {
  name         = "P-h100"
  cluster      = "training-b"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 4 }
}
`
		}, ID: "MLP006", Sev: report.SevWarning},
		// A second flavor of the pool that misses the pool's dedicated taint.
		"mlp007": {Edit: func(s string) string {
			return repl("#POOL", dedicated)(s) + `
resource "mlplatform_resource_flavor" "h100_alt" {
  name        = "P-h100-alt"
  node_labels = mlplatform_gpu_pool.h100.node_selector
  ` + gpuOnly + `
}
`
		}, ID: "MLP007", Sev: report.SevError},
		"mlp008": {Edit: repl("#POOL", dedicated, "tolerations = mlplatform_gpu_pool.h100.workload_tolerations", gpuOnly), ID: "MLP008", Sev: report.SevError},
		"mlp009": {Edit: repl(`capacity    = "spot"`, `capacity    = "flex_start"`, "#POOL", "queued_provisioning = true"), ID: "MLP009", Sev: report.SevError},
		"mlp010": {Edit: func(s string) string {
			return repl("#QUEUE", `admission_checks = { (mlplatform_provisioning_admission_check.dws.name) = { on_flavors = [mlplatform_resource_flavor.h100.name] } }`)(s) + `
resource "mlplatform_provisioning_admission_check" "dws" {
  name = "P-dws"
}
`
		}, ID: "MLP010", Sev: report.SevError},
		"mlp011": {Edit: repl("#POLICY", "metadata_server = false"), ID: "MLP011", Sev: report.SevError},
		"mlp012": {Edit: repl("#POOL", "workload_identity = false"), ID: "MLP012", Sev: report.SevError},
		"mlp013": {Edit: repl(`nominal_quota = "16" }`, `nominal_quota = "24" }`), ID: "MLP013", Sev: report.SevError},
		"mlp014": {Edit: func(s string) string {
			return repl("#FLAVORS", `{ name = mlplatform_resource_flavor.mig.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "7" }] },`)(s) + `
resource "mlplatform_gpu_pool" "mig" {
  name         = "P-a100-mig"
  machine_type = "a2-highgpu-1g"
  gpu          = { type = "nvidia-tesla-a100", count = 1, partition_size = "1g.5gb" }
  capacity     = "spot"
  autoscaling  = { max_nodes = 1 }
}

resource "mlplatform_resource_flavor" "mig" {
  name        = "P-a100-mig"
  node_labels = mlplatform_gpu_pool.mig.node_selector
  tolerations = mlplatform_gpu_pool.mig.workload_tolerations
}
`
		}, ID: "MLP014", Sev: report.SevWarning},
		// Two pools of different GPUs in one cluster whose nodes carry the
		// flavor's one label.
		"mlp006b": {Edit: func(s string) string {
			return repl("node_labels = mlplatform_gpu_pool.h100.node_selector", `node_labels = { "P-gpu" = "any" }`, "#POOL", `labels = { "P-gpu" = "any" }`)(s) + `
resource "mlplatform_gpu_pool" "l4" {
  name         = "P-l4"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 4 }
  labels       = { "P-gpu" = "any" }
}
`
		}, ID: "MLP006", Sev: report.SevWarning},
		"mlp017": {Edit: func(s string) string {
			return repl("#QUEUE", `admission_checks = { (mlplatform_multikueue_check.mk.name) = {}, (mlplatform_multikueue_check.mk2.name) = {} }`)(s) + `
resource "mlplatform_multikueue_check" "mk" {
  name     = "P-mk"
  clusters = ["P-w1"]
}

resource "mlplatform_multikueue_check" "mk2" {
  name     = "P-mk2"
  clusters = ["P-w2"]
}
`
		}, ID: "MLP017", Sev: report.SevError},
		"mlp019": {Edit: repl(`nominal_quota = "16" }`, `nominal_quota = "15500m" }`), ID: "MLP019", Sev: report.SevError},
		"mlp020": {Edit: repl("#POLICY", `google_apis = "none"`), ID: "MLP020", Sev: report.SevError},
		// A flavor naming a Topology not in the configuration.
		"mlp021": {Edit: withTopology(`"P-gke"`), ID: "MLP021", Sev: report.SevWarning},
		// GKE's Topology on the spot H100 pool without compact placement:
		// its nodes will not carry the block label...
		"mlp022": {Edit: func(s string) string { return withTopology("mlplatform_topology.gke.name")(s) + gkeTopology }, ID: "MLP022", Sev: report.SevWarning},
		// ...and with compact placement they do: fixed.
		"tas_fixed": {Edit: func(s string) string {
			return repl(tolsLine, withTopologyLine("mlplatform_topology.gke.name"), "#POOL", `placement = "compact"`+"\n  node_locations = [\"us-central1-b\"]")(s) + gkeTopology
		}},
		// A plain flavor beside the topology-aware one in the queue's group.
		"mlp023": {Edit: func(s string) string {
			return repl(tolsLine, withTopologyLine("mlplatform_topology.gke.name"), "#POOL", `placement = "compact"`+"\n  node_locations = [\"us-central1-b\"]",
				"#FLAVORS", `{ name = mlplatform_resource_flavor.plain.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "0" }] },`)(s) + gkeTopology + `
resource "mlplatform_resource_flavor" "plain" {
  name        = "P-h100-plain"
  node_labels = mlplatform_gpu_pool.h100.node_selector
  tolerations = mlplatform_gpu_pool.h100.workload_tolerations
}
`
		}, ID: "MLP023", Sev: report.SevWarning},
		// The flavor-pool relation: a label the pool's nodes lack is an
		// error, and the pool's GPUs do not count for the flavor...
		"relation_extra_label": {Edit: repl("node_labels = mlplatform_gpu_pool.h100.node_selector",
			`node_labels = merge(mlplatform_gpu_pool.h100.node_selector, { "team" = "vision" })`), ID: "MLP005", Sev: report.SevError},
		// ...and a flavor with only the accelerator label stands for every
		// pool of that GPU: both count (16 GPUs of quota, 2 + 16 in the pools).
		"relation_accelerator": {Edit: func(s string) string {
			return repl("node_labels = mlplatform_gpu_pool.h100.node_selector", `node_labels = { "cloud.google.com/gke-accelerator" = "nvidia-a100-80gb" }`,
				`gpu         = { type = "nvidia-h100-80gb", count = 8 }`, "machine_type = \"a2-ultragpu-1g\"\n  gpu         = { type = \"nvidia-a100-80gb\", count = 1 }")(s) + `
resource "mlplatform_gpu_pool" "a100b" {
  name         = "P-a100b"
  machine_type = "a2-ultragpu-1g"
  gpu          = { type = "nvidia-a100-80gb", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 16 }
}
`
		}},
	}
}

// checkPrefix is a short, unique name prefix per case.
func checkPrefix(name string) string {
	if strings.HasPrefix(name, "mlp") {
		return "k" + strings.TrimPrefix(name, "mlp")
	}
	if words := strings.Split(name, "_"); len(words) > 1 {
		p := "k"
		for _, w := range words {
			p += w[:1]
		}
		return p
	}
	return "k" + name[:2]
}

func TestAccReportChecksOnRealPlans(t *testing.T) {
	acctest.Env(t)
	provider := acctest.ProviderConfig(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cli := acctest.NewCLI(ctx, t, root) // builds the provider once
	base := cli.Dir
	for name, tc := range realCheckCases() {
		hcl := strings.ReplaceAll(tc.Edit(checkBaseHCL), "P-", checkPrefix(name)+"-")
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(checkTerraformBlock+provider+hcl), 0o600); err != nil {
			t.Fatal(err)
		}
		cli.Dir = dir
		cli.Run("plan", "-input=false", "-no-color", "-out", "plan.tfplan")
		planJSON, err := planFixture(jsonOf(t, cli.Run("show", "-json", "plan.tfplan")))
		if err != nil {
			t.Fatal(err)
		}
		if report.Updating() {
			if err := os.WriteFile(filepath.Join("testdata", "real_check_"+name+".json"), planJSON, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		checkRealCase(t, name, tc, planJSON)
	}
}

func jsonOf(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("terraform show -json: %v", err)
	}
	return v
}

// checkRealCase compares the report with its golden and checks that the
// case's check reports (and decides --fail-on checks) as it should.
func checkRealCase(t *testing.T, name string, tc checkCase, planJSON []byte) {
	t.Helper()
	md, err := renderReport(planJSON)
	if err != nil {
		t.Fatal(err)
	}
	report.Golden(t, "real_check_"+name+".md", md)
	r := buildReport(t, planJSON)
	var got []string
	for _, f := range r.Checks {
		got = append(got, fmt.Sprintf("%s %s", f.ID, f.Severity))
	}
	switch tc.ID {
	case "":
		if len(r.Checks) != 0 || !strings.Contains(md, fmt.Sprintf("All %d checks passed.", report.CheckCount())) {
			t.Errorf("%s: want all checks passed, got %v", name, got)
		}
	default:
		want := fmt.Sprintf("%s %s", tc.ID, tc.Sev)
		found := false
		for _, g := range got {
			found = found || g == want
		}
		if !found {
			t.Errorf("%s: want a finding %q, got %v", name, want, got)
		}
	}
	if want := tc.ID != "" && tc.Sev != report.SevUndecided; r.ChecksFailed() != want {
		t.Errorf("%s: ChecksFailed() (--fail-on checks exits 6) = %v, want %v; findings %v", name, r.ChecksFailed(), want, got)
	}
}

// TestRealCheckFixtures renders the plans TestAccReportChecksOnRealPlans saved.
func TestRealCheckFixtures(t *testing.T) {
	t.Parallel()
	if report.Updating() && os.Getenv("TF_ACC") != "" {
		t.Skip("the acceptance test is rewriting the fixtures")
	}
	for name, tc := range realCheckCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			planJSON, err := os.ReadFile(filepath.Join("testdata", "real_check_"+name+".json"))
			if err != nil {
				t.Fatalf("%v (run TF_ACC=1 go test ./internal/report -run TestAccReportChecksOnRealPlans -update to create it)", err)
			}
			checkRealCase(t, name, tc, planJSON)
		})
	}
}

func buildReport(t *testing.T, planJSON []byte) report.Report {
	t.Helper()
	p, err := report.ReadPlan(bytes.NewReader(planJSON))
	if err != nil {
		t.Fatal(err)
	}
	return report.Build(p, report.Options{Prices: pricing.Default()})
}
