package fakegcp

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
)

// gpuAccel is the accelerator a GPU machine type comes with, and how many.
type gpuAccel struct {
	accel string
	count int64
}

// fixedGPUs lists the accelerator-optimized machine types (A2, A3, A4, G2):
// their GPUs are part of the machine shape, so type and count must match
// exactly. A3 Ultra carries H200 and A4 B200 (Compute Engine,
// Accelerator-optimized machine family; GKE, About GPUs).
var fixedGPUs = map[string]gpuAccel{
	"g2-standard-4":  {"nvidia-l4", 1},
	"g2-standard-8":  {"nvidia-l4", 1},
	"g2-standard-12": {"nvidia-l4", 1},
	"g2-standard-16": {"nvidia-l4", 1},
	"g2-standard-32": {"nvidia-l4", 1},
	"g2-standard-24": {"nvidia-l4", 2},
	"g2-standard-48": {"nvidia-l4", 4},
	"g2-standard-96": {"nvidia-l4", 8},

	"a3-highgpu-1g": {"nvidia-h100-80gb", 1},
	"a3-highgpu-2g": {"nvidia-h100-80gb", 2},
	"a3-highgpu-4g": {"nvidia-h100-80gb", 4},
	"a3-highgpu-8g": {"nvidia-h100-80gb", 8},
	"a3-megagpu-8g": {"nvidia-h100-mega-80gb", 8},

	"a3-ultragpu-8g": {"nvidia-h200-141gb", 8},
	"a4-highgpu-8g":  {"nvidia-b200", 8},

	"a2-highgpu-1g":  {"nvidia-tesla-a100", 1},
	"a2-highgpu-2g":  {"nvidia-tesla-a100", 2},
	"a2-highgpu-4g":  {"nvidia-tesla-a100", 4},
	"a2-highgpu-8g":  {"nvidia-tesla-a100", 8},
	"a2-megagpu-16g": {"nvidia-tesla-a100", 16},
	"a2-ultragpu-1g": {"nvidia-a100-80gb", 1},
	"a2-ultragpu-2g": {"nvidia-a100-80gb", 2},
	"a2-ultragpu-4g": {"nvidia-a100-80gb", 4},
	"a2-ultragpu-8g": {"nvidia-a100-80gb", 8},
}

// n1GPUs are the GPUs that attach to N1 machines, with the allowed counts.
var n1GPUs = map[string][]int64{
	"nvidia-tesla-t4":   {1, 2, 4},
	"nvidia-tesla-p4":   {1, 2, 4},
	"nvidia-tesla-v100": {1, 2, 4, 8},
}

// n1MaxVCPUs is the most vCPUs an N1 machine may have with a count of T4s
// (Compute Engine, GPU machine types, NVIDIA T4: 1 or 2 GPUs with 1-48
// vCPUs, 4 GPUs with 1-96). Other N1 GPUs are not limited here.
var n1MaxVCPUs = map[string]map[int64]int{
	"nvidia-tesla-t4": {1: 48, 2: 48, 4: 96},
}

func isGPUFamily(machineType string) bool {
	fam, _, _ := strings.Cut(machineType, "-")
	return fam == "a2" || fam == "a3" || fam == "a4" || fam == "g2"
}

// n1VCPUs is the vCPU count of a predefined N1 machine type
// (n1-standard-8: 8); 0 when the name has none.
func n1VCPUs(machineType string) int {
	i := strings.LastIndex(machineType, "-")
	n, err := strconv.Atoi(machineType[i+1:])
	if err != nil {
		return 0
	}
	return n
}

// validateAccelerators checks the machine type / accelerator pairing and, like
// GKE, fills in the built-in accelerator of A2/A3/G2 machine types when the
// request omits it; then it checks each accelerator's GPU partition size and
// GPU sharing config.
func validateAccelerators(cfg *containerpb.NodeConfig) error {
	if err := validateAcceleratorPairing(cfg); err != nil {
		return err
	}
	for _, a := range cfg.GetAccelerators() {
		if err := validateGPUPartitionSize(a); err != nil {
			return err
		}
		if err := validateGPUSharing(a); err != nil {
			return err
		}
	}
	return nil
}

// validateAcceleratorPairing checks the machine type / accelerator pairing and
// fills in the built-in accelerator of A2/A3/G2 machine types.
func validateAcceleratorPairing(cfg *containerpb.NodeConfig) error {
	mt := cfg.GetMachineType()
	accs := cfg.GetAccelerators()
	if want, ok := fixedGPUs[mt]; ok {
		if len(accs) == 0 {
			cfg.Accelerators = []*containerpb.AcceleratorConfig{{AcceleratorType: want.accel, AcceleratorCount: want.count}}
			return nil
		}
		if len(accs) != 1 || accs[0].AcceleratorType != want.accel || accs[0].AcceleratorCount != want.count {
			got := accs[0]
			return invalidArg("Machine type %q requires accelerator %q with count %d, got accelerator %q with count %d.",
				mt, want.accel, want.count, got.AcceleratorType, got.AcceleratorCount)
		}
		return nil
	}
	if isGPUFamily(mt) {
		return invalidArg("Invalid machine type %q: unknown accelerator-optimized machine type.", mt)
	}
	if len(accs) == 0 {
		return nil
	}
	if !strings.HasPrefix(mt, "n1-") {
		return invalidArg("Accelerator %q is not supported with machine type %q; GPUs attach only to N1 or accelerator-optimized (A2, A3, A4, G2) machine types.",
			accs[0].AcceleratorType, mt)
	}
	for _, a := range accs {
		counts, ok := n1GPUs[a.AcceleratorType]
		if !ok {
			return invalidArg("Accelerator %q is not supported with machine type %q; N1 machine types support %s.",
				a.AcceleratorType, mt, "nvidia-tesla-t4, nvidia-tesla-p4, nvidia-tesla-v100")
		}
		if !slices.Contains(counts, a.AcceleratorCount) {
			return invalidArg("Invalid accelerator count %d for accelerator %q on machine type %q; the required count is one of %v.",
				a.AcceleratorCount, a.AcceleratorType, mt, counts)
		}
		// Wording not recorded (no GKE message for this refusal was found).
		if maxCPUs := n1MaxVCPUs[a.AcceleratorType][a.AcceleratorCount]; maxCPUs > 0 && n1VCPUs(mt) > maxCPUs {
			return invalidArg("Machine type %q has %d vCPUs; %d accelerator(s) %q allow at most %d vCPUs.",
				mt, n1VCPUs(mt), a.AcceleratorCount, a.AcceleratorType, maxCPUs)
		}
	}
	return nil
}

// migSizes are the MIG partition sizes GKE offers per accelerator type, with
// the number of partitions per GPU (GKE docs "gpus-multi"; the 4g.* sizes are
// not in the docs table but GKE's partitioner accepts them:
// GoogleCloudPlatform/container-engine-accelerators partition_gpu.go; both
// as summarised in ../shared/reference/GKE-KUEUE-FACTS.md). Types not listed
// (e.g. nvidia-l4, nvidia-h100-mega-80gb, T4) get no MIG in the fake.
var migSizes = map[string]map[string]int{
	"nvidia-tesla-a100": {"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "4g.20gb": 1, "7g.40gb": 1},
	"nvidia-a100-80gb":  {"1g.10gb": 7, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1},
	"nvidia-h100-80gb":  {"1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1},
	"nvidia-h200-141gb": {"1g.18gb": 7, "1g.35gb": 4, "2g.35gb": 3, "3g.71gb": 2, "4g.71gb": 1, "7g.141gb": 1},
	"nvidia-b200":       {"1g.23gb": 7, "1g.45gb": 4, "2g.45gb": 3, "3g.90gb": 2, "4g.90gb": 1, "7g.180gb": 1},
}

// Bounds of gpu_sharing_config.max_shared_clients_per_gpu. 48 is GKE's
// documented maximum (timesharing-gpus, nvidia-mps-gpus). The minimum 2 is
// the range GKE's ComputeClass reference gives for maxSharedClientsPerGPU
// ("2-48", as quoted in kcl-lang/modules PR #358); no source found states it
// for the node pool API, so for node pools the lower bound is the platform's
// assumption.
const (
	minSharedClientsPerGPU = 2
	maxSharedClientsPerGPU = 48
)

// validateGPUPartitionSize refuses a partition size on an accelerator without
// MIG, and a size the accelerator does not offer. Sizes are compared exactly:
// GKE is not known to normalise them. Wording not recorded (no GKE message
// for these refusals was found).
func validateGPUPartitionSize(a *containerpb.AcceleratorConfig) error {
	size := a.GetGpuPartitionSize()
	if size == "" {
		return nil
	}
	sizes, ok := migSizes[a.GetAcceleratorType()]
	if !ok {
		return invalidArg("GPU partitioning is not supported for accelerator type %q; gpu_partition_size %q is invalid. "+
			"Leave gpu_partition_size unset, or use an accelerator type with MIG: %s.",
			a.GetAcceleratorType(), size, strings.Join(slices.Sorted(maps.Keys(migSizes)), ", "))
	}
	if _, ok := sizes[size]; !ok {
		valid := slices.Sorted(maps.Keys(sizes))
		return invalidArg("Invalid gpu_partition_size %q for accelerator type %q; valid sizes are %s.",
			size, a.GetAcceleratorType(), strings.Join(valid, ", "))
	}
	return nil
}

// validateGPUSharing checks gpu_sharing_config: a strategy must be set and the
// number of clients must be within GKE's bounds. MIG combines with both
// strategies: GKE documents time-sharing on MIG partitions, and its MPS page
// says MPS can be enabled for all NVIDIA GPU types; no GKE source found
// refuses MPS on MIG partitions, so the fake accepts it. Wording not recorded.
func validateGPUSharing(a *containerpb.AcceleratorConfig) error {
	sc := a.GetGpuSharingConfig()
	if sc == nil {
		return nil
	}
	switch sc.GetGpuSharingStrategy() {
	case containerpb.GPUSharingConfig_TIME_SHARING, containerpb.GPUSharingConfig_MPS:
	default:
		return invalidArg("gpu_sharing_config.gpu_sharing_strategy must be specified (TIME_SHARING or MPS) for accelerator type %q.",
			a.GetAcceleratorType())
	}
	if n := sc.GetMaxSharedClientsPerGpu(); n < minSharedClientsPerGPU || n > maxSharedClientsPerGPU {
		return invalidArg("Invalid gpu_sharing_config.max_shared_clients_per_gpu %d for accelerator type %q; it must be between %d and %d.",
			n, a.GetAcceleratorType(), minSharedClientsPerGPU, maxSharedClientsPerGPU)
	}
	return nil
}
