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

var accelerators = []Accelerator{
	{Type: "nvidia-l4", DisplayName: "NVIDIA L4", MemoryGiB: 24, MachineTypes: []MachineType{
		{"g2-standard-4", 1}, {"g2-standard-8", 1}, {"g2-standard-12", 1}, {"g2-standard-16", 1}, {"g2-standard-32", 1},
		{"g2-standard-24", 2}, {"g2-standard-48", 4}, {"g2-standard-96", 8},
	}},
	{Type: "nvidia-h100-80gb", DisplayName: "NVIDIA H100 80GB", MemoryGiB: 80, MachineTypes: []MachineType{
		{"a3-highgpu-1g", 1}, {"a3-highgpu-2g", 2}, {"a3-highgpu-4g", 4}, {"a3-highgpu-8g", 8},
	}},
	{Type: "nvidia-h100-mega-80gb", DisplayName: "NVIDIA H100 Mega 80GB", MemoryGiB: 80, MachineTypes: []MachineType{
		{"a3-megagpu-8g", 8},
	}},
	// The 16-GPU A100 shape is a2-megagpu-16g in Compute Engine (the facts
	// sheet writes it a2-highgpu-16g, which does not exist).
	{Type: "nvidia-tesla-a100", DisplayName: "NVIDIA A100 40GB", MemoryGiB: 40, MachineTypes: []MachineType{
		{"a2-highgpu-1g", 1}, {"a2-highgpu-2g", 2}, {"a2-highgpu-4g", 4}, {"a2-highgpu-8g", 8}, {"a2-megagpu-16g", 16},
	}},
	{Type: "nvidia-a100-80gb", DisplayName: "NVIDIA A100 80GB", MemoryGiB: 80, MachineTypes: []MachineType{
		{"a2-ultragpu-1g", 1}, {"a2-ultragpu-2g", 2}, {"a2-ultragpu-4g", 4}, {"a2-ultragpu-8g", 8},
	}},
}

// Accelerators returns every known accelerator (a copy, in a fixed order).
func Accelerators() []Accelerator {
	out := make([]Accelerator, len(accelerators))
	for i, a := range accelerators {
		a.MachineTypes = slices.Clone(a.MachineTypes)
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
