package resources_test

import (
	"context"
	"fmt"
	"maps"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// gkeClient is the official GKE client pointed at srv, for out-of-band
// reads and edits.
func gkeClient(t testing.TB, srv *fakegcp.Server) *gke.Client {
	t.Helper()
	c, err := gke.New(context.Background(), srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

const sandboxCluster = "projects/" + testenv.DefaultProject + "/locations/" + testenv.DefaultLocation + "/clusters/" + testenv.DefaultCluster

func poolName(name string) string { return sandboxCluster + "/nodePools/" + name }

// getPool reads a node pool; nil when it does not exist.
func getPool(t testing.TB, c *gke.Client, name string) *containerpb.NodePool {
	t.Helper()
	np, err := c.GetNodePool(context.Background(), poolName(name))
	if status.Code(err) == codes.NotFound {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return np
}

// outOfBand runs one GKE mutation as gcloud would, retrying while the
// cluster is busy (other tests share it), and waits until it is done.
func outOfBand(t testing.TB, c *gke.Client, call func(ctx context.Context) (*containerpb.Operation, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		op, err := call(ctx)
		if status.Code(err) == codes.FailedPrecondition || status.Code(err) == codes.ResourceExhausted {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		name := op.GetSelfLink()[strings.Index(op.GetSelfLink(), "projects/"):]
		for op.GetStatus() != containerpb.Operation_DONE {
			time.Sleep(20 * time.Millisecond)
			if op, err = c.GetOperation(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
}

// poolCheck asserts on the node pool GKE holds.
func poolCheck(t *testing.T, c *gke.Client, name string, check func(np *containerpb.NodePool) error) resource.TestCheckFunc {
	return func(*terraform.State) error {
		np := getPool(t, c, name)
		if np == nil {
			return fmt.Errorf("node pool %s does not exist", name)
		}
		return check(np)
	}
}

func poolGone(t *testing.T, c *gke.Client, names ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		for _, n := range names {
			if np := getPool(t, c, n); np != nil {
				return fmt.Errorf("node pool %s still exists after destroy (status %s)", n, np.GetStatus())
			}
		}
		return nil
	}
}

func expect[T comparable](what string, got, want T) error {
	if got != want {
		return fmt.Errorf("%s = %v, want %v", what, got, want)
	}
	return nil
}

// words turns "a b c" into a regexp that allows Terraform's line wrapping
// between the words.
func words(s string) string {
	parts := strings.Fields(s)
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, `\s+`)
}

func gpuTolerations(extra ...knownvalue.Check) knownvalue.Check {
	gpu := knownvalue.ObjectExact(map[string]knownvalue.Check{
		"key": knownvalue.StringExact("nvidia.com/gpu"), "operator": knownvalue.StringExact("Exists"), "value": knownvalue.Null(),
		"effect": knownvalue.StringExact("NoSchedule"), "toleration_seconds": knownvalue.Null(),
	})
	return knownvalue.ListExact(append([]knownvalue.Check{gpu}, extra...))
}

func l4Config(t *testing.T, maxNodes int, labels, gpu string) string {
	return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_gpu_pool" "l4" {
  name           = "acc-l4-spot"
  node_locations = ["us-central1-a", "us-central1-b"]
  %s
  capacity       = "spot"
  autoscaling    = { max_nodes = %d }
  labels         = { %s }
  taints = {
    "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" }
  }
  resource_labels = { team = "vision", owner = "ml-infra" }
}
`, gpu, maxNodes, labels)
}

const l4GPU = `machine_type = "g2-standard-8"
  gpu = { type = "nvidia-l4", count = 1 }`

func TestAccGPUPoolL4Spot(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	c := gkeClient(t, env.GCP)
	const addr, name = "mlplatform_gpu_pool.l4", "acc-l4-spot"
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	spotToleration := knownvalue.ObjectExact(map[string]knownvalue.Check{
		"key": knownvalue.StringExact("cloud.google.com/gke-spot"), "operator": knownvalue.StringExact("Equal"), "value": knownvalue.StringExact("true"),
		"effect": knownvalue.StringExact("NoSchedule"), "toleration_seconds": knownvalue.Null(),
	})

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, name),
		Steps: []resource.TestStep{
			{
				Config: l4Config(t, 4, `team = "vision"`, l4GPU),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{ // a flavor can use these before the pool exists
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_selector"), knownvalue.MapExact(map[string]knownvalue.Check{
							"cloud.google.com/gke-nodepool": knownvalue.StringExact(name)})),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("workload_tolerations"), gpuTolerations(spotToleration)),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("autoscaling").AtMapKey("location_policy"), knownvalue.StringExact("any")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(l4SpotHourly(4))),
					},
					PostApplyPostRefresh: empty,
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					cfg := np.GetConfig()
					a := np.GetAutoscaling()
					rl := cfg.GetResourceLabels()
					return joinErrs(
						expect("spot", cfg.GetSpot(), true),
						expect("autoscaling", vals(a.GetEnabled(), a.GetTotalMinNodeCount(), a.GetTotalMaxNodeCount(), a.GetLocationPolicy()), "true 0 4 ANY"),
						expect("initial node count", np.GetInitialNodeCount(), int32(0)),
						expect("workload metadata", cfg.GetWorkloadMetadataConfig().GetMode(), containerpb.WorkloadMetadataConfig_GKE_METADATA),
						expect("cost labels", vals(rl["team"], rl["mlplatform-pool"], rl["mlplatform-gpu"], rl["mlplatform-capacity"]), "vision acc-l4-spot nvidia-l4 spot"),
						expect("GKE's provisioning label", rl["goog-gke-node-pool-provisioning-model"], "spot"),
						expect("taints", len(cfg.GetTaints()), 2), // ours and GKE's nvidia.com/gpu
					)
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("taints"), knownvalue.MapSizeExact(1)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_taints"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("effective_labels").AtMapKey("goog-gke-node-pool-provisioning-model"), knownvalue.StringExact("spot")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("status"), knownvalue.StringExact("RUNNING")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("instance_group_urls"), knownvalue.ListSizeExact(2)),
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: poolName(name), ImportStateVerify: true},
			{ResourceName: addr, ImportState: true, ImportStateVerify: true,
				ImportStateId: fmt.Sprintf("%s/%s/%s/%s", testenv.DefaultProject, testenv.DefaultLocation, testenv.DefaultCluster, name)},
			{ // in place: more nodes and a label, two GKE requests, no replacement
				Config: l4Config(t, 8, `team = "vision", tier = "dev"`, l4GPU),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges(addr, "autoscaling.max_nodes", "labels.tier", "estimated_hourly_cost_usd"),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"), knownvalue.Float64Exact(l4SpotHourly(8))),
					},
					PostApplyPostRefresh: empty,
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					return joinErrs(expect("max nodes", np.GetAutoscaling().GetTotalMaxNodeCount(), int32(8)),
						expect("tier label", np.GetConfig().GetLabels()["tier"], "dev"))
				}),
			},
			{ // someone raises the autoscaler's limit with gcloud: the plan shows it and apply puts it back
				PreConfig: func() {
					outOfBand(t, c, func(ctx context.Context) (*containerpb.Operation, error) {
						return c.SetNodePoolAutoscaling(ctx, poolName(name), &containerpb.NodePoolAutoscaling{
							Enabled: true, TotalMaxNodeCount: 20, LocationPolicy: containerpb.NodePoolAutoscaling_ANY})
					})
				},
				Config: l4Config(t, 8, `team = "vision", tier = "dev"`, l4GPU),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectDriftAt(addr, []any{"autoscaling", "max_nodes"}, 8, 20),
						acctest.ExpectDrift(addr, "estimated_hourly_cost_usd", l4SpotHourly(8), l4SpotHourly(20)),
					},
					PostApplyPostRefresh: empty,
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					return expect("max nodes", np.GetAutoscaling().GetTotalMaxNodeCount(), int32(8))
				}),
			},
			{ // someone edits a default cost label in the console: the plan shows it and apply puts it back
				PreConfig: func() {
					outOfBand(t, c, func(ctx context.Context) (*containerpb.Operation, error) {
						np := getPool(t, c, name)
						labels := maps.Clone(np.GetConfig().GetResourceLabels())
						labels["mlplatform-pool"] = "renamed"
						return c.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: poolName(name),
							ResourceLabels: &containerpb.ResourceLabels{Labels: labels}})
					})
				},
				Config: l4Config(t, 8, `team = "vision", tier = "dev"`, l4GPU),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectDriftAt(addr, []any{"effective_labels", "mlplatform-pool"}, name, "renamed"),
						acctest.ExpectOnlyChanges(addr, "effective_labels.mlplatform-pool"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					return expect("cost label", np.GetConfig().GetResourceLabels()["mlplatform-pool"], name)
				}),
			},
			{ // another GPU type: GKE cannot change it in place, so the plan replaces the pool
				Config: l4Config(t, 8, `team = "vision", tier = "dev"`, `machine_type = "a3-highgpu-1g"
  gpu = { type = "nvidia-h100-80gb", count = 1 }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_selector"), knownvalue.MapSizeExact(1)),
					},
					PostApplyPostRefresh: empty,
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					return expect("accelerator", np.GetConfig().GetAccelerators()[0].GetAcceleratorType(), "nvidia-h100-80gb")
				}),
			},
		},
	})
}

// vals prints values separated by spaces.
func vals(xs ...any) string { return strings.TrimSpace(fmt.Sprintln(xs...)) }

func joinErrs(errs ...error) error {
	var msgs []string
	for _, e := range errs {
		if e != nil {
			msgs = append(msgs, e.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// An 8×H100 flex-start pool with queued provisioning, wired into a Kueue
// flavor: the flavor's labels and tolerations are known at plan time.
func TestAccGPUPoolH100FlexStart(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	c := gkeClient(t, env.GCP)
	const addr, name = "mlplatform_gpu_pool.h100", "acc-h100-flex"
	config := acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "h100" {
  name                = "acc-h100-flex"
  gpu                 = { type = "nvidia-h100-80gb", count = 8, driver = "latest" }
  capacity            = "flex_start"
  queued_provisioning = true
  max_run_duration    = "72h"
  autoscaling         = { max_nodes = 4 }
  resource_labels     = { team = "nlp" }
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "acc-h100-flex"
  node_labels = mlplatform_gpu_pool.h100.node_selector
  tolerations = mlplatform_gpu_pool.h100.workload_tolerations
}
`
	queued := knownvalue.ObjectExact(map[string]knownvalue.Check{
		"key": knownvalue.StringExact("cloud.google.com/gke-queued"), "operator": knownvalue.StringExact("Exists"), "value": knownvalue.Null(),
		"effect": knownvalue.StringExact("NoSchedule"), "toleration_seconds": knownvalue.Null(),
	})
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, name),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("machine_type"), knownvalue.StringExact("a3-highgpu-8g")),
						plancheck.ExpectKnownValue("mlplatform_resource_flavor.h100", tfjsonpath.New("node_labels"), knownvalue.MapExact(map[string]knownvalue.Check{
							"cloud.google.com/gke-nodepool": knownvalue.StringExact(name)})),
						plancheck.ExpectKnownValue("mlplatform_resource_flavor.h100", tfjsonpath.New("tolerations"), gpuTolerations(queued)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					cfg := np.GetConfig()
					return joinErrs(
						expect("queued provisioning", np.GetQueuedProvisioning().GetEnabled(), true),
						expect("reservation affinity", cfg.GetReservationAffinity().GetConsumeReservationType(), containerpb.ReservationAffinity_NO_RESERVATION),
						expect("max run duration", cfg.GetMaxRunDuration().AsDuration(), 72*time.Hour),
						expect("min nodes", np.GetAutoscaling().GetTotalMinNodeCount(), int32(0)),
						expect("location policy", np.GetAutoscaling().GetLocationPolicy(), containerpb.NodePoolAutoscaling_ANY),
						expect("driver", cfg.GetAccelerators()[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion(), containerpb.GPUDriverInstallationConfig_LATEST),
						expect("capacity label", cfg.GetResourceLabels()["mlplatform-capacity"], "flex-start"),
					)
				}),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: poolName(name), ImportStateVerify: true},
			{ // max run duration and driver change in place
				Config: strings.Replace(strings.Replace(config, `"72h"`, `"24h"`, 1), `"latest"`, `"default"`, 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges(addr, "max_run_duration", "gpu.driver"),
						plancheck.ExpectResourceAction("mlplatform_resource_flavor.h100", plancheck.ResourceActionNoop),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					return expect("max run duration", np.GetConfig().GetMaxRunDuration().AsDuration(), 24*time.Hour)
				}),
			},
		},
	})
}

func TestAccGPUPoolReservation(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	c := gkeClient(t, env.GCP)
	const addr, name = "mlplatform_gpu_pool.a100", "acc-a100-res"
	config := func(disk int) string {
		return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_gpu_pool" "a100" {
  name           = "acc-a100-res"
  node_locations = ["us-central1-c"]
  gpu            = { type = "nvidia-a100-80gb", count = 8 }
  capacity       = "reservation"
  reservation    = { affinity = "specific", name = "a100-block-1" }
  placement      = "compact"
  autoscaling    = { min_nodes = 1, max_nodes = 2 }
  disk           = { size_gb = %d, type = "pd-ssd" }
}
`, disk)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, name),
		Steps: []resource.TestStep{
			{
				Config:           config(500),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					ra := np.GetConfig().GetReservationAffinity()
					return joinErrs(
						expect("reservation", vals(ra.GetConsumeReservationType(), ra.GetKey(), ra.GetValues()),
							"SPECIFIC_RESERVATION compute.googleapis.com/reservation-name [a100-block-1]"),
						expect("placement", np.GetPlacementPolicy().GetType(), containerpb.NodePool_PlacementPolicy_COMPACT),
						expect("machine type", np.GetConfig().GetMachineType(), "a2-ultragpu-8g"),
						expect("disk", vals(np.GetConfig().GetDiskSizeGb(), np.GetConfig().GetDiskType()), "500 pd-ssd"),
						expect("location policy", np.GetAutoscaling().GetLocationPolicy(), containerpb.NodePoolAutoscaling_BALANCED),
					)
				}),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: poolName(name), ImportStateVerify: true},
			{
				Config: config(1000),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{acctest.ExpectOnlyChanges(addr, "disk.size_gb")},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					return expect("disk size", np.GetConfig().GetDiskSizeGb(), int32(1000))
				}),
			},
		},
	})
}

func TestAccGPUPoolValidation(t *testing.T) {
	t.Parallel()
	l4 := `machine_type = "g2-standard-8"
  gpu = { type = "nvidia-l4", count = 1 }
  autoscaling = { max_nodes = 2 }`
	h100 := `gpu = { type = "nvidia-h100-80gb", count = 8 }
  capacity = "flex_start"`
	cases := map[string]struct{ body, want string }{
		"bad name": {`name = "L4_Dev"
  ` + l4, `Invalid Node Pool Name.*Attribute name:`},
		"unknown gpu": {`gpu = { type = "nvidia-tesla-k80", count = 1 }
  autoscaling = { max_nodes = 2 }`, `Unknown GPU Type.*Attribute gpu.type:`},
		"count not offered": {`gpu = { type = "nvidia-l4", count = 3 }
  autoscaling = { max_nodes = 2 }`, `GPU Count Not Offered.*Attribute gpu.count:.*1, 2, 4 or 8`},
		"machine does not match gpu": {`machine_type = "a3-highgpu-8g"
  gpu = { type = "nvidia-l4", count = 2 }
  autoscaling = { max_nodes = 2 }`, `Machine Type Does Not Match GPU.*Attribute machine_type:.*g2-standard-24`},
		"machine type ambiguous": {`gpu = { type = "nvidia-l4", count = 1 }
  autoscaling = { max_nodes = 2 }`, `Machine Type Needed.*Attribute machine_type:.*g2-standard-4`},
		"unknown capacity":    {l4 + "\n  capacity = \"preemptible\"", `Invalid Capacity.*Attribute\s+capacity:.*on_demand,\s+spot,\s+flex_start`},
		"reservation missing": {l4 + "\n  capacity = \"reservation\"", `Reservation Missing.*Attribute reservation:`},
		"specific reservation without name": {l4 + "\n  capacity = \"reservation\"\n  reservation = { affinity = \"specific\" }",
			`Reservation Name Missing.*Attribute reservation.name:`},
		"reservation with spot":     {l4 + "\n  capacity = \"spot\"\n  reservation = { affinity = \"any\" }", `Reservation Without Reservation\s+Capacity.*Attribute reservation:`},
		"run duration without flex": {l4 + "\n  max_run_duration = \"24h\"", `Max Run Duration Needs Flex-Start.*Attribute max_run_duration:`},
		"run duration over 7 days": {h100 + "\n  max_run_duration = \"200h\"\n  autoscaling = { max_nodes = 2 }",
			`Max Run Duration Out Of Range.*Attribute max_run_duration:`},
		"run duration in days": {h100 + "\n  max_run_duration = \"7d\"\n  autoscaling = { max_nodes = 2 }", `Invalid Duration.*Attribute max_run_duration:.*168h`},
		"flex-start with min nodes": {h100 + "\n  autoscaling = { min_nodes = 1, max_nodes = 2 }",
			`Flex-Start Pools Scale From Zero.*Attribute autoscaling.min_nodes:`},
		"min above max": {`machine_type = "g2-standard-8"
  gpu = { type = "nvidia-l4", count = 1 }
  autoscaling = { min_nodes = 5, max_nodes = 2 }`, `Min Nodes Above Max Nodes.*Attribute autoscaling.min_nodes:`},
		"max nodes zero": {`machine_type = "g2-standard-8"
  gpu = { type = "nvidia-l4", count = 1 }
  autoscaling = { max_nodes = 0 }`, `Max Nodes Below One.*Attribute\s+autoscaling.max_nodes:`},
		"queued with compact placement": {h100 + "\n  queued_provisioning = true\n  placement = \"compact\"\n  autoscaling = { max_nodes = 2 }",
			`Compact Placement With Queued\s+Provisioning.*Attribute placement:`},
		"queued without flex-start": {l4 + "\n  queued_provisioning = true", `Queued Provisioning Needs Flex-Start.*Attribute queued_provisioning:`},
		"zone outside the region":   {l4 + "\n  node_locations = [\"europe-west4-a\"]", `Zone Outside The Cluster's Region.*Attribute node_locations:`},
		"reserved node label":       {l4 + "\n  labels = { \"cloud.google.com/gke-spot\" = \"true\" }", `Reserved Node Label.*Attribute\s+labels\["cloud.google.com/gke-spot"\]:`},
		"GPU taint is GKE's":        {l4 + "\n  taints = { \"nvidia.com/gpu\" = { value = \"present\", effect = \"NoSchedule\" } }", `GPU Taint Is Added By GKE.*Attribute\s+taints\["nvidia.com/gpu"\]:`},
		"bad taint effect":          {l4 + "\n  taints = { dedicated = { effect = \"NoRun\" } }", `Invalid Taint Effect.*Attribute\s+taints\["dedicated"\].effect:`},
		"upper-case resource label": {l4 + "\n  resource_labels = { Team = \"vision\" }", `Invalid Resource Label Key.*Attribute\s+resource_labels\["Team"\]:`},
		"unknown driver": {`machine_type = "g2-standard-8"
  gpu = { type = "nvidia-l4", count = 1, driver = "newest" }
  autoscaling = { max_nodes = 2 }`, `Invalid GPU Driver.*Attribute\s+gpu.driver:`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body := tc.body
			if !strings.Contains(body, "name =") {
				body = "name = \"x\"\n  " + body
			}
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config: acctest.PlanOnlyProvider(`project = "p"`, `location = "us-central1"`, `cluster = "c"`) + `
resource "mlplatform_gpu_pool" "x" {
  ` + body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(`(?s)` + tc.want),
				}},
			})
		})
	}
}

// ---- serialization, stockout, benchmark: each on its own GKE fake -------------

// ownFake starts a GKE fake holding the sandbox cluster and returns it with
// a provider block pointed at it.
func ownFake(t testing.TB, opts ...fakegcp.Option) (*fakegcp.Server, string) {
	t.Helper()
	srv := fakegcp.New(opts...)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.Container.AddCluster(testenv.DefaultProject, testenv.DefaultLocation, testenv.DefaultCluster, true)
	return srv, fmt.Sprintf(`
provider "mlplatform" {
  project            = %q
  location           = %q
  cluster            = %q
  container_endpoint = %q
  iam_endpoint       = %q
  insecure_endpoints = true
  kubeconfig         = "/nonexistent"
}
`, testenv.DefaultProject, testenv.DefaultLocation, testenv.DefaultCluster, srv.Addr(), srv.Addr())
}

// sixPools is one apply of six pools on one cluster (Terraform's default
// parallelism, 10, starts all six at once). One block each: the legacy
// state the Check functions see does not support for_each.
var sixPools = func() string {
	var b strings.Builder
	for _, p := range []struct {
		name, gpu string
		count     int
		capacity  string
	}{
		{"l4-dev", "nvidia-l4", 2, "spot"}, {"l4-batch", "nvidia-l4", 4, "on_demand"},
		{"h100-spot", "nvidia-h100-80gb", 8, "spot"}, {"h100-flex", "nvidia-h100-80gb", 8, "flex_start"},
		{"a100-spot", "nvidia-a100-80gb", 8, "spot"}, {"a100-40-dev", "nvidia-tesla-a100", 1, "on_demand"},
	} {
		fmt.Fprintf(&b, `
resource "mlplatform_gpu_pool" %q {
  name        = %q
  gpu         = { type = %q, count = %d }
  capacity    = %q
  autoscaling = { max_nodes = 4 }
}
`, p.name, p.name, p.gpu, p.count, p.capacity)
	}
	return b.String()
}()

func TestAccGPUPoolSixPoolsOneOperationAtATime(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	const latency = 300 * time.Millisecond
	srv, provider := ownFake(t, fakegcp.WithOpLatency(latency)) // classic GKE: one operation per cluster
	c := gkeClient(t, srv)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config:           provider + sixPools,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			Check: func(*terraform.State) error {
				resp, err := c.CM.ListNodePools(context.Background(), &containerpb.ListNodePoolsRequest{Parent: sandboxCluster})
				if err != nil {
					return err
				}
				running := 0
				for _, np := range resp.GetNodePools() {
					if np.GetStatus() == containerpb.NodePool_RUNNING {
						running++
					}
				}
				return joinErrs(
					expect("running pools (default-pool + 6)", running, 7),
					expect("most operations at once", srv.Container.MaxConcurrentOps(sandboxCluster), 1),
					// Queued in the provider, not bounced by GKE: one request per pool.
					expect("CreateNodePool requests", srv.Requests()["/google.container.v1.ClusterManager/CreateNodePool"], 6),
				)
			},
		}},
	})
}

func TestAccGPUPoolStockout(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	srv, provider := ownFake(t)
	c := gkeClient(t, srv)
	srv.Container.SetFailNodePoolCreate(func(np *containerpb.NodePool) *rpcstatus.Status {
		return fakegcp.GCEStockout(testenv.DefaultProject, np.GetLocations()[0])
	})
	config := provider + `
resource "mlplatform_gpu_pool" "l4" {
  name           = "l4-dev"
  node_locations = ["us-central1-a"]
  machine_type   = "g2-standard-8"
  gpu            = { type = "nvidia-l4", count = 1 }
  capacity       = "spot"
  autoscaling    = { max_nodes = 2 }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, "l4-dev"),
		Steps: []resource.TestStep{
			{
				Config: config,
				ExpectError: regexp.MustCompile(`(?s)Could Not Create GPU Pool l4-dev.*` + words("no spot capacity for 1 × nvidia-l4 (g2-standard-8) in zone us-central1-a") +
					`.*` + words("deleted the half-created pool") + `.*` + words("Original error:") + `.*GCE_STOCKOUT`),
			},
			{
				PreConfig: func() {
					if np := getPool(t, c, "l4-dev"); np != nil {
						t.Fatalf("the failed create left node pool l4-dev behind (status %s)", np.GetStatus())
					}
					srv.Container.SetFailNodePoolCreate(nil) // capacity is back
				},
				Config:           config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				Check: poolCheck(t, c, "l4-dev", func(np *containerpb.NodePool) error {
					return expect("status", np.GetStatus(), containerpb.NodePool_RUNNING)
				}),
			},
		},
	})
}

// benchT lets a benchmark drive resource.Test.
type benchT struct{ *testing.B }

func (benchT) Parallel() {}

// BenchmarkSixPoolApply measures `terraform apply` of six pools against a
// GKE that runs one operation per cluster, each taking opLatency: the floor
// is pools × latency (serial-floor-s). apply-s is the whole apply as
// Terraform runs it; gke-span-s is first operation start to last end.
func BenchmarkSixPoolApply(b *testing.B) {
	acctest.Env(b)
	const latency, pools = 500 * time.Millisecond, 6
	var apply, span time.Duration
	for range b.N {
		srv, provider := ownFake(b, fakegcp.WithOpLatency(latency))
		c := gkeClient(b, srv)
		var start time.Time
		resource.Test(benchT{b}, resource.TestCase{
			ProtoV6ProviderFactories: acctest.Factories(),
			Steps: []resource.TestStep{{
				PreConfig: func() { start = time.Now() },
				Config:    provider + sixPools,
				Check: func(*terraform.State) error {
					apply += time.Since(start)
					s, err := createSpan(c)
					span += s
					return err
				},
			}},
		})
	}
	n := float64(b.N)
	b.ReportMetric(apply.Seconds()/n, "apply-s")
	b.ReportMetric(span.Seconds()/n, "gke-span-s")
	b.ReportMetric((pools * latency).Seconds(), "serial-floor-s")
	b.ReportMetric(span.Seconds()/n/(pools*latency).Seconds(), "span/floor")
}

// createSpan is the time from the first CREATE_NODE_POOL operation's start
// to the last one's end.
func createSpan(c *gke.Client) (time.Duration, error) {
	resp, err := c.CM.ListOperations(context.Background(), &containerpb.ListOperationsRequest{
		Parent: "projects/" + testenv.DefaultProject + "/locations/" + testenv.DefaultLocation})
	if err != nil {
		return 0, err
	}
	var first, last time.Time
	for _, op := range resp.GetOperations() {
		if op.GetOperationType() != containerpb.Operation_CREATE_NODE_POOL {
			continue
		}
		s, err1 := time.Parse(time.RFC3339Nano, op.GetStartTime())
		e, err2 := time.Parse(time.RFC3339Nano, op.GetEndTime())
		if err1 != nil || err2 != nil {
			return 0, fmt.Errorf("operation %s: times %q..%q", op.GetName(), op.GetStartTime(), op.GetEndTime())
		}
		if first.IsZero() || s.Before(first) {
			first = s
		}
		if e.After(last) {
			last = e
		}
	}
	return last.Sub(first), nil
}

// l4SpotHourly is the default table's cost of n g2-standard-8 spot nodes
// (one L4 each) per hour, to the cent.
func l4SpotHourly(n int) float64 {
	usd, ok := pricing.Default().PoolHourly("nvidia-l4", "spot", n, 1)
	if !ok {
		panic("the default price table has no L4 spot price")
	}
	return math.Round(usd*100) / 100
}
