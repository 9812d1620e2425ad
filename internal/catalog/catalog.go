// Package catalog is the one source of truth for the GPUs a GKE node pool
// can have: each accelerator type, the machine types that carry it and how
// many GPUs per node each has, and the GPU memory. Spec validation, the GPU
// pool resource's machine-type default and the plan report all read it.
//
// Source: GKE accelerator-optimized machine families A2, A3 and G2
// (../shared/reference/GKE-KUEUE-FACTS.md). On these families the GPUs are
// part of the machine shape, so type and count must match exactly.
package catalog

import (
	"slices"
	"sort"
)

// MachineType is one machine shape and the number of GPUs it carries.
type MachineType struct {
	Name        string
	GPUsPerNode int
}

// Accelerator is one GPU type as GKE names it (AcceleratorConfig.accelerator_type).
type Accelerator struct {
	Type         string // e.g. "nvidia-h100-80gb"
	DisplayName  string // e.g. "NVIDIA H100 80GB"
	MemoryGiB    int    // GPU memory per GPU
	MachineTypes []MachineType
	Partitions   []Partition // MIG partition sizes GKE offers; none = no MIG
}

// Partition is one MIG partition size (AcceleratorConfig.gpu_partition_size)
// and how many partitions of it one GPU holds. GKE gives every partition to
// pods as one nvidia.com/gpu.
type Partition struct {
	Size   string // e.g. "1g.5gb": compute slices, then memory
	PerGPU int
}

// MaxSharedClientsPerGPU is the most containers GKE lets share one GPU (or
// one MIG partition) with time-sharing or MPS (GKE, "Share GPUs with
// multiple workloads": max-shared-clients-per-gpu at most 48).
const MaxSharedClientsPerGPU = 48

// NotOfferedPartitions are the 4g.* MIG sizes GKE's partitioner accepts
// (container-engine-accelerators partition_gpu) but GKE's documentation
// table leaves out. One 4g partition fits a GPU and leaves 3 of its 7
// compute slices idle, since a node has one partition size: the platform
// does not offer them; 3g (2 per GPU) or 7g (the whole GPU) do the job.
var NotOfferedPartitions = map[string]string{
	"4g.20gb": "nvidia-tesla-a100",
	"4g.40gb": "nvidia-a100-80gb, nvidia-h100-80gb",
}

// Partition returns the accelerator's MIG partition of the given size.
func (a Accelerator) Partition(size string) (Partition, bool) {
	for _, p := range a.Partitions {
		if p.Size == size {
			return p, true
		}
	}
	return Partition{}, false
}

// PartitionSizes are the accelerator's MIG sizes, in catalog order.
func (a Accelerator) PartitionSizes() []string {
	out := make([]string, len(a.Partitions))
	for i, p := range a.Partitions {
		out[i] = p.Size
	}
	return out
}

// Counts are the GPUs-per-node counts the accelerator comes in, ascending.
func (a Accelerator) Counts() []int {
	var out []int
	for _, m := range a.MachineTypes {
		if !slices.Contains(out, m.GPUsPerNode) {
			out = append(out, m.GPUsPerNode)
		}
	}
	sort.Ints(out)
	return out
}

// MIG partition sizes (partitions per GPU), from GKE "Running multi-instance
// GPUs" and the partitioner's profiles (../shared/reference/GKE-KUEUE-FACTS.md).
var (
	a100Partitions    = []Partition{{"1g.5gb", 7}, {"2g.10gb", 3}, {"3g.20gb", 2}, {"7g.40gb", 1}}
	a100x80Partitions = []Partition{{"1g.10gb", 7}, {"2g.20gb", 3}, {"3g.40gb", 2}, {"7g.80gb", 1}}
	h100x80Partitions = []Partition{{"1g.10gb", 7}, {"1g.20gb", 4}, {"2g.20gb", 3}, {"3g.40gb", 2}, {"7g.80gb", 1}}
)

var accelerators = []Accelerator{
	{Type: "nvidia-l4", DisplayName: "NVIDIA L4", MemoryGiB: 24, MachineTypes: []MachineType{
		{"g2-standard-4", 1}, {"g2-standard-8", 1}, {"g2-standard-12", 1}, {"g2-standard-16", 1}, {"g2-standard-32", 1},
		{"g2-standard-24", 2}, {"g2-standard-48", 4}, {"g2-standard-96", 8},
	}},
	{Type: "nvidia-h100-80gb", DisplayName: "NVIDIA H100 80GB", MemoryGiB: 80, MachineTypes: []MachineType{
		{"a3-highgpu-1g", 1}, {"a3-highgpu-2g", 2}, {"a3-highgpu-4g", 4}, {"a3-highgpu-8g", 8},
	}, Partitions: h100x80Partitions},
	{Type: "nvidia-h100-mega-80gb", DisplayName: "NVIDIA H100 Mega 80GB", MemoryGiB: 80, MachineTypes: []MachineType{
		{"a3-megagpu-8g", 8},
	}},
	// The 16-GPU A100 shape is a2-megagpu-16g in Compute Engine (the facts
	// sheet writes it a2-highgpu-16g, which does not exist).
	{Type: "nvidia-tesla-a100", DisplayName: "NVIDIA A100 40GB", MemoryGiB: 40, MachineTypes: []MachineType{
		{"a2-highgpu-1g", 1}, {"a2-highgpu-2g", 2}, {"a2-highgpu-4g", 4}, {"a2-highgpu-8g", 8}, {"a2-megagpu-16g", 16},
	}, Partitions: a100Partitions},
	{Type: "nvidia-a100-80gb", DisplayName: "NVIDIA A100 80GB", MemoryGiB: 80, MachineTypes: []MachineType{
		{"a2-ultragpu-1g", 1}, {"a2-ultragpu-2g", 2}, {"a2-ultragpu-4g", 4}, {"a2-ultragpu-8g", 8},
	}, Partitions: a100x80Partitions},
}

// Accelerators returns every known accelerator (a copy, in a fixed order).
func Accelerators() []Accelerator {
	out := make([]Accelerator, len(accelerators))
	for i, a := range accelerators {
		a.MachineTypes = slices.Clone(a.MachineTypes)
		a.Partitions = slices.Clone(a.Partitions)
		out[i] = a
	}
	return out
}

// Types returns the accelerator type names, in catalog order.
func Types() []string {
	out := make([]string, len(accelerators))
	for i, a := range accelerators {
		out[i] = a.Type
	}
	return out
}

// Lookup returns the accelerator of the given type.
func Lookup(accelType string) (Accelerator, bool) {
	for _, a := range Accelerators() {
		if a.Type == accelType {
			return a, true
		}
	}
	return Accelerator{}, false
}

// MachineTypesFor returns the machine types that carry count GPUs of
// accelType, in catalog order (nil when there are none).
func MachineTypesFor(accelType string, count int) []string {
	a, ok := Lookup(accelType)
	if !ok {
		return nil
	}
	var out []string
	for _, m := range a.MachineTypes {
		if m.GPUsPerNode == count {
			out = append(out, m.Name)
		}
	}
	return out
}

// LookupMachineType returns the accelerator type and GPU count of a GPU
// machine type.
func LookupMachineType(name string) (accelType string, gpus int, ok bool) {
	for _, a := range accelerators {
		for _, m := range a.MachineTypes {
			if m.Name == name {
				return a.Type, m.GPUsPerNode, true
			}
		}
	}
	return "", 0, false
}
