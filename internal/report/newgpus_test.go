package report

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The capacity and cost tables count the newer GPUs with the default
// table's prices: 2 nodes × 8 H200 (spot) behind a flavor with 16 GPUs of
// quota, 1 node × 8 B200 (on demand) and 3 nodes × 4 T4 (each T4 priced with
// an n1-standard-4's share of machine).
func TestNewGPUsCapacityAndCost(t *testing.T) {
	t.Parallel()
	sel := map[string]any{"cloud.google.com/gke-nodepool": "h200"}
	pool := func(name, accel, capacity string, count, maxNodes int, labels map[string]any) map[string]any {
		return map[string]any{
			"name":                      name,
			"gpu":                       map[string]any{"type": accel, "count": count, "partition_size": nil, "sharing": nil},
			"capacity":                  capacity,
			"autoscaling":               map[string]any{"max_nodes": maxNodes},
			"labels":                    labels,
			"allocatable_gpus_per_node": count,
		}
	}
	r := sharingPlan(t, sel, "16",
		pool("h200", "nvidia-h200-141gb", "spot", 8, 2, sel),
		pool("b200", "nvidia-b200", "on_demand", 8, 1, map[string]any{"cloud.google.com/gke-nodepool": "b200"}),
		pool("t4", "nvidia-tesla-t4", "on_demand", 4, 3, map[string]any{"cloud.google.com/gke-nodepool": "t4"}))

	if c := r.Capacity[0]; c.Provided.After.Raw != "16" || c.Overcommit {
		t.Errorf("capacity of the H200 flavor: provided %+v, overcommit %v; want 16 GPUs", c.Provided.After, c.Overcommit)
	}
	type cost struct {
		Accel, GPUs string
		USD         float64
	}
	got := map[string]cost{}
	for _, pc := range r.Costs {
		got[pc.Pool] = cost{pc.Accelerator.After.Raw, pc.GPUs.After.Raw, math.Round(pc.Hourly.After.USD*100) / 100}
	}
	want := map[string]cost{
		"h200": {"nvidia-h200-141gb", "16", 69.79}, // 16 × 4.3619 (a3-ultragpu-8g estimate × Spot ratio ÷ 8)
		"b200": {"nvidia-b200", "8", 148.21},       // a4-highgpu-8g estimate
		"t4":   {"nvidia-tesla-t4", "12", 6.48},    // 12 × (0.35 + 0.19)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cost table (-want +got):\n%s", diff)
	}
	if total := math.Round(r.CostTotal.Hourly.After.USD*100) / 100; total != 224.48 {
		t.Errorf("total %v, want 224.48", total)
	}
}
