package fakegcp

import (
	"slices"
	"strings"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
)

// gpuAccel is the accelerator a GPU machine type comes with, and how many.
type gpuAccel struct {
	accel string
	count int64
}

// fixedGPUs lists the accelerator-optimized machine types (A2, A3, G2): their
// GPUs are part of the machine shape, so type and count must match exactly.
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

func isGPUFamily(machineType string) bool {
	fam, _, _ := strings.Cut(machineType, "-")
	return fam == "a2" || fam == "a3" || fam == "g2"
}

// validateAccelerators checks the machine type / accelerator pairing and, like
// GKE, fills in the built-in accelerator of A2/A3/G2 machine types when the
// request omits it.
func validateAccelerators(cfg *containerpb.NodeConfig) error {
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
		return invalidArg("Accelerator %q is not supported with machine type %q; GPUs attach only to N1 or accelerator-optimized (A2, A3, G2) machine types.",
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
	}
	return nil
}
