package resources_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

// GPU sharing on one A100 node pool (a2-highgpu-1g), for each of MIG,
// time-sharing, MPS and MIG with time-sharing: the create carries GKE's
// accelerator settings and the plan after it is empty; a sharing change is
// one UpdateNodePool request, no replacement; a sharing config changed
// outside Terraform shows as drift of exactly that field and is put back; a
// partition size change replaces the pool (for MPS, which the platform does
// not combine with MIG, it is refused at plan time).
func TestAccGPUPoolSharing(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	type sharing struct {
		strategy string // "" = none
		clients  int
	}
	cases := map[string]struct {
		partition     string  // "" = whole GPUs
		initial       sharing // created with
		changed       sharing // then changed in place to
		changedPaths  []string
		outOfBand     int    // max_shared_clients_per_gpu someone sets in GKE
		newPartition  string // the partition size change
		replacedError string // for MPS: the plan-time refusal instead of a replacement
		allocatable   [2]int // allocatable_gpus_per_node created, changed
	}{
		"MIG": {partition: "1g.5gb", changed: sharing{"time_sharing", 2}, outOfBand: 3, newPartition: "2g.10gb",
			changedPaths: []string{"gpu.sharing"}, allocatable: [2]int{7, 14}},
		"time-sharing": {initial: sharing{"time_sharing", 3}, changed: sharing{"time_sharing", 4}, outOfBand: 6, newPartition: "1g.5gb",
			changedPaths: []string{"gpu.sharing.max_shared_clients_per_gpu"}, allocatable: [2]int{3, 4}},
		"MPS": {initial: sharing{"mps", 2}, changed: sharing{"mps", 4}, outOfBand: 8, newPartition: "1g.5gb",
			changedPaths: []string{"gpu.sharing.max_shared_clients_per_gpu"}, allocatable: [2]int{2, 4},
			replacedError: `(?s)MPS Does Not Combine With MIG`},
		"MIG and time-sharing": {partition: "1g.5gb", initial: sharing{"time_sharing", 3}, changed: sharing{"time_sharing", 2}, outOfBand: 5,
			newPartition: "3g.20gb", changedPaths: []string{"gpu.sharing.max_shared_clients_per_gpu"}, allocatable: [2]int{21, 14}},
	}
	for mode, tc := range cases {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			srv, provider := ownFake(t)
			c := gkeClient(t, srv)
			name := "acc-share-" + strings.ReplaceAll(strings.ToLower(mode), " and ", "-")
			addr := "mlplatform_gpu_pool.a100"
			config := func(partition string, s sharing) string {
				gpu := `type = "nvidia-tesla-a100", count = 1`
				if partition != "" {
					gpu += fmt.Sprintf(`, partition_size = %q`, partition)
				}
				if s.strategy != "" {
					gpu += fmt.Sprintf(`, sharing = { strategy = %q, max_shared_clients_per_gpu = %d }`, s.strategy, s.clients)
				}
				return provider + fmt.Sprintf(`
resource "mlplatform_gpu_pool" "a100" {
  name         = %q
  machine_type = "a2-highgpu-1g"
  gpu          = { %s }
  autoscaling  = { max_nodes = 1 }
}
`, name, gpu)
			}
			// GKE's accelerator as the pool holds it.
			accel := func(partition string, s sharing) resource.TestCheckFunc {
				return poolCheck(t, c, name, func(np *containerpb.NodePool) error {
					a := np.GetConfig().GetAccelerators()[0]
					sc := a.GetGpuSharingConfig()
					want := "<nil>"
					if s.strategy != "" {
						want = fmt.Sprint(map[string]containerpb.GPUSharingConfig_GPUSharingStrategy{
							"time_sharing": containerpb.GPUSharingConfig_TIME_SHARING, "mps": containerpb.GPUSharingConfig_MPS}[s.strategy], " ", s.clients)
					}
					got := "<nil>"
					if sc != nil {
						got = fmt.Sprint(sc.GetGpuSharingStrategy(), " ", sc.GetMaxSharedClientsPerGpu())
					}
					return joinErrs(expect("partition size", a.GetGpuPartitionSize(), partition), expect("sharing", got, want))
				})
			}
			selector := func(partition string, s sharing) knownvalue.Check {
				want := map[string]knownvalue.Check{"cloud.google.com/gke-nodepool": knownvalue.StringExact(name)}
				if partition != "" {
					want["cloud.google.com/gke-gpu-partition-size"] = knownvalue.StringExact(partition)
				}
				if s.strategy != "" {
					want["cloud.google.com/gke-gpu-sharing-strategy"] = knownvalue.StringExact(strings.ReplaceAll(s.strategy, "_", "-"))
					want["cloud.google.com/gke-max-shared-clients-per-gpu"] = knownvalue.StringExact(fmt.Sprint(s.clients))
				}
				return knownvalue.MapExact(want)
			}
			// UpdateNodePool requests, counted from before a step's apply.
			const update = "/google.container.v1.ClusterManager/UpdateNodePool"
			var updatesBefore int
			countFrom := func() { updatesBefore = srv.Requests()[update] }
			updates := func(want int) resource.TestCheckFunc {
				return func(*terraform.State) error {
					return expect("UpdateNodePool requests in this apply", srv.Requests()[update]-updatesBefore, want)
				}
			}
			empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
			slices := tc.allocatable[0]
			replaceStep := resource.TestStep{
				Config: config(tc.newPartition, tc.changed),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: empty,
				},
				Check: accel(tc.newPartition, tc.changed),
			}
			// The step after: destroy runs with the last step's configuration.
			last := resource.TestStep{Config: config(tc.newPartition, tc.changed), PlanOnly: true}
			if tc.replacedError != "" {
				replaceStep = resource.TestStep{Config: config(tc.newPartition, tc.changed), PlanOnly: true, ExpectError: regexp.MustCompile(tc.replacedError)}
				last = resource.TestStep{Config: config(tc.partition, tc.changed), PlanOnly: true}
			}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				CheckDestroy:             poolGone(t, c, name),
				Steps: []resource.TestStep{
					{ // create: the accelerator as configured, known at plan; nothing left to change after
						Config: config(tc.partition, tc.initial),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(int64(slices))),
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("node_selector"), selector(tc.partition, tc.initial)),
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("estimated_hourly_cost_per_slice_usd"), knownvalue.Float64Exact(a100SliceHourly(slices))),
							},
							PostApplyPostRefresh: empty,
						},
						Check: accel(tc.partition, tc.initial),
					},
					{ // sharing changes in place: one request, no replacement
						PreConfig: countFrom,
						Config:    config(tc.partition, tc.changed),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
								acctest.ExpectOnlyChanges(addr, append(slicesChanged(tc.initial.strategy != "", tc.changed.strategy != tc.initial.strategy),
									tc.changedPaths...)...),
								plancheck.ExpectKnownValue(addr, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(int64(tc.allocatable[1]))),
							},
							PostApplyPostRefresh: empty,
						},
						Check: resource.ComposeTestCheckFunc(accel(tc.partition, tc.changed), updates(1)),
					},
					{ // someone changes the sharing in the console: the plan shows that field, apply puts it back
						PreConfig: func() {
							outOfBand(t, c, func(ctx context.Context) (*containerpb.Operation, error) {
								a := getPool(t, c, name).GetConfig().GetAccelerators()[0]
								a.GpuSharingConfig.MaxSharedClientsPerGpu = int64(tc.outOfBand)
								return c.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: poolName(name),
									Accelerators: []*containerpb.AcceleratorConfig{a}})
							})
							countFrom()
						},
						Config: config(tc.partition, tc.changed),
						ConfigPlanChecks: resource.ConfigPlanChecks{
							PreApply: []plancheck.PlanCheck{
								plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
								acctest.ExpectDriftAt(addr, []any{"gpu", "sharing", "max_shared_clients_per_gpu"}, tc.changed.clients, tc.outOfBand),
								acctest.ExpectOnlyChanges(addr, append(slicesChanged(true, false), "gpu.sharing.max_shared_clients_per_gpu")...),
							},
							PostApplyPostRefresh: empty,
						},
						Check: resource.ComposeTestCheckFunc(accel(tc.partition, tc.changed), updates(1)),
					},
					replaceStep,
					last,
				},
			})
		})
	}
}

// slicesChanged are the computed attributes a sharing change moves: the
// slices per node, their price, and the node selector's sharing labels
// (added when sharing is new, the strategy label too when it changes).
func slicesChanged(hadSharing, strategyChanged bool) []string {
	out := []string{"allocatable_gpus_per_node", "estimated_hourly_cost_per_slice_usd",
		"node_selector.cloud.google.com/gke-max-shared-clients-per-gpu"}
	if !hadSharing || strategyChanged {
		out = append(out, "node_selector.cloud.google.com/gke-gpu-sharing-strategy")
	}
	return out
}

// a100SliceHourly is the default price of one of slices nvidia.com/gpu of
// an on-demand A100, as estimated_hourly_cost_per_slice_usd rounds it.
func a100SliceHourly(slices int) float64 {
	usd, ok := pricing.Default().HourlyPerGPU("nvidia-tesla-a100", "on_demand")
	if !ok {
		panic("the default price table has no on-demand A100 price")
	}
	return math.Round(usd/float64(slices)*10000) / 10000
}
