package resources

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// State built from what GKE reports converts back to the same spec.
func TestGPUPoolStateRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := map[string]spec.GPUPool{
		"l4 spot with taints and labels": {
			Project: "p", Location: "us-central1", Cluster: "c", Name: "l4-dev", NodeLocations: []string{"us-central1-a", "us-central1-b"},
			MachineType: "g2-standard-8", GPU: spec.GPU{Type: "nvidia-l4", Count: 1, Driver: "default"}, Capacity: spec.CapacitySpot,
			Autoscaling: spec.Autoscaling{MaxNodes: 4, LocationPolicy: "any"}, Labels: map[string]string{"team": "vision"},
			Taints:         []spec.Taint{{Key: "a", Effect: "NoExecute"}, {Key: "cloud.google.com/gke-spot", Value: "true", Effect: "NoSchedule"}},
			ResourceLabels: map[string]string{"owner": "x"}, DiskSizeGB: 100, DiskType: "pd-balanced", ServiceAccount: "default", WorkloadIdentity: true,
		},
		"h100 flex-start queued": {
			Project: "p", Location: "us-central1", Cluster: "c", Name: "h100-flex", NodeLocations: []string{"us-central1-a"},
			MachineType: "a3-highgpu-8g", GPU: spec.GPU{Type: "nvidia-h100-80gb", Count: 8, Driver: "latest"}, Capacity: spec.CapacityFlexStart,
			QueuedProvisioning: true, MaxRunDuration: 90 * time.Minute, Autoscaling: spec.Autoscaling{MaxNodes: 4, LocationPolicy: "any"},
			DiskSizeGB: 200, DiskType: "pd-ssd", ServiceAccount: "sa@p.iam.gserviceaccount.com",
		},
		"a100 reservation compact": {
			Project: "p", Location: "us-central1", Cluster: "c", Name: "a100", NodeLocations: []string{"us-central1-c"},
			MachineType: "a2-ultragpu-8g", GPU: spec.GPU{Type: "nvidia-a100-80gb", Count: 8, Driver: "disabled"}, Capacity: spec.CapacityReservation,
			Reservation: &spec.Reservation{Affinity: "specific", Name: "r1"}, Placement: "compact",
			Autoscaling: spec.Autoscaling{MinNodes: 1, MaxNodes: 2, LocationPolicy: "balanced"}, DiskSizeGB: 500, DiskType: "pd-ssd", ServiceAccount: "default",
		},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			m := gpuPoolState(ctx, reconcile.ObservedGPUPool{Spec: want, Status: "RUNNING"}, gpuPoolModel{}, &diags)
			got := m.toSpec(ctx, &diags)
			if diags.HasError() {
				t.Fatal(diags)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("toSpec(gpuPoolState) (-want +got):\n%s", diff)
			}
			if m.ID.ValueString() != "projects/p/locations/us-central1/clusters/c/nodePools/"+want.Name {
				t.Errorf("id = %s", m.ID)
			}
		})
	}
}

func TestGPUPoolDurationKeepsSpelling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var diags diag.Diagnostics
	p := spec.GPUPool{Name: "x", Capacity: spec.CapacityFlexStart, MaxRunDuration: 72 * time.Hour}
	if got := gpuPoolState(ctx, reconcile.ObservedGPUPool{Spec: p}, gpuPoolModel{}, &diags).MaxRunDuration.ValueString(); got != "72h" {
		t.Errorf("without a prior spelling: %q, want 72h", got)
	}
	prior := gpuPoolModel{}
	prior.MaxRunDuration = optString("4320m")
	if got := gpuPoolState(ctx, reconcile.ObservedGPUPool{Spec: p}, prior, &diags).MaxRunDuration.ValueString(); got != "4320m" {
		t.Errorf("with prior 4320m: %q", got)
	}
}

func TestParseGPUPoolID(t *testing.T) {
	t.Parallel()
	want := reconcile.GPUPoolRef{Project: "p", Location: "us-central1", Cluster: "c", Name: "l4"}
	cases := map[string]struct {
		id   string
		want reconcile.GPUPoolRef
		ok   bool
	}{
		"resource name": {"projects/p/locations/us-central1/clusters/c/nodePools/l4", want, true},
		"short":         {"p/us-central1/c/l4", want, true},
		"just a name":   {"l4", reconcile.GPUPoolRef{}, false},
		"empty part":    {"p//c/l4", reconcile.GPUPoolRef{}, false},
		"wrong words":   {"projects/p/zones/us-central1/clusters/c/nodePools/l4", reconcile.GPUPoolRef{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, ok := parseGPUPoolID(tc.id)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// An attribute whose value is not known at plan time (it comes from another
// resource) must not produce errors from the rules that read it: they are
// checked again at apply.
func TestGPUPoolKnownSkipsRulesOnUnknownInputs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := gpuPoolModel{
		Name: types.StringValue("l4"), Project: types.StringNull(), Location: types.StringNull(), Cluster: types.StringNull(),
		NodeLocations: types.SetNull(types.StringType), MachineType: types.StringValue("g2-standard-8"),
		GPU: types.ObjectValueMust(gpuType, map[string]attr.Value{"type": types.StringValue("nvidia-l4"), "count": types.Int64Value(1), "driver": types.StringNull(),
			"partition_size": types.StringNull(), "sharing": types.ObjectNull(gpuSharingType)}),
		Capacity: types.StringValue("spot"), Reservation: types.ObjectNull(reservationType), MaxRunDuration: types.StringNull(),
		QueuedProvisioning: types.BoolValue(false), Placement: types.StringNull(),
		Autoscaling: types.ObjectValueMust(autoscalingType, map[string]attr.Value{"min_nodes": types.Int64Value(0), "max_nodes": types.Int64Value(4),
			"location_policy": types.StringNull()}),
		Labels: types.MapNull(types.StringType), Taints: types.MapNull(poolTaintType), ResourceLabels: types.MapNull(types.StringType),
		Disk: types.ObjectNull(diskType), ServiceAccount: types.StringNull(),
	}
	for root, ok := range base.known(ctx) {
		if !ok {
			t.Errorf("known[%s] = false for a configuration with every value known", root)
		}
	}
	cases := map[string]struct {
		edit    func(*gpuPoolModel)
		unknown []string // roots whose rules read the unknown value
	}{
		"capacity": {func(m *gpuPoolModel) { m.Capacity = types.StringUnknown() },
			[]string{"autoscaling", "capacity", "max_run_duration", "node_locations", "placement", "queued_provisioning", "reservation", "resource_labels"}},
		"gpu": {func(m *gpuPoolModel) { m.GPU = types.ObjectUnknown(gpuType) },
			[]string{"disk", "gpu", "machine_type", "placement", "resource_labels"}},
		"zones": {func(m *gpuPoolModel) { m.NodeLocations = types.SetUnknown(types.StringType) },
			[]string{"autoscaling", "node_locations"}},
		"location": {func(m *gpuPoolModel) { m.Location = types.StringUnknown() }, []string{"location", "node_locations"}},
		"machine type": {func(m *gpuPoolModel) { m.MachineType = types.StringUnknown() },
			[]string{"disk", "machine_type", "placement"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := base
			tc.edit(&m)
			var got []string
			for root, ok := range m.known(ctx) {
				if !ok {
					got = append(got, root)
				}
			}
			sort.Strings(got)
			if diff := cmp.Diff(tc.unknown, got); diff != "" {
				t.Errorf("roots not known (-want +got):\n%s", diff)
			}
		})
	}
}
