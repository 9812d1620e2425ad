// Package catalog is the one source of truth for the GPUs a GKE node pool
// can have: each accelerator type, the machine types that carry it and how
// many GPUs per node each has, and the GPU memory. Spec validation, the GPU
// pool resource's machine-type default and the plan report all read it.
//
// Source: GKE accelerator-optimized machine families A2, A3, A4 and G2
// (../shared/reference/GKE-KUEUE-FACTS.md). On these families the GPUs are
// part of the machine shape, so type and count must match exactly. The T4
// is the exception: it attaches to N1 general-purpose machines, and the
// count is chosen within the machine's limits (Accelerator.Attached).
package catalog

import (
	"fmt"
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
	Type        string // e.g. "nvidia-h100-80gb"
	DisplayName string // e.g. "NVIDIA H100 80GB"
	MemoryGiB   int    // GPU memory per GPU
	// MachineTypes are the machine types that carry the GPUs, one entry per
	// machine type and GPU count it takes: an accelerator-optimized machine
	// type once, with its fixed count; an N1 machine type once per count it
	// allows when Attached.
	MachineTypes []MachineType
	Partitions   []Partition // MIG partition sizes GKE offers; none = no MIG
	// Attached: the GPUs attach to a general-purpose machine type (N1) and
	// the count is chosen, within the limits the machine's size sets; the
	// machine type then never follows from the GPUs. AttachRule says those
	// limits in words, for error messages and the docs.
	Attached   bool
	AttachRule string
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
	"4g.71gb": "nvidia-h200-141gb",
	"4g.90gb": "nvidia-b200",
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
	// H200 141GB and B200: GKE's partitioner (container-engine-accelerators
	// partition_gpu/partition_gpu.go, as summarised in GKE-KUEUE-FACTS.md,
	// "Topology-Aware Scheduling on GKE"); their 4g sizes are in
	// NotOfferedPartitions.
	h200Partitions = []Partition{{"1g.18gb", 7}, {"1g.35gb", 4}, {"2g.35gb", 3}, {"3g.71gb", 2}, {"7g.141gb", 1}}
	b200Partitions = []Partition{{"1g.23gb", 7}, {"1g.45gb", 4}, {"2g.45gb", 3}, {"3g.90gb", 2}, {"7g.180gb", 1}}
)

// N1 machine types, by vCPUs (Compute Engine, General-purpose machine
// family, N1 predefined machine types: n1-standard 1 to 96 vCPUs,
// n1-highmem and n1-highcpu 2 to 96; the shared-core f1-micro and g1-small
// take no GPUs).
var n1Sizes = map[string][]int{
	"n1-standard": {1, 2, 4, 8, 16, 32, 64, 96},
	"n1-highmem":  {2, 4, 8, 16, 32, 64, 96},
	"n1-highcpu":  {2, 4, 8, 16, 32, 64, 96},
}

// t4MaxVCPUs is the most vCPUs an N1 machine may have with each T4 count
// (Compute Engine, "GPU machine types", NVIDIA T4: 1 or 2 GPUs with 1 to 48
// vCPUs and up to 312 GB of memory, 4 GPUs with 1 to 96 vCPUs and up to 624
// GB; no N1 predefined type exceeds the memory limits at those vCPU counts,
// n1-highmem-32 having 208 GB and n1-highmem-96 624 GB). N1 has no 48-vCPU
// size, so 1 or 2 T4s go up to 32 vCPUs.
var t4MaxVCPUs = map[int]int{1: 48, 2: 48, 4: 96}

// n1MachineTypes lists every N1 machine type with each GPU count it takes.
func n1MachineTypes(maxVCPUs map[int]int) []MachineType {
	var out []MachineType
	for _, count := range []int{1, 2, 4} {
		for _, series := range []string{"n1-standard", "n1-highmem", "n1-highcpu"} {
			for _, cpus := range n1Sizes[series] {
				if cpus <= maxVCPUs[count] {
					out = append(out, MachineType{fmt.Sprintf("%s-%d", series, cpus), count})
				}
			}
		}
	}
	return out
}

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
	// A3 Ultra and A4 (Compute Engine, Accelerator-optimized machine family;
	// GKE, "About GPUs in GKE": nvidia-h200-141gb on a3-ultragpu-8g,
	// nvidia-b200 on a4-highgpu-8g).
	{Type: "nvidia-h200-141gb", DisplayName: "NVIDIA H200 141GB", MemoryGiB: 141, MachineTypes: []MachineType{
		{"a3-ultragpu-8g", 8},
	}, Partitions: h200Partitions},
	{Type: "nvidia-b200", DisplayName: "NVIDIA B200", MemoryGiB: 180, MachineTypes: []MachineType{
		{"a4-highgpu-8g", 8},
	}, Partitions: b200Partitions},
	{Type: "nvidia-tesla-t4", DisplayName: "NVIDIA T4", MemoryGiB: 16, MachineTypes: n1MachineTypes(t4MaxVCPUs),
		Attached: true, AttachRule: "T4s attach to N1 machine types, n1-standard-*, n1-highmem-* and n1-highcpu-*: " +
			"1 or 2 GPUs to those of up to 32 vCPUs, 4 GPUs to any size up to 96 vCPUs"},
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

// LookupMachineType returns the accelerator type of a GPU machine type and
// the GPU counts it takes, ascending: the one it carries on an
// accelerator-optimized machine type, each count allowed on an N1 one.
func LookupMachineType(name string) (accelType string, counts []int, ok bool) {
	for _, a := range accelerators {
		for _, m := range a.MachineTypes {
			if m.Name == name {
				accelType = a.Type
				counts = append(counts, m.GPUsPerNode)
			}
		}
		if accelType != "" {
			sort.Ints(counts)
			return accelType, counts, true
		}
	}
	return "", nil, false
}
