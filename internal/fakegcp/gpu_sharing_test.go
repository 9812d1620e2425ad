package fakegcp_test

import (
	"context"
	"fmt"
	"testing"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
)

// accel is one accelerator config; size "" means no MIG, sharing nil none.
func accel(typ string, count int64, size string, sharing *containerpb.GPUSharingConfig) *containerpb.AcceleratorConfig {
	return &containerpb.AcceleratorConfig{AcceleratorType: typ, AcceleratorCount: count, GpuPartitionSize: size, GpuSharingConfig: sharing}
}

func timeSharing(n int64) *containerpb.GPUSharingConfig {
	return &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: n, GpuSharingStrategy: containerpb.GPUSharingConfig_TIME_SHARING.Enum()}
}

func mps(n int64) *containerpb.GPUSharingConfig {
	return &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: n, GpuSharingStrategy: containerpb.GPUSharingConfig_MPS.Enum()}
}

func driver(v containerpb.GPUDriverInstallationConfig_GPUDriverVersion) *containerpb.GPUDriverInstallationConfig {
	return &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: v.Enum()}
}

func withDriver(a *containerpb.AcceleratorConfig, v containerpb.GPUDriverInstallationConfig_GPUDriverVersion) *containerpb.AcceleratorConfig {
	a.GpuDriverInstallationConfig = driver(v)
	return a
}

func poolWith(name, machine string, accs ...*containerpb.AcceleratorConfig) *containerpb.NodePool {
	return &containerpb.NodePool{Name: name, InitialNodeCount: 1, Config: &containerpb.NodeConfig{MachineType: machine, Accelerators: accs}}
}

// gotErr is the code and message of err, for cmp.Diff.
type gotErr struct {
	Code codes.Code
	Msg  string
}

func errOf(err error) gotErr {
	st := status.Convert(err)
	return gotErr{st.Code(), st.Message()}
}

// TestCreateNodePoolGPUSharing: GetNodePool returns the partition size and
// sharing config exactly as created; invalid ones are refused with
// INVALID_ARGUMENT.
// migHint is the remedy the fake names when a partition size is asked of an
// accelerator without MIG.
const migHint = "Leave gpu_partition_size unset, or use an accelerator type with MIG: nvidia-a100-80gb, nvidia-b200, nvidia-h100-80gb, nvidia-h200-141gb, nvidia-tesla-a100."

func TestCreateNodePoolGPUSharing(t *testing.T) {
	t.Parallel()
	e := start(t)
	tests := []struct {
		name    string
		machine string
		accel   *containerpb.AcceleratorConfig
		wantErr *gotErr
	}{
		{name: "A100 1g.5gb", machine: "a2-highgpu-1g", accel: accel("nvidia-tesla-a100", 1, "1g.5gb", nil)},
		{name: "A100 4g.20gb", machine: "a2-highgpu-1g", accel: accel("nvidia-tesla-a100", 1, "4g.20gb", nil)},
		{name: "H100 1g.20gb", machine: "a3-highgpu-1g", accel: accel("nvidia-h100-80gb", 1, "1g.20gb", nil)},
		{name: "A100 80GB 7g.80gb", machine: "a2-ultragpu-1g", accel: accel("nvidia-a100-80gb", 1, "7g.80gb", nil)},
		{name: "H200 1g.18gb", machine: "a3-ultragpu-8g", accel: accel("nvidia-h200-141gb", 8, "1g.18gb", nil)},
		{name: "H200 4g.71gb", machine: "a3-ultragpu-8g", accel: accel("nvidia-h200-141gb", 8, "4g.71gb", nil)}, // the partitioner accepts it
		{name: "B200 3g.90gb", machine: "a4-highgpu-8g", accel: accel("nvidia-b200", 8, "3g.90gb", nil)},
		{name: "A100 1g.5gb time-sharing 3", machine: "a2-highgpu-1g", accel: accel("nvidia-tesla-a100", 1, "1g.5gb", timeSharing(3))},
		{name: "L4 time-sharing 4", machine: "g2-standard-4", accel: accel("nvidia-l4", 1, "", timeSharing(4))},
		{name: "L4 MPS 2", machine: "g2-standard-4", accel: accel("nvidia-l4", 1, "", mps(2))},
		{name: "T4 time-sharing 48", machine: "n1-standard-4", accel: accel("nvidia-tesla-t4", 1, "", timeSharing(48))},
		// No GKE source refuses MPS on MIG partitions (see validateGPUSharing).
		{name: "A100 1g.5gb MPS 2", machine: "a2-highgpu-1g", accel: accel("nvidia-tesla-a100", 1, "1g.5gb", mps(2))},
		{
			name: "MIG on L4", machine: "g2-standard-4", accel: accel("nvidia-l4", 1, "1g.5gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `GPU partitioning is not supported for accelerator type "nvidia-l4"; gpu_partition_size "1g.5gb" is invalid. ` + migHint},
		},
		{
			name: "MIG on H100 mega", machine: "a3-megagpu-8g", accel: accel("nvidia-h100-mega-80gb", 8, "1g.10gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `GPU partitioning is not supported for accelerator type "nvidia-h100-mega-80gb"; gpu_partition_size "1g.10gb" is invalid. ` + migHint},
		},
		{
			name: "MIG on T4", machine: "n1-standard-8", accel: accel("nvidia-tesla-t4", 1, "1g.5gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `GPU partitioning is not supported for accelerator type "nvidia-tesla-t4"; gpu_partition_size "1g.5gb" is invalid. ` + migHint},
		},
		{
			name: "H100 size on H200", machine: "a3-ultragpu-8g", accel: accel("nvidia-h200-141gb", 8, "1g.20gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `Invalid gpu_partition_size "1g.20gb" for accelerator type "nvidia-h200-141gb"; valid sizes are 1g.18gb, 1g.35gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb.`},
		},
		{
			name: "H200 size on B200", machine: "a4-highgpu-8g", accel: accel("nvidia-b200", 8, "1g.18gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `Invalid gpu_partition_size "1g.18gb" for accelerator type "nvidia-b200"; valid sizes are 1g.23gb, 1g.45gb, 2g.45gb, 3g.90gb, 4g.90gb, 7g.180gb.`},
		},
		{
			name: "1g.10gb on A100 40GB", machine: "a2-highgpu-1g", accel: accel("nvidia-tesla-a100", 1, "1g.10gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `Invalid gpu_partition_size "1g.10gb" for accelerator type "nvidia-tesla-a100"; valid sizes are 1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb.`},
		},
		{
			name: "1g.20gb on A100 80GB", machine: "a2-ultragpu-1g", accel: accel("nvidia-a100-80gb", 1, "1g.20gb", nil),
			wantErr: &gotErr{codes.InvalidArgument, `Invalid gpu_partition_size "1g.20gb" for accelerator type "nvidia-a100-80gb"; valid sizes are 1g.10gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb.`},
		},
		{
			name: "49 clients", machine: "g2-standard-4", accel: accel("nvidia-l4", 1, "", timeSharing(49)),
			wantErr: &gotErr{codes.InvalidArgument, `Invalid gpu_sharing_config.max_shared_clients_per_gpu 49 for accelerator type "nvidia-l4"; it must be between 2 and 48.`},
		},
		{
			name: "1 client", machine: "g2-standard-4", accel: accel("nvidia-l4", 1, "", mps(1)),
			wantErr: &gotErr{codes.InvalidArgument, `Invalid gpu_sharing_config.max_shared_clients_per_gpu 1 for accelerator type "nvidia-l4"; it must be between 2 and 48.`},
		},
		{
			name: "sharing without strategy", machine: "g2-standard-4",
			accel:   accel("nvidia-l4", 1, "", &containerpb.GPUSharingConfig{MaxSharedClientsPerGpu: 3}),
			wantErr: &gotErr{codes.InvalidArgument, `gpu_sharing_config.gpu_sharing_strategy must be specified (TIME_SHARING or MPS) for accelerator type "nvidia-l4".`},
		},
		{
			name: "sharing with UNSPECIFIED strategy", machine: "g2-standard-4",
			accel: accel("nvidia-l4", 1, "", &containerpb.GPUSharingConfig{
				MaxSharedClientsPerGpu: 3, GpuSharingStrategy: containerpb.GPUSharingConfig_GPU_SHARING_STRATEGY_UNSPECIFIED.Enum(),
			}),
			wantErr: &gotErr{codes.InvalidArgument, `gpu_sharing_config.gpu_sharing_strategy must be specified (TIME_SHARING or MPS) for accelerator type "nvidia-l4".`},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cluster := fmt.Sprintf("gs%d", i) // own cluster: no op conflicts
			e.srv.Container.AddCluster(project, location, cluster, false)
			_, err := e.cm.CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{
				Parent: clusterName(cluster), NodePool: poolWith("np", tt.machine, tt.accel),
			})
			if tt.wantErr != nil {
				if diff := cmp.Diff(*tt.wantErr, errOf(err)); diff != "" {
					t.Fatalf("CreateNodePool error (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("CreateNodePool: %v", err)
			}
			got := e.getPool(t, cluster, "np").Config.Accelerators
			if diff := cmp.Diff([]*containerpb.AcceleratorConfig{tt.accel}, got, protocmp.Transform()); diff != "" {
				t.Errorf("accelerators read back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUpdateNodePoolGPUSharing: the sharing config and the driver
// installation config change in place (read back by GetNodePool); type, count
// and partition size do not; an empty accelerators list is a no-op.
func TestUpdateNodePoolGPUSharing(t *testing.T) {
	t.Parallel()
	labels := &containerpb.NodeLabels{Labels: map[string]string{"team": "ml"}}
	tests := []struct {
		name      string
		pool      *containerpb.NodePool
		req       *containerpb.UpdateNodePoolRequest
		wantErr   *gotErr
		wantAccel []*containerpb.AcceleratorConfig // read back; the pool's own when the update is refused
	}{
		{
			name:      "time-sharing 3 to 4",
			pool:      poolWith("np", "g2-standard-4", accel("nvidia-l4", 1, "", timeSharing(3))),
			req:       &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{accel("nvidia-l4", 1, "", timeSharing(4))}},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-l4", 1, "", timeSharing(4))},
		},
		{
			name:      "TIME_SHARING to MPS on L4",
			pool:      poolWith("np", "g2-standard-4", accel("nvidia-l4", 1, "", timeSharing(3))),
			req:       &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{accel("nvidia-l4", 1, "", mps(3))}},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-l4", 1, "", mps(3))},
		},
		{
			name: "driver and sharing in one request, MIG kept",
			pool: poolWith("np", "a2-highgpu-1g",
				withDriver(accel("nvidia-tesla-a100", 1, "1g.5gb", timeSharing(3)), containerpb.GPUDriverInstallationConfig_DEFAULT)),
			req: &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{
				withDriver(accel("nvidia-tesla-a100", 1, "1g.5gb", timeSharing(5)), containerpb.GPUDriverInstallationConfig_LATEST),
			}},
			wantAccel: []*containerpb.AcceleratorConfig{
				withDriver(accel("nvidia-tesla-a100", 1, "1g.5gb", timeSharing(5)), containerpb.GPUDriverInstallationConfig_LATEST),
			},
		},
		{
			name:      "partition size change refused",
			pool:      poolWith("np", "a2-highgpu-1g", accel("nvidia-tesla-a100", 1, "1g.5gb", nil)),
			req:       &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-a100", 1, "2g.10gb", nil)}},
			wantErr:   &gotErr{codes.InvalidArgument, `GPU partition size: "1g.5gb" should not be updated (requested "2g.10gb"); create a new node pool for another partition size.`},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-a100", 1, "1g.5gb", nil)},
		},
		{
			name:      "count change refused",
			pool:      poolWith("np", "n1-standard-4", accel("nvidia-tesla-t4", 1, "", timeSharing(2))),
			req:       &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-t4", 2, "", timeSharing(2))}},
			wantErr:   &gotErr{codes.InvalidArgument, "Accelerator count: 1 should not be updated."},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-t4", 1, "", timeSharing(2))},
		},
		{
			name:      "type change refused",
			pool:      poolWith("np", "n1-standard-4", accel("nvidia-tesla-t4", 1, "", nil)),
			req:       &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-p4", 1, "", nil)}},
			wantErr:   &gotErr{codes.InvalidArgument, "Accelerator type: nvidia-tesla-t4 should not be updated (requested nvidia-tesla-p4); create a new node pool for another accelerator type."},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-t4", 1, "", nil)},
		},
		{
			name:      "invalid sharing in update refused",
			pool:      poolWith("np", "g2-standard-4", accel("nvidia-l4", 1, "", timeSharing(3))),
			req:       &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{accel("nvidia-l4", 1, "", timeSharing(49))}},
			wantErr:   &gotErr{codes.InvalidArgument, `Invalid gpu_sharing_config.max_shared_clients_per_gpu 49 for accelerator type "nvidia-l4"; it must be between 2 and 48.`},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-l4", 1, "", timeSharing(3))},
		},
		// An empty repeated field is not sent on the wire, so the server
		// sees no accelerators at all: this checks the labels update goes
		// through alone and leaves the GPUs as they are.
		{
			name:      "empty accelerators with labels is a no-op for accelerators",
			pool:      poolWith("np", "a2-highgpu-1g", accel("nvidia-tesla-a100", 1, "1g.5gb", timeSharing(3))),
			req:       &containerpb.UpdateNodePoolRequest{Labels: labels, Accelerators: []*containerpb.AcceleratorConfig{}},
			wantAccel: []*containerpb.AcceleratorConfig{accel("nvidia-tesla-a100", 1, "1g.5gb", timeSharing(3))},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t) // own server: each subtest drives its own clock
			e.srv.Container.AddCluster(project, location, "c", false)
			e.givenPool(t, tt.pool)
			tt.req.Name = poolName("c", "np")
			op, err := e.cm.UpdateNodePool(context.Background(), tt.req)
			if tt.wantErr != nil {
				if diff := cmp.Diff(*tt.wantErr, errOf(err)); diff != "" {
					t.Fatalf("UpdateNodePool error (-want +got):\n%s", diff)
				}
			} else {
				e.finish(t, mustOp(t)(op, err))
			}
			np := e.getPool(t, "c", "np")
			if diff := cmp.Diff(tt.wantAccel, np.Config.Accelerators, protocmp.Transform()); diff != "" {
				t.Errorf("accelerators read back (-want +got):\n%s", diff)
			}
			if tt.req.Labels != nil {
				if diff := cmp.Diff(tt.req.Labels.Labels, np.Config.Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			}
		})
	}
}
