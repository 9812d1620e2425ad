package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

func TestDestructive(t *testing.T) {
	t.Parallel()
	pool := map[string]any{"name": "h100", "gpu": map[string]any{"type": "nvidia-h100-80gb", "count": json.Number("8")}, "autoscaling": map[string]any{"max_nodes": json.Number("2")}}
	changes := []tfplan.ResourceChange{
		{Address: "mlplatform_cluster_queue.a", Mode: "managed", Type: "mlplatform_cluster_queue", Change: tfplan.Change{Actions: []string{"delete"}, Before: map[string]any{"name": "team-a"}}},
		{Address: "mlplatform_local_queue.a", Mode: "managed", Type: "mlplatform_local_queue", Change: tfplan.Change{Actions: []string{"update"}, Before: map[string]any{"name": "gpu"}}},
		{Address: "mlplatform_gpu_pool.h100", Mode: "managed", Type: "mlplatform_gpu_pool",
			Change: tfplan.Change{Actions: []string{"delete", "create"}, ReplacePaths: [][]any{{"gpu", "partition_size"}}, Before: pool}},
		{Address: "mlplatform_team_namespace.b", Mode: "managed", Type: "mlplatform_team_namespace", Change: tfplan.Change{Actions: []string{"create", "delete"}, Before: map[string]any{"name": "team-b"}}},
		{Address: "data.mlplatform_gpu_catalog.c", Mode: "data", Type: "mlplatform_gpu_catalog", Change: tfplan.Change{Actions: []string{"delete"}}},
	}
	var got []string
	for _, d := range destructive(changes) {
		got = append(got, d.Sentence())
	}
	want := []string{
		"GPU pool h100 is replaced (deleted, then created again), because gpu.partition_size cannot change in place; its nodes (up to 16 × nvidia-h100-80gb) go, and every job running on them is evicted (mlplatform_gpu_pool.h100)",
		"ClusterQueue team-a is deleted (mlplatform_cluster_queue.a)",
		"Team namespace team-b is replaced (deleted, then created again) (mlplatform_team_namespace.b)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("destructive (-want +got):\n%s", diff)
	}
	if got := pathText([]any{"taints", "dedicated", "value"}); got != "taints.dedicated.value" {
		t.Errorf("pathText: %s", got)
	}
	if got := pathText([]any{"node_locations", float64(0)}); !strings.HasPrefix(got, "node_locations[0]") {
		t.Errorf("pathText with an index: %s", got)
	}
}
