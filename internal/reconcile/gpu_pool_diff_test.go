package reconcile_test

import (
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	const name = "projects/p/locations/us-central1/clusters/c/nodePools/l4-dev"
	cases := map[string]struct {
		edit    func(*spec.GPUPool)
		server  func(*containerpb.NodePool)
		want    []reconcile.Action
		wantErr string
	}{
		"in sync, GKE's additions are not drift": {},
		"autoscaling changed out of band": {
			server: func(np *containerpb.NodePool) { np.Autoscaling.TotalMaxNodeCount = 10 },
			want: []reconcile.Action{{Field: "autoscaling", Autoscaling: &containerpb.NodePoolAutoscaling{
				Enabled: true, TotalMaxNodeCount: 4, LocationPolicy: containerpb.NodePoolAutoscaling_ANY}}},
		},
		"labels and max nodes: two requests": {
			edit: func(p *spec.GPUPool) { p.Labels["tier"] = "dev"; p.Autoscaling.MaxNodes = 8 },
			want: []reconcile.Action{
				{Field: "autoscaling", Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 8, LocationPolicy: containerpb.NodePoolAutoscaling_ANY}},
				{Field: "labels", Update: &containerpb.UpdateNodePoolRequest{Name: name, Labels: &containerpb.NodeLabels{Labels: map[string]string{"team": "vision", "tier": "dev"}}}},
			},
		},
		"taints keep GKE's GPU taint": {
			edit: func(p *spec.GPUPool) { p.Taints = nil },
			want: []reconcile.Action{{Field: "taints", Update: &containerpb.UpdateNodePoolRequest{Name: name, Taints: &containerpb.NodeTaints{Taints: []*containerpb.NodeTaint{
				{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}}}}}},
		},
		"resource label removed out of band, defaults restored, the marker kept": {
			server: func(np *containerpb.NodePool) { delete(np.Config.ResourceLabels, "mlplatform-gpu") },
			want: []reconcile.Action{{Field: "resource_labels", Update: &containerpb.UpdateNodePoolRequest{Name: name, ResourceLabels: &containerpb.ResourceLabels{Labels: map[string]string{
				"owner": "ml-infra", "mlplatform-pool": "l4-dev", "mlplatform-gpu": "nvidia-l4", "mlplatform-capacity": "spot",
				"mlplatform-managed-by": "mlplatform"}}}}},
		},
		"the marker removed out of band is not drift": {
			server: func(np *containerpb.NodePool) { delete(np.Config.ResourceLabels, "mlplatform-managed-by") },
		},
		"an imported pool (no marker) is not marked by an update": {
			server: func(np *containerpb.NodePool) {
				delete(np.Config.ResourceLabels, "mlplatform-managed-by")
				np.Config.ResourceLabels["owner"] = "someone"
			},
			want: []reconcile.Action{{Field: "resource_labels", Update: &containerpb.UpdateNodePoolRequest{Name: name, ResourceLabels: &containerpb.ResourceLabels{Labels: map[string]string{
				"owner": "ml-infra", "mlplatform-pool": "l4-dev", "mlplatform-gpu": "nvidia-l4", "mlplatform-capacity": "spot"}}}}},
		},
		"driver": {
			edit: func(p *spec.GPUPool) { p.GPU.Driver = spec.GPUDriverLatest },
			want: []reconcile.Action{{Field: "gpu", Update: &containerpb.UpdateNodePoolRequest{Name: name, Accelerators: []*containerpb.AcceleratorConfig{{
				AcceleratorType: "nvidia-l4", AcceleratorCount: 1,
				GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_LATEST.Enum()}}}}}},
		},
		"sharing added: one accelerators request with the driver": {
			edit: func(p *spec.GPUPool) {
				p.GPU.Sharing = &spec.GPUSharing{Strategy: spec.SharingTimeSharing, MaxClients: 4}
			},
			want: []reconcile.Action{{Field: "gpu", Update: &containerpb.UpdateNodePoolRequest{Name: name, Accelerators: []*containerpb.AcceleratorConfig{{
				AcceleratorType: "nvidia-l4", AcceleratorCount: 1,
				GpuSharingConfig: &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 4,
					GpuSharingStrategy: containerpb.GPUSharingConfig_TIME_SHARING.Enum()},
				GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_DEFAULT.Enum()}}}}}},
		},
		"sharing changed out of band": {
			edit: func(p *spec.GPUPool) { p.GPU.Sharing = &spec.GPUSharing{Strategy: spec.SharingMPS, MaxClients: 2} },
			server: func(np *containerpb.NodePool) {
				np.Config.Accelerators[0].GpuSharingConfig = &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 3,
					GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}
			},
			want: []reconcile.Action{{Field: "gpu", Update: &containerpb.UpdateNodePoolRequest{Name: name, Accelerators: []*containerpb.AcceleratorConfig{{
				AcceleratorType: "nvidia-l4", AcceleratorCount: 1,
				GpuSharingConfig: &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 2,
					GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()},
				GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: containerpb.GPUDriverInstallationConfig_DEFAULT.Enum()}}}}}},
		},
		"partition size needs replacement": {
			server:  func(np *containerpb.NodePool) { np.Config.Accelerators[0].GpuPartitionSize = "1g.5gb" },
			wantErr: "differs in gpu.partition_size",
		},
		"disk size only": {
			edit: func(p *spec.GPUPool) { p.DiskSizeGB = 200 },
			want: []reconcile.Action{{Field: "disk", Update: &containerpb.UpdateNodePoolRequest{Name: name, DiskSizeGb: 200, DiskType: "pd-balanced"}}},
		},
		"zones": {
			edit: func(p *spec.GPUPool) { p.NodeLocations = []string{"us-central1-c", "us-central1-a"} },
			want: []reconcile.Action{{Field: "node_locations", Update: &containerpb.UpdateNodePoolRequest{Name: name, Locations: []string{"us-central1-a", "us-central1-c"}}}},
		},
		"gpu type needs replacement": {
			edit:    func(p *spec.GPUPool) { p.GPU.Type, p.MachineType = "nvidia-h100-80gb", "a3-highgpu-1g" },
			wantErr: "differs in machine_type, gpu.type",
		},
		"spot to on-demand needs replacement": {
			edit:    func(p *spec.GPUPool) { p.Capacity = spec.CapacityOnDemand },
			wantErr: "differs in capacity",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			created := l4Spot()
			np := asServed(reconcile.BuildNodePool(created))
			if tc.server != nil {
				tc.server(np)
			}
			desired := l4Spot()
			if tc.edit != nil {
				tc.edit(&desired)
			}
			got, err := reconcile.Diff(desired, np)
			if tc.wantErr != "" {
				if err == nil || !errors.Is(err, reconcile.ErrNeedsReplacement) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Diff error = %v, want ErrNeedsReplacement with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, protocmp.Transform()); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

// The contract's Diff names what differs in spec terms: the fields GKE
// cannot change in place first, then one per request an update sends.
func TestGPUPoolsDiffNamesFields(t *testing.T) {
	t.Parallel()
	g := reconcile.NewGPUPools(nil, nil)
	served := reconcile.Observed(reconcile.RefOf(l4Spot()), asServed(reconcile.BuildNodePool(l4Spot())), l4Spot())
	unlabelled := asServed(reconcile.BuildNodePool(l4Spot()))
	delete(unlabelled.Config.ResourceLabels, "mlplatform-gpu") // a default: its spec does not show it gone
	for name, tc := range map[string]struct {
		edit   func(*spec.GPUPool)
		actual reconcile.ObservedGPUPool
		want   []string
	}{
		"in sync":                             {actual: served},
		"in sync, not read from GKE":          {actual: reconcile.ObservedGPUPool{Spec: l4Spot()}},
		"a default label removed out of band": {actual: reconcile.Observed(reconcile.RefOf(l4Spot()), unlabelled, l4Spot()), want: []string{"resource_labels"}},
		"labels and max nodes":                {edit: func(p *spec.GPUPool) { p.Labels["tier"] = "dev"; p.Autoscaling.MaxNodes = 8 }, actual: served, want: []string{"autoscaling", "labels"}},
		"gpu type, and its default label":     {edit: func(p *spec.GPUPool) { p.GPU.Type, p.MachineType = "nvidia-h100-80gb", "a3-highgpu-1g" }, actual: served, want: []string{"machine_type", "gpu.type", "resource_labels"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			desired := l4Spot()
			if tc.edit != nil {
				tc.edit(&desired)
			}
			if diff := cmp.Diff(tc.want, g.Diff(desired, tc.actual)); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}
