package fakegcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestAcceleratorMachineTypePairing(t *testing.T) {
	t.Parallel()
	e := start(t)
	type accel struct {
		Type  string
		Count int64
	}
	tests := []struct {
		machine  string
		accel    string
		count    int64
		wantCode codes.Code
		wantMsg  []string // substrings of the error message
		want     *accel   // accelerator read back (when it differs from the request)
	}{
		// G2: nvidia-l4
		{machine: "g2-standard-4", accel: "nvidia-l4", count: 1},
		{machine: "g2-standard-8", accel: "nvidia-l4", count: 1},
		{machine: "g2-standard-12", accel: "nvidia-l4", count: 1},
		{machine: "g2-standard-16", accel: "nvidia-l4", count: 1},
		{machine: "g2-standard-32", accel: "nvidia-l4", count: 1},
		{machine: "g2-standard-24", accel: "nvidia-l4", count: 2},
		{machine: "g2-standard-48", accel: "nvidia-l4", count: 4},
		{machine: "g2-standard-96", accel: "nvidia-l4", count: 8},
		{machine: "g2-standard-4", accel: "nvidia-l4", count: 2, wantCode: codes.InvalidArgument, wantMsg: []string{`"g2-standard-4"`, `"nvidia-l4"`, "count 1"}},
		{machine: "g2-standard-24", accel: "nvidia-l4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"g2-standard-24"`, `"nvidia-l4"`, "count 2"}},
		{machine: "g2-standard-96", accel: "nvidia-l4", count: 4, wantCode: codes.InvalidArgument, wantMsg: []string{`"g2-standard-96"`, "count 8"}},
		{machine: "g2-standard-4", accel: "nvidia-tesla-t4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"g2-standard-4"`, `"nvidia-l4"`, `"nvidia-tesla-t4"`}},
		{machine: "g2-standard-6", accel: "nvidia-l4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"g2-standard-6"`}},
		// A3: H100
		{machine: "a3-highgpu-1g", accel: "nvidia-h100-80gb", count: 1},
		{machine: "a3-highgpu-2g", accel: "nvidia-h100-80gb", count: 2},
		{machine: "a3-highgpu-4g", accel: "nvidia-h100-80gb", count: 4},
		{machine: "a3-highgpu-8g", accel: "nvidia-h100-80gb", count: 8},
		{machine: "a3-megagpu-8g", accel: "nvidia-h100-mega-80gb", count: 8},
		{machine: "a3-highgpu-8g", accel: "nvidia-h100-80gb", count: 4, wantCode: codes.InvalidArgument, wantMsg: []string{`"a3-highgpu-8g"`, `"nvidia-h100-80gb"`, "count 8"}},
		{machine: "a3-megagpu-8g", accel: "nvidia-h100-80gb", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{`"a3-megagpu-8g"`, `"nvidia-h100-mega-80gb"`, "count 8"}},
		{machine: "a3-highgpu-8g", accel: "nvidia-h100-mega-80gb", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{`"a3-highgpu-8g"`, `"nvidia-h100-80gb"`}},
		// A3 Ultra: H200; A4: B200
		{machine: "a3-ultragpu-8g", accel: "nvidia-h200-141gb", count: 8},
		{machine: "a4-highgpu-8g", accel: "nvidia-b200", count: 8},
		{machine: "a3-ultragpu-8g", accel: "nvidia-h200-141gb", count: 4, wantCode: codes.InvalidArgument, wantMsg: []string{`"a3-ultragpu-8g"`, `"nvidia-h200-141gb"`, "count 8"}},
		{machine: "a3-ultragpu-8g", accel: "nvidia-h100-80gb", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{`"a3-ultragpu-8g"`, `requires accelerator "nvidia-h200-141gb"`}},
		{machine: "a3-highgpu-8g", accel: "nvidia-h200-141gb", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{`"a3-highgpu-8g"`, `requires accelerator "nvidia-h100-80gb"`}},
		{machine: "a4-highgpu-8g", accel: "nvidia-h200-141gb", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{`"a4-highgpu-8g"`, `requires accelerator "nvidia-b200"`}},
		{machine: "a4-highgpu-4g", accel: "nvidia-b200", count: 4, wantCode: codes.InvalidArgument, wantMsg: []string{`"a4-highgpu-4g"`, "unknown accelerator-optimized machine type"}},
		{machine: "n1-standard-8", accel: "nvidia-b200", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"nvidia-b200"`, "N1 machine types support"}},
		// A2: A100 40GB and 80GB
		{machine: "a2-highgpu-1g", accel: "nvidia-tesla-a100", count: 1},
		{machine: "a2-highgpu-2g", accel: "nvidia-tesla-a100", count: 2},
		{machine: "a2-highgpu-4g", accel: "nvidia-tesla-a100", count: 4},
		{machine: "a2-highgpu-8g", accel: "nvidia-tesla-a100", count: 8},
		{machine: "a2-megagpu-16g", accel: "nvidia-tesla-a100", count: 16},
		{machine: "a2-ultragpu-1g", accel: "nvidia-a100-80gb", count: 1},
		{machine: "a2-ultragpu-2g", accel: "nvidia-a100-80gb", count: 2},
		{machine: "a2-ultragpu-4g", accel: "nvidia-a100-80gb", count: 4},
		{machine: "a2-ultragpu-8g", accel: "nvidia-a100-80gb", count: 8},
		{machine: "a2-highgpu-2g", accel: "nvidia-tesla-a100", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"a2-highgpu-2g"`, `"nvidia-tesla-a100"`, "count 2"}},
		{machine: "a2-megagpu-16g", accel: "nvidia-tesla-a100", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{`"a2-megagpu-16g"`, "count 16"}},
		{machine: "a2-ultragpu-1g", accel: "nvidia-tesla-a100", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"a2-ultragpu-1g"`, `"nvidia-a100-80gb"`, "count 1"}},
		{machine: "a2-highgpu-1g", accel: "nvidia-a100-80gb", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"a2-highgpu-1g"`, `"nvidia-tesla-a100"`}},
		// Built-in accelerators are filled in when omitted.
		{machine: "g2-standard-48", want: &accel{"nvidia-l4", 4}},
		{machine: "a3-megagpu-8g", want: &accel{"nvidia-h100-mega-80gb", 8}},
		{machine: "a2-ultragpu-2g", want: &accel{"nvidia-a100-80gb", 2}},
		{machine: "a3-ultragpu-8g", want: &accel{"nvidia-h200-141gb", 8}},
		{machine: "a4-highgpu-8g", want: &accel{"nvidia-b200", 8}},
		// N1 with attached T4 / V100 / P4.
		{machine: "n1-standard-4", accel: "nvidia-tesla-t4", count: 1},
		{machine: "n1-standard-8", accel: "nvidia-tesla-t4", count: 2},
		{machine: "n1-highmem-16", accel: "nvidia-tesla-t4", count: 4},
		{machine: "n1-standard-32", accel: "nvidia-tesla-t4", count: 1},
		{machine: "n1-highcpu-32", accel: "nvidia-tesla-t4", count: 2},
		{machine: "n1-standard-96", accel: "nvidia-tesla-t4", count: 4},
		{machine: "n1-highmem-64", accel: "nvidia-tesla-t4", count: 4},
		// 1 or 2 T4s take at most 48 vCPUs: the 64- and 96-vCPU N1 sizes take 4.
		{machine: "n1-standard-64", accel: "nvidia-tesla-t4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"n1-standard-64"`, "64 vCPUs", "at most 48"}},
		{machine: "n1-highmem-96", accel: "nvidia-tesla-t4", count: 2, wantCode: codes.InvalidArgument, wantMsg: []string{`"n1-highmem-96"`, "96 vCPUs", "at most 48"}},
		{machine: "n1-standard-8", accel: "nvidia-tesla-v100", count: 1},
		{machine: "n1-standard-32", accel: "nvidia-tesla-v100", count: 8},
		{machine: "n1-standard-4", accel: "nvidia-tesla-p4", count: 4},
		{machine: "n1-standard-4", accel: "nvidia-tesla-t4", count: 3, wantCode: codes.InvalidArgument, wantMsg: []string{`"n1-standard-4"`, `"nvidia-tesla-t4"`, "[1 2 4]"}},
		{machine: "n1-standard-4", accel: "nvidia-tesla-t4", count: 8, wantCode: codes.InvalidArgument, wantMsg: []string{"[1 2 4]"}},
		{machine: "n1-standard-4", accel: "nvidia-l4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"n1-standard-4"`, `"nvidia-l4"`}},
		{machine: "n1-standard-4", accel: "nvidia-tesla-a100", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"nvidia-tesla-a100"`}},
		// Machine types without GPU support.
		{machine: "e2-standard-4", accel: "nvidia-tesla-t4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"e2-standard-4"`, `"nvidia-tesla-t4"`}},
		{machine: "n2-standard-8", accel: "nvidia-l4", count: 1, wantCode: codes.InvalidArgument, wantMsg: []string{`"n2-standard-8"`, `"nvidia-l4"`}},
		{machine: "e2-standard-4"}, // CPU only
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%d", tt.machine, tt.accel, tt.count), func(t *testing.T) {
			t.Parallel()
			cluster := fmt.Sprintf("c%d", i) // own cluster: no op conflicts
			e.srv.Container.AddCluster(project, location, cluster, false)
			_, err := e.cm.CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{
				Parent: clusterName(cluster), NodePool: gpuPool("np", tt.machine, tt.accel, tt.count),
			})
			if tt.wantCode != codes.OK {
				wantCode(t, err, tt.wantCode, tt.wantMsg...)
				return
			}
			if err != nil {
				t.Fatalf("CreateNodePool: %v", err)
			}
			want := tt.want
			if want == nil && tt.accel != "" {
				want = &accel{tt.accel, tt.count}
			}
			var got *accel
			for _, a := range e.getPool(t, cluster, "np").Config.Accelerators {
				got = &accel{a.AcceleratorType, a.AcceleratorCount}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("accelerators read back (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRejectedAcceleratorPairingReasons: each wrong pairing is refused for
// its own reason, and an A2/A3/G2 shape that does not exist is refused even
// without accelerators.
func TestRejectedAcceleratorPairingReasons(t *testing.T) {
	t.Parallel()
	e := start(t)
	tests := []struct {
		name    string
		pool    *containerpb.NodePool
		wantMsg []string
	}{
		{"unknown G2 shape", gpuPool("np", "g2-standard-6", "", 0), []string{`"g2-standard-6"`, "unknown accelerator-optimized machine type"}},
		{"H100 on G2", gpuPool("np", "g2-standard-8", "nvidia-h100-80gb", 1), []string{`"g2-standard-8"`, `requires accelerator "nvidia-l4"`}},
		{"A100 on A3", gpuPool("np", "a3-highgpu-1g", "nvidia-tesla-a100", 1), []string{`"a3-highgpu-1g"`, `requires accelerator "nvidia-h100-80gb"`}},
		{"L4 on N1", gpuPool("np", "n1-standard-4", "nvidia-l4", 1), []string{`"nvidia-l4"`, "N1 machine types support"}},
		{"A100 on N1", gpuPool("np", "n1-standard-8", "nvidia-tesla-a100", 1), []string{`"nvidia-tesla-a100"`, "N1 machine types support"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cluster := "c-" + strings.NewReplacer(" ", "-").Replace(strings.ToLower(tt.name)) // own cluster: no op conflicts
			e.srv.Container.AddCluster(project, location, cluster, false)
			_, err := e.cm.CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{Parent: clusterName(cluster), NodePool: tt.pool})
			wantCode(t, err, codes.InvalidArgument, tt.wantMsg...)
		})
	}
}

// TestUpdateNodePoolMachineTypeKeepsAcceleratorPairing: changing the machine
// type of a GPU pool re-validates the pairing with its accelerators.
func TestUpdateNodePoolMachineTypeKeepsAcceleratorPairing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		machine   string
		wantCode  codes.Code
		wantMsg   []string
		wantAccel []*containerpb.AcceleratorConfig // after the op is DONE
	}{
		{name: "n1 with T4 to e2", machine: "e2-standard-4", wantCode: codes.InvalidArgument, wantMsg: []string{`"e2-standard-4"`, `"nvidia-tesla-t4"`}},
		{name: "n1 with T4 to g2", machine: "g2-standard-4", wantCode: codes.InvalidArgument, wantMsg: []string{`"g2-standard-4"`, `"nvidia-l4"`, `"nvidia-tesla-t4"`}},
		{name: "n1 with T4 to bigger n1", machine: "n1-standard-8", wantAccel: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-t4", AcceleratorCount: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			e.srv.Container.AddCluster(project, location, "c", false)
			e.givenPool(t, gpuPool("t4", "n1-standard-4", "nvidia-tesla-t4", 1))
			op, err := e.cm.UpdateNodePool(context.Background(), &containerpb.UpdateNodePoolRequest{Name: poolName("c", "t4"), MachineType: tt.machine})
			if tt.wantCode != codes.OK {
				wantCode(t, err, tt.wantCode, tt.wantMsg...)
				return
			}
			e.finish(t, mustOp(t)(op, err))
			np := e.getPool(t, "c", "t4")
			if diff := cmp.Diff(tt.wantAccel, np.Config.Accelerators, protocmp.Transform()); diff != "" {
				t.Errorf("accelerators (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDefaultBootDiskOnGPUMachines: a pool created without a disk type gets
// GKE's default for its series: hyperdisk-balanced on the Hyperdisk-only A3
// Ultra and A4, pd-balanced on A3 High and N1.
func TestDefaultBootDiskOnGPUMachines(t *testing.T) {
	t.Parallel()
	e := start(t)
	want := map[string]string{
		"a3-ultragpu-8g": "hyperdisk-balanced",
		"a4-highgpu-8g":  "hyperdisk-balanced",
		"a3-highgpu-8g":  "pd-balanced",
		"n1-standard-8":  "pd-balanced",
	}
	got := map[string]string{}
	for machine := range want {
		cluster := "disk-" + machine // own cluster: no op conflicts
		e.srv.Container.AddCluster(project, location, cluster, false)
		pool := gpuPool("np", machine, "", 0)
		if machine == "n1-standard-8" {
			pool = gpuPool("np", machine, "nvidia-tesla-t4", 1)
		}
		if _, err := e.cm.CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{Parent: clusterName(cluster), NodePool: pool}); err != nil {
			t.Fatalf("CreateNodePool(%s): %v", machine, err)
		}
		cfg := e.getPool(t, cluster, "np").Config
		got[machine] = cfg.GetDiskType()
		if bd := cfg.GetBootDisk().GetDiskType(); bd != cfg.GetDiskType() {
			t.Errorf("%s: boot_disk.disk_type %q, disk_type %q", machine, bd, cfg.GetDiskType())
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("default disk types (-want +got):\n%s", diff)
	}
}
