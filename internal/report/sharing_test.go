package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

func TestGPUEquivalent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n      string
		perGPU int64
		want   string
	}{
		{"7", 7, "1 GPU"},
		{"14", 7, "2 GPUs"},
		{"3", 7, "3/7 GPU"},
		{"10", 7, "1 3/7 GPUs"},
		{"-7", 7, "-1 GPU"},
		{"-3", 7, "-3/7 GPU"},
		{"6", 21, "2/7 GPU"},
		{"0", 7, "0 GPUs"},
		{"500m", 7, ""}, // not a whole number of slices
		{"7", 0, ""},    // slices per GPU unknown
	}
	for _, tc := range tests {
		if got := gpuEquivalent(model.KnownQty(tc.n), tc.perGPU); got != tc.want {
			t.Errorf("gpuEquivalent(%s, %d) = %q, want %q", tc.n, tc.perGPU, got, tc.want)
		}
	}
}

// sharingPlan builds a plan of one flavor with the given node labels, the
// given pools and one new ClusterQueue with nominal GPU quota on the flavor.
func sharingPlan(t *testing.T, labels map[string]any, quota string, pools ...map[string]any) Report {
	t.Helper()
	changes := []map[string]any{
		{"address": "mlplatform_resource_flavor.f", "mode": "managed", "type": "mlplatform_resource_flavor", "change": map[string]any{
			"actions": []string{"no-op"},
			"before":  map[string]any{"name": "f", "node_labels": labels},
			"after":   map[string]any{"name": "f", "node_labels": labels},
		}},
		{"address": "mlplatform_cluster_queue.q", "mode": "managed", "type": "mlplatform_cluster_queue", "change": map[string]any{
			"actions": []string{"create"},
			"before":  nil,
			"after": map[string]any{"name": "q", "cohort": nil, "resource_groups": []any{map[string]any{
				"covered_resources": []string{gpuResource},
				"flavors": []any{map[string]any{"name": "f", "resources": []any{
					map[string]any{"name": gpuResource, "nominal_quota": quota, "borrowing_limit": nil, "lending_limit": nil},
				}}},
			}}},
		}},
	}
	for _, p := range pools {
		unknown := p["_unknown"]
		delete(p, "_unknown")
		if unknown == nil {
			unknown = map[string]any{}
		}
		changes = append(changes, map[string]any{"address": "mlplatform_gpu_pool." + p["name"].(string), "mode": "managed", "type": "mlplatform_gpu_pool",
			"change": map[string]any{"actions": []string{"create"}, "before": nil, "after": p, "after_unknown": unknown}})
	}
	data, err := json.Marshal(map[string]any{"format_version": "1.2", "resource_changes": changes})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := ReadPlan(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return Build(plan, Options{Prices: pricing.Default()})
}

// gpuPool is an mlplatform_gpu_pool's planned object, with node labels
// (its nodes carry them, and GKE's own); alloc nil leaves
// allocatable_gpus_per_node out, as plans of older providers do.
func gpuPool(name string, count int, partition, strategy any, clients int, maxNodes int, alloc any, labels map[string]any) map[string]any {
	var sharing any
	if strategy != nil {
		sharing = map[string]any{"strategy": strategy, "max_shared_clients_per_gpu": clients}
	}
	p := map[string]any{
		"name":        name,
		"gpu":         map[string]any{"type": "nvidia-tesla-a100", "count": count, "partition_size": partition, "sharing": sharing},
		"capacity":    "on_demand",
		"autoscaling": map[string]any{"max_nodes": maxNodes},
		"labels":      labels,
	}
	if alloc != nil {
		p["allocatable_gpus_per_node"] = alloc
	}
	return p
}

func render(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, r, Text); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestCapacityCountsSlices(t *testing.T) {
	t.Parallel()
	sel := map[string]any{"pool": "a", "cloud.google.com/gke-gpu-partition-size": "1g.5gb"}
	// 2 nodes × 1 A100 × 7 slices, plus 3 time-sharing clients on each slice: 42
	r := sharingPlan(t, sel, "40", gpuPool("a", 1, "1g.5gb", "time_sharing", 3, 2, 21, sel))
	c := r.Capacity[0]
	if c.Provided.After.Raw != "42" || c.Overcommit || c.Status != "ok (2 slices spare)" {
		t.Errorf("capacity: provided %+v, status %q; want 42 slices, ok (2 slices spare)", c.Provided.After, c.Status)
	}
	out := render(t, r)
	for _, want := range []string{"+40 slices (= 1 19/21 GPUs)", "Time-sharing: a container may request at most 1 nvidia.com/gpu", "UnexpectedAdmissionError",
		"MIG 1g.5gb + time-sharing × 3 clients, 21 slices per GPU", "$0.17"} { // 3.6734 / 21
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// A plan of a provider without allocatable_gpus_per_node counts gpu.count;
// a sliced pool without it, or with it unknown, is not guessed.
func TestCapacityAllocatableFallbackAndUnknown(t *testing.T) {
	t.Parallel()
	sel := map[string]any{"pool": "a"}
	old := sharingPlan(t, sel, "8", gpuPool("a", 8, nil, nil, 0, 2, nil, sel))
	if c := old.Capacity[0]; c.Provided.After.Raw != "16" || c.Status != "ok (8 spare)" || len(old.Sharing) != 0 || len(old.SlicedPools) != 0 {
		t.Errorf("older plan: provided %+v, status %q, sharing %v; want 16 GPUs, no sharing", c.Provided.After, c.Status, old.Sharing)
	}
	unknown := gpuPool("a", 1, "1g.5gb", nil, 0, 2, nil, sel)
	unknown["_unknown"] = map[string]any{"allocatable_gpus_per_node": true}
	for name, p := range map[string]map[string]any{"unknown": unknown, "absent": gpuPool("a", 1, "1g.5gb", nil, 0, 2, nil, sel)} {
		r := sharingPlan(t, sel, "8", p)
		c := r.Capacity[0]
		if c.Provided.After.State != qUnknown || c.Overcommit || !strings.Contains(c.Status, "allocatable_gpus_per_node is "+unknownText) {
			t.Errorf("%s allocatable: provided %+v, status %q; want unknown, no verdict", name, c.Provided.After, c.Status)
		}
		if out := render(t, r); !strings.Contains(out, "+8 slices (GPU equivalent "+unknownText+")") {
			t.Errorf("%s allocatable: quota not in slices with an unknown equivalent:\n%s", name, out)
		}
	}
}

func TestSharingPoolsDisagree(t *testing.T) {
	t.Parallel()
	labels := map[string]any{"team": "x"} // the flavor stands for both pools
	r := sharingPlan(t, labels, "7",
		gpuPool("mig", 1, "1g.5gb", nil, 0, 1, 7, labels),
		gpuPool("whole", 1, nil, nil, 0, 1, 1, labels))
	fs := r.Sharing["f"]
	if fs == nil || !fs.Disagree {
		t.Fatalf("sharing of f: %+v; want the pools to disagree", fs)
	}
	out := render(t, r)
	for _, want := range []string{"+7 (unit unclear: pools disagree)", "!! f: its pools disagree (pool mig: MIG 1g.5gb, 7 slices per GPU; pool whole: whole GPUs)",
		"ok (1 nvidia.com/gpu units spare)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(= 1 GPU)") || strings.Contains(out, "short, =") {
		t.Errorf("a GPU equivalent is guessed although the pools disagree:\n%s", out)
	}
}

func TestMPSNote(t *testing.T) {
	t.Parallel()
	sel := map[string]any{"pool": "m"}
	r := sharingPlan(t, sel, "8", gpuPool("m", 2, nil, "mps", 4, 1, 8, sel))
	out := render(t, r)
	for _, want := range []string{"+8 shares (= 2 GPUs)", "ok (0 shares spare)", "MPS: a container may request more than 1 nvidia.com/gpu only on a single-GPU node (this flavor's pools have nodes of more than 1 GPU, so at most 1 there)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}
