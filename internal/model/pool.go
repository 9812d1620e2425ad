package model

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// What a pool provides: how its nodes report nvidia.com/gpu (whole GPUs, MIG
// slices or shares), and how many at its largest. A GPU pool whose GPUs are
// MIG-partitioned (gpu.partition_size) or shared (gpu.sharing: time-sharing
// or MPS) still reports every slice or share as one nvidia.com/gpu, so one
// node reports gpu.count × partitions per GPU × clients per GPU, and a
// Kueue quota on a flavor of such a pool counts slices or shares, not GPUs.

// Units a pool's nvidia.com/gpu stands for.
const (
	UnitGPUs   = "GPUs"
	UnitSlices = "slices" // MIG, with or without sharing on top
	UnitShares = "shares" // time-sharing or MPS without MIG
)

// Slicing is how a pool's nodes report nvidia.com/gpu.
type Slicing struct {
	Unit      string // UnitGPUs, UnitSlices or UnitShares; "" when known only after apply
	PerGPU    int64  // nvidia.com/gpu per physical GPU; 0 when unknown
	Partition string // MIG partition size, "" for none
	Strategy  string // spec.SharingTimeSharing, spec.SharingMPS, "" for none
	Clients   int64  // max_shared_clients_per_gpu
	GPUCount  int64  // gpu.count; 0 when unknown
}

// Sliced reports slices or shares.
func (s Slicing) Sliced() bool { return s.Unit == UnitSlices || s.Unit == UnitShares }

// Same compares two slicings.
func (s Slicing) Same(o Slicing) bool {
	return s.Unit == o.Unit && s.PerGPU == o.PerGPU && s.Partition == o.Partition && s.Strategy == o.Strategy && s.Clients == o.Clients
}

// StrategyText names a sharing strategy in words.
func StrategyText(s string) string {
	switch s {
	case spec.SharingTimeSharing:
		return "time-sharing"
	case spec.SharingMPS:
		return "MPS"
	}
	return s
}

// Describe names the slicing in words: "MIG 1g.5gb, 7 slices per GPU".
func (s Slicing) Describe() string {
	if s.Unit == "" {
		return "slicing " + UnknownText
	}
	if !s.Sliced() {
		return "whole GPUs"
	}
	var parts []string
	if s.Partition != "" {
		parts = append(parts, "MIG "+s.Partition)
	}
	if s.Strategy != "" {
		parts = append(parts, fmt.Sprintf("%s × %d clients", StrategyText(s.Strategy), s.Clients))
	}
	per := UnknownText
	if s.PerGPU > 0 {
		per = Itoa(s.PerGPU)
	}
	return fmt.Sprintf("%s, %s %s per GPU", strings.Join(parts, " + "), per, s.Unit)
}

// GPUType is the pool's accelerator, and whether it is known.
func (p *Pool) GPUType() (string, bool) {
	return p.Spec.GPU.Type, !p.Unknown.Any("gpu", "gpu.type") && p.Spec.GPU.Type != ""
}

// GPUCount is the pool's GPUs per node, and whether it is known.
func (p *Pool) GPUCount() (int64, bool) {
	return int64(p.Spec.GPU.Count), !p.Unknown.Any("gpu", "gpu.count")
}

// MaxNodes is the pool's autoscaling.max_nodes, and whether it is known.
func (p *Pool) MaxNodes() (int64, bool) {
	return int64(p.Spec.Autoscaling.MaxNodes), !p.Unknown.Any("autoscaling.max_nodes")
}

// MinNodes is the pool's autoscaling.min_nodes, and whether it is known:
// the nodes it keeps when nothing runs (its idle floor).
func (p *Pool) MinNodes() (int64, bool) {
	return int64(p.Spec.Autoscaling.MinNodes), !p.Unknown.Any("autoscaling.min_nodes")
}

// Capacity is the pool's capacity type, "" when known only after apply.
func (p *Pool) Capacity() string {
	if p.Unknown.Any("capacity") {
		return ""
	}
	return p.Spec.Capacity
}

// Slicing reads the pool's gpu.partition_size and gpu.sharing.
func (p *Pool) Slicing() Slicing {
	if p.Unknown.Any("gpu", "gpu.partition_size", "gpu.sharing") {
		return Slicing{}
	}
	g := p.Spec.GPU
	s := Slicing{Partition: g.PartitionSize}
	if g.Sharing != nil {
		s.Strategy, s.Clients = g.Sharing.Strategy, int64(g.Sharing.MaxClients)
	}
	if n, ok := p.GPUCount(); ok {
		s.GPUCount = n
	}
	switch {
	case s.Partition != "":
		s.Unit = UnitSlices
	case s.Strategy != "":
		s.Unit = UnitShares
	default:
		s.Unit, s.PerGPU = UnitGPUs, 1
		return s
	}
	if n, ok := p.GPUCount(); ok && p.allocKnown() && n > 0 && p.AllocatablePerNode%n == 0 {
		s.PerGPU = p.AllocatablePerNode / n
	}
	return s
}

func (p *Pool) allocKnown() bool {
	return !p.AllocatableAbsent && !p.Unknown.Any("allocatable_gpus_per_node")
}

// PerNode is the nvidia.com/gpu one node reports: allocatable_gpus_per_node,
// or gpu.count in plans of providers without that attribute (whose pools
// are never sliced). why names what is unknown.
func (p *Pool) PerNode() (q Qty, why string) {
	sl := p.Spec.GPU
	count, countKnown := p.GPUCount()
	switch {
	case p.allocKnown():
		return KnownQty(Itoa(p.AllocatablePerNode)), ""
	case !p.AllocatableAbsent:
		return UnknownQty(), "allocatable_gpus_per_node"
	case p.Unknown.Any("gpu", "gpu.partition_size", "gpu.sharing") || sl.PartitionSize != "" || sl.Sharing != nil:
		// sliced, but the plan does not say how many slices a node has: not guessed
		return UnknownQty(), "allocatable_gpus_per_node"
	case !countKnown:
		return UnknownQty(), "size"
	}
	return KnownQty(Itoa(count)), ""
}

// Units is max_nodes × PerNode: the nvidia.com/gpu the pool provides at its
// largest, or unknown.
func (p *Pool) Units() (Qty, string) {
	maxNodes, ok := p.MaxNodes()
	if !ok {
		return UnknownQty(), "size"
	}
	n, why := p.PerNode()
	if n.State != QKnown {
		return n, why
	}
	return KnownQty(Itoa(maxNodes * n.q.Value())), ""
}

// GPUsAtMax is max_nodes × gpu.count, or unknown.
func (p *Pool) GPUsAtMax() Qty {
	maxNodes, mok := p.MaxNodes()
	n, cok := p.GPUCount()
	if !mok || !cok {
		return UnknownQty()
	}
	return KnownQty(Itoa(maxNodes * n))
}

// GPUKind names the pool's GPUs and their slicing: "nvidia-l4, whole GPUs".
func (p *Pool) GPUKind() string {
	t, _ := p.GPUType()
	return t + ", " + p.Slicing().Describe()
}

// IntValue is a known quantity's value as a whole number.
func (a Qty) IntValue() (int64, bool) { return a.q.AsInt64() }

// TopologyLabels reports whether the pool's nodes carry GKE's topology
// labels (spec.GPUPool.TopologyLabels, or the plan's topology_labels), and
// whether that is known at plan time.
func (p *Pool) TopologyLabels() (carries, known bool) {
	switch {
	case p.Unknown.Any("topology_labels"):
		return false, false
	case p.TopologyLabelsSaid != nil:
		return *p.TopologyLabelsSaid, true
	case p.Unknown.Any("gpu", "machine_type", "capacity", "placement"):
		return false, false
	}
	return p.Spec.TopologyLabels(), true
}
