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

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
)

// The goldens of these tests come from real plans: terraform-plugin-testing
// runs the Terraform CLI with the provider in-process against the package's
// control plane (kube-apiserver + Kueue), and the plan it hands to a
// PreApply plan check is exactly what `terraform show -json PLANFILE`
// prints. Each case applies its Before platform, optionally edits the
// cluster out of band, and plans its After platform; the report of that plan
// is compared with testdata/real_<case>.md. With -update the report is
// rewritten, and so is testdata/real_<case>.json, the plan itself (the parts
// the report reads), which TestRealPlanFixtures renders without TF_ACC.
//
// Object names are fixed per case (a case prefix), so goldens are
// deterministic and cases can run in parallel on one control plane.

// quota is one flavor's nvidia.com/gpu quota of a team's ClusterQueue.
type quota struct {
	Flavor                      string
	Nominal, Borrowing, Lending string // "" = unset
}

type team struct {
	Name   string
	Quotas []quota
}

// platformHCL is a small training platform: flavors, one cohort, and per team
// a namespace, a ClusterQueue in the cohort and a LocalQueue.
type platformHCL struct {
	Flavors []string // e.g. "h100-spot"; node pool label = prefixed name
	Teams   []team
	// Pools are mlplatform_gpu_pool resources. A pool named
	// PREFIX-<flavor> has the node selector of that flavor's node labels, so
	// the report counts its GPUs for the flavor.
	Pools []pool
}

// pool is an H100 Spot or flex-start node pool (8 GPUs a node) for a flavor.
type pool struct {
	Flavor    string
	Capacity  string // spot or flex_start
	MaxNodes  int
	Partition string // MIG partition size, "" for whole GPUs
	MinNodes  int    // autoscaling.min_nodes: the nodes kept when nothing runs
}

func (p pool) render(prefix string) string {
	extra, gpu, minNodes := "", "", ""
	if p.MinNodes > 0 {
		minNodes = fmt.Sprintf("min_nodes = %d, ", p.MinNodes)
	}
	if p.Partition != "" {
		gpu = fmt.Sprintf(", partition_size = %q", p.Partition)
	}
	if p.Capacity == "flex_start" {
		extra = "\n  queued_provisioning = true"
	}
	return fmt.Sprintf(`
resource "mlplatform_gpu_pool" %[1]q {
  name        = "%[2]s-%[3]s"
  gpu         = { type = "nvidia-h100-80gb", count = 8%[7]s }
  capacity    = %[4]q%[5]s
  autoscaling = { %[8]smax_nodes = %[6]d }
}
`, ident(p.Flavor), prefix, p.Flavor, p.Capacity, extra, p.MaxNodes, gpu, minNodes)
}

func ident(s string) string { return strings.ReplaceAll(s, "-", "_") }

func (p platformHCL) render(prefix string) string {
	var b strings.Builder
	for _, f := range p.Flavors {
		fmt.Fprintf(&b, `
resource "mlplatform_resource_flavor" %[1]q {
  name        = "%[2]s-%[3]s"
  node_labels = { "cloud.google.com/gke-nodepool" = "%[2]s-%[3]s" }
  tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]

  # Retiring a flavor in one apply: without this Terraform deletes the flavor
  # before it updates the queues that stop naming it, and the delete is
  # refused while they still do. With it, the queues are updated first.
  lifecycle {
    create_before_destroy = true
  }
}
`, ident(f), prefix, f)
	}
	fmt.Fprintf(&b, `
resource "mlplatform_cohort" "research" {
  name = "%s-research"
}
`, prefix)
	for _, t := range p.Teams {
		var flavors []string
		for _, q := range t.Quotas {
			r := fmt.Sprintf(`{ name = "nvidia.com/gpu", nominal_quota = %q`, q.Nominal)
			if q.Borrowing != "" {
				r += fmt.Sprintf(", borrowing_limit = %q", q.Borrowing)
			}
			if q.Lending != "" {
				r += fmt.Sprintf(", lending_limit = %q", q.Lending)
			}
			flavors = append(flavors, fmt.Sprintf("      { name = mlplatform_resource_flavor.%s.name, resources = [%s }] },", ident(q.Flavor), r))
		}
		fmt.Fprintf(&b, `
resource "mlplatform_team_namespace" %[1]q {
  name = "%[2]s-team-%[3]s"
  team = %[3]q
}

resource "mlplatform_cluster_queue" %[1]q {
  name               = "%[2]s-team-%[3]s"
  cohort             = mlplatform_cohort.research.name
  namespace_selector = mlplatform_team_namespace.%[1]s.selector
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [
%[4]s
    ]
  }]
}

resource "mlplatform_local_queue" %[1]q {
  namespace     = mlplatform_team_namespace.%[1]s.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.%[1]s.name
}
`, ident(t.Name), prefix, t.Name, strings.Join(flavors, "\n"))
	}
	for _, pl := range p.Pools {
		b.WriteString(pl.render(prefix))
	}
	return b.String()
}

// planCase is one golden: apply Before, run OutOfBand (if set) against the
// cluster, plan After and report on that plan.
type planCase struct {
	Prefix        string // unique per case: object names and so the golden
	Before, After platformHCL
	OutOfBand     func(t *testing.T, prefix string)
}

// realPlanCases are the goldens on real plans.
func realPlanCases() map[string]planCase {
	twoTeams := func(visionH100, nlpBorrow string) platformHCL {
		return platformHCL{
			Flavors: []string{"l4-dev", "h100-spot"},
			Teams: []team{
				{Name: "vision", Quotas: []quota{{Flavor: "l4-dev", Nominal: "4"}, {Flavor: "h100-spot", Nominal: visionH100, Lending: "4"}}},
				{Name: "nlp", Quotas: []quota{{Flavor: "l4-dev", Nominal: "8"}, {Flavor: "h100-spot", Nominal: "8", Borrowing: nlpBorrow}}},
			},
		}
	}
	return map[string]planCase{
		// Team vision gets 8 more H100s; team nlp may now borrow up to 8.
		"quota_increase": {Prefix: "rq", Before: twoTeams("8", ""), After: twoTeams("16", "8")},
		// A third team joins the cohort: namespace, ClusterQueue, LocalQueue.
		"new_team": {Prefix: "rn", Before: twoTeams("8", ""), After: func() platformHCL {
			p := twoTeams("8", "")
			p.Teams = append(p.Teams, team{Name: "speech", Quotas: []quota{{Flavor: "l4-dev", Nominal: "2"}, {Flavor: "h100-spot", Nominal: "16"}}})
			return p
		}()},
		// The L4 dev flavor is retired: dropped from both queues, then deleted.
		"flavor_removed": {Prefix: "rf", Before: twoTeams("8", ""), After: func() platformHCL {
			p := twoTeams("8", "")
			p.Flavors = []string{"h100-spot"}
			for i := range p.Teams {
				p.Teams[i].Quotas = p.Teams[i].Quotas[1:]
			}
			return p
		}()},
		// Someone runs kubectl edit clusterqueue and raises vision's H100
		// quota from 8 to 24; the next plan shows it and puts 8 back.
		"drift": {Prefix: "rd", Before: twoTeams("8", ""), After: twoTeams("8", ""), OutOfBand: kubectlEditNominal("team-vision", 1, "24")},
		// Two H100 Spot nodes (16 GPUs) back h100-spot; team vision's quota
		// goes from 8 to 16, so the queues may admit 24: over-commit by 8.
		"overcommit": {Prefix: "ro", Before: withPools(twoTeams("8", ""), pool{"h100-spot", "spot", 2, "", 0}),
			After: withPools(twoTeams("16", ""), pool{"h100-spot", "spot", 2, "", 0})},
		// MIG on the pool: GKE cannot change a partition size in place, so the
		// pool is replaced, and the report opens with it.
		"partition_replace": {Prefix: "rp", Before: withPools(twoTeams("8", ""), pool{"h100-spot", "spot", 2, "", 0}),
			After: withPools(twoTeams("8", ""), pool{"h100-spot", "spot", 2, "3g.40gb", 0})},
		// The Spot pool may grow from 2 to 3 nodes and the flex-start pool
		// from 2 to 4: cost per hour and per 7-day flex-start window. The
		// Spot pool also keeps one node when nothing runs (min_nodes 0 → 1):
		// its idle floor goes from $0.00 to the price of 8 H100s at spot.
		"cost_change": {Prefix: "rc",
			Before: withPools(withFlavor(twoTeams("8", ""), "h100-flex", "8"), pool{"h100-spot", "spot", 2, "", 0}, pool{"h100-flex", "flex_start", 2, "", 0}),
			After:  withPools(withFlavor(twoTeams("8", ""), "h100-flex", "8"), pool{"h100-spot", "spot", 3, "", 1}, pool{"h100-flex", "flex_start", 4, "", 0})},
	}
}

func withPools(p platformHCL, pools ...pool) platformHCL {
	p.Pools = append(p.Pools, pools...)
	return p
}

// withFlavor adds a flavor and gives every team nominal GPUs of it.
func withFlavor(p platformHCL, flavor, nominal string) platformHCL {
	p.Flavors = append(p.Flavors, flavor)
	teams := make([]team, len(p.Teams))
	for i, t := range p.Teams {
		t.Quotas = append(append([]quota(nil), t.Quotas...), quota{Flavor: flavor, Nominal: nominal})
		teams[i] = t
	}
	p.Teams = teams
	return p
}

// kubectlEditNominal sets the nvidia.com/gpu nominal quota of a queue's
// flavor (by index in resource group 0) as kubectl edit would: an update
// under another field manager.
func kubectlEditNominal(queue string, flavor int, value string) func(t *testing.T, prefix string) {
	return func(t *testing.T, prefix string) {
		t.Helper()
		_, kq := acctest.Kube(t)
		cqs := kq.KueueV1beta2().ClusterQueues()
		ctx := context.Background()
		name := prefix + "-" + queue
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cq, err := cqs.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			res := cq.Spec.ResourceGroups[0].Flavors[flavor].Resources
			for i := range res {
				if res[i].Name == "nvidia.com/gpu" {
					res[i].NominalQuota = k8sresource.MustParse(value)
				}
			}
			_, err = cqs.Update(ctx, cq, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
			return err
		})
		if err != nil {
			t.Fatalf("editing ClusterQueue %s out of band: %v", name, err)
		}
	}
}

func TestAccReportOnRealPlans(t *testing.T) {
	acctest.Env(t)
	for name, tc := range realPlanCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			provider := acctest.ProviderConfig(t)
			outOfBand := func() {}
			if tc.OutOfBand != nil {
				outOfBand = func() { tc.OutOfBand(t, tc.Prefix) }
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{
					{Config: provider + tc.Before.render(tc.Prefix)},
					{
						PreConfig: outOfBand,
						Config:    provider + tc.After.render(tc.Prefix),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply:             []plancheck.PlanCheck{reportGolden(t, name)},
							PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
						},
					},
				},
			})
		})
	}
}

// reportGolden reports on the plan and compares the Markdown with
// testdata/real_<name>.md; with -update it also saves the plan.
func reportGolden(t *testing.T, name string) plancheck.PlanCheck {
	return reportCheck{t: t, name: name}
}

type reportCheck struct {
	t    *testing.T
	name string
}

func (c reportCheck) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	planJSON, err := planFixture(req.Plan)
	if err != nil {
		resp.Error = err
		return
	}
	md, err := renderReport(planJSON)
	if err != nil {
		resp.Error = err
		return
	}
	if report.Updating() {
		if err := os.WriteFile(filepath.Join("testdata", "real_"+c.name+".json"), planJSON, 0o644); err != nil {
			resp.Error = err
			return
		}
	}
	report.Golden(c.t, "real_"+c.name+".md", md)
}

// planFixture keeps the parts of a plan the report reads, indented, so the
// saved plan is reviewable and holds nothing specific to the machine: of
// the configuration section (which would name the test's kubeconfig path)
// only each resource's address and provider_config_key.
func planFixture(plan any) ([]byte, error) {
	full, err := json.Marshal(plan)
	if err != nil {
		return nil, err
	}
	var parts struct {
		FormatVersion   string                `json:"format_version"`
		ResourceDrift   json.RawMessage       `json:"resource_drift,omitempty"`
		ResourceChanges json.RawMessage       `json:"resource_changes,omitempty"`
		Configuration   *report.Configuration `json:"configuration,omitempty"`
	}
	if err := json.Unmarshal(full, &parts); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(parts, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}

func renderReport(planJSON []byte) (string, error) {
	p, err := report.ReadPlan(bytes.NewReader(planJSON))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := report.Render(&b, report.Build(p, report.Options{Prices: pricing.Default()}), report.Markdown); err != nil {
		return "", err
	}
	return b.String(), nil
}

// TestRealPlanFixtures renders the plans saved by TestAccReportOnRealPlans,
// so the reports on real plans are checked without a control plane too.
func TestRealPlanFixtures(t *testing.T) {
	t.Parallel()
	if report.Updating() && os.Getenv("TF_ACC") != "" {
		t.Skip("the acceptance test is rewriting the fixtures")
	}
	for name := range realPlanCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			planJSON, err := os.ReadFile(filepath.Join("testdata", "real_"+name+".json"))
			if err != nil {
				t.Fatalf("%v (run TF_ACC=1 go test ./internal/report -run TestAccReportOnRealPlans -update to create it)", err)
			}
			md, err := renderReport(planJSON)
			if err != nil {
				t.Fatal(err)
			}
			report.Golden(t, "real_"+name+".md", md)
		})
	}
}
