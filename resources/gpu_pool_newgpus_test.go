package resources_test

import (
	"fmt"
	"math"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

// poolHourly is the default table's price of a pool at its maximum, as
// estimated_hourly_cost_usd rounds it.
func poolHourly(accel, capacity string, nodes, gpus int) float64 {
	usd, ok := pricing.Default().PoolHourly(accel, capacity, nodes, gpus)
	if !ok {
		panic("the default price table has no " + accel + " " + capacity + " price")
	}
	return math.Round(usd*100) / 100
}

// An H200 pool on A3 Ultra with MIG, then the same pool asked as B200:
// the machine type follows the GPU (a3-ultragpu-8g, then a4-highgpu-8g),
// GKE's defaults (the accelerator, a hyperdisk-balanced boot disk: A3 Ultra
// and A4 cannot boot from Persistent Disk) read back without drift, and
// the change of accelerator type replaces the pool.
func TestAccGPUPoolH200ThenB200(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	c := gkeClient(t, env.GCP)
	const addr, name = "mlplatform_gpu_pool.big", "acc-hopper-blackwell"
	config := func(accel, partition string) string {
		return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_gpu_pool" "big" {
  name           = "acc-hopper-blackwell"
  node_locations = ["us-central1-b"]
  gpu            = { type = %q, count = 8, partition_size = %q }
  capacity       = "spot"
  autoscaling    = { max_nodes = 2 }
}
`, accel, partition)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, name),
		Steps: []resource.TestStep{
			{
				Config: config("nvidia-h200-141gb", "1g.18gb"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("machine_type"), knownvalue.StringExact("a3-ultragpu-8g")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(56)), // 8 × 7
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"),
							knownvalue.Float64Exact(poolHourly("nvidia-h200-141gb", "spot", 2, 8))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					cfg := np.GetConfig()
					a := cfg.GetAccelerators()[0]
					return joinErrs(
						expect("machine type", cfg.GetMachineType(), "a3-ultragpu-8g"),
						expect("accelerator", vals(a.GetAcceleratorType(), a.GetAcceleratorCount(), a.GetGpuPartitionSize()), "nvidia-h200-141gb 8 1g.18gb"),
						expect("boot disk (GKE's default)", cfg.GetDiskType(), "hyperdisk-balanced"),
						expect("gpu label", cfg.GetResourceLabels()["mlplatform-gpu"], "nvidia-h200-141gb"),
					)
				}),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disk").AtMapKey("type"), knownvalue.StringExact("hyperdisk-balanced")),
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: poolName(name), ImportStateVerify: true},
			{
				Config: config("nvidia-b200", "3g.90gb"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("machine_type"), knownvalue.StringExact("a4-highgpu-8g")),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(16)), // 8 × 2
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"),
							knownvalue.Float64Exact(poolHourly("nvidia-b200", "spot", 2, 8))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					cfg := np.GetConfig()
					a := cfg.GetAccelerators()[0]
					return joinErrs(
						expect("machine type", cfg.GetMachineType(), "a4-highgpu-8g"),
						expect("accelerator", vals(a.GetAcceleratorType(), a.GetAcceleratorCount(), a.GetGpuPartitionSize()), "nvidia-b200 8 3g.90gb"),
						expect("boot disk (GKE's default)", cfg.GetDiskType(), "hyperdisk-balanced"),
					)
				}),
			},
		},
	})
}

// A T4 pool on an N1 machine the user chose: GPUs attached to N1 come in
// the count asked for (not a machine shape), GKE's pd-balanced default
// reads back without drift, more T4s on the same machine replace the pool
// (a count change), and so does changing the accelerator type to L4 (on
// G2).
func TestAccGPUPoolT4(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	c := gkeClient(t, env.GCP)
	const addr, name = "mlplatform_gpu_pool.t4", "acc-t4"
	config := func(machine, accel string, count int) string {
		return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_gpu_pool" "t4" {
  name           = "acc-t4"
  node_locations = ["us-central1-a"]
  machine_type   = %q
  gpu            = { type = %q, count = %d }
  autoscaling    = { max_nodes = 3 }
}
`, machine, accel, count)
	}
	accel := func(machine, want string) resource.TestCheckFunc {
		return poolCheck(t, c, name, func(np *containerpb.NodePool) error {
			cfg := np.GetConfig()
			a := cfg.GetAccelerators()[0]
			return joinErrs(
				expect("machine and accelerator", vals(cfg.GetMachineType(), a.GetAcceleratorType(), a.GetAcceleratorCount()), want),
				expect("boot disk (GKE's default)", cfg.GetDiskType(), "pd-balanced"),
				expect("GPU taint", len(cfg.GetTaints()), 1),
			)
		})
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, name),
		Steps: []resource.TestStep{
			{
				Config: config("n1-standard-8", "nvidia-tesla-t4", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(1)),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_usd"),
							knownvalue.Float64Exact(poolHourly("nvidia-tesla-t4", "on_demand", 3, 1))),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: accel("n1-standard-8", "n1-standard-8 nvidia-tesla-t4 1"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("disk").AtMapKey("type"), knownvalue.StringExact("pd-balanced")),
				},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: poolName(name), ImportStateVerify: true},
			{
				Config: config("n1-standard-8", "nvidia-tesla-t4", 4),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(4)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: accel("n1-standard-8", "n1-standard-8 nvidia-tesla-t4 4"),
			},
			{
				Config: config("g2-standard-8", "nvidia-l4", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionReplace)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: accel("g2-standard-8", "g2-standard-8 nvidia-l4 1"),
			},
		},
	})
}

// An H200 pool on one block of a specific reservation, compactly placed in
// the block's zone by a placement policy of one's own: GKE gets
// SPECIFIC_RESERVATION with the block's path and COMPACT placement with the
// policy's name; the plan says, before anything exists, that its nodes
// carry GKE's topology labels; it reads back without drift, and import
// agrees.
func TestAccGPUPoolReservationBlock(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	c := gkeClient(t, env.GCP)
	const addr, name = "mlplatform_gpu_pool.block", "acc-h200-block"
	config := acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "block" {
  name           = "acc-h200-block"
  node_locations = ["us-central1-b"]
  gpu            = { type = "nvidia-h200-141gb", count = 8 }
  capacity       = "reservation"
  reservation    = { affinity = "specific", name = "h200-res/reservationBlocks/block-1" }
  placement      = "compact"
  placement_policy_name = "h200-compact"
  autoscaling    = { max_nodes = 4 }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             poolGone(t, c, name),
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("topology_labels"), knownvalue.Bool(true)),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					ra := np.GetConfig().GetReservationAffinity()
					return joinErrs(
						expect("reservation affinity", vals(ra.GetConsumeReservationType(), ra.GetKey(), ra.GetValues()),
							"SPECIFIC_RESERVATION compute.googleapis.com/reservation-name [h200-res/reservationBlocks/block-1]"),
						expect("placement", vals(np.GetPlacementPolicy().GetType().String(), np.GetPlacementPolicy().GetPolicyName()), "COMPACT h200-compact"),
						expect("zones", fmt.Sprint(np.GetLocations()), "[us-central1-b]"),
					)
				}),
			},
			{ResourceName: addr, ImportState: true, ImportStateId: poolName(name), ImportStateVerify: true},
		},
	})
}
