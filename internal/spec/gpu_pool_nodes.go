package spec

import (
	"slices"
	"strings"
)

// What GKE puts on the nodes of a pool, said once: the rules that match
// flavors and pods against pools (internal/model) read it from here, for a
// pool in a plan and for one GKE reports alike.

// Node labels GKE sets on the nodes of a GPU pool (GKE, "About GPUs",
// "Spot VMs", "flex-start"), beside NodePoolLabel and the MIG and sharing
// labels (PartitionSizeLabel, SharingStrategyLabel, MaxClientsLabel).
const (
	AcceleratorLabel = "cloud.google.com/gke-accelerator"
	SpotLabel        = "cloud.google.com/gke-spot"
	FlexStartLabel   = "cloud.google.com/gke-flex-start"
)

// GPUResource is the extended resource a GPU pool's nodes report, whole
// GPUs, MIG slices and shares alike (GKE keeps nvidia.com/gpu).
const GPUResource = "nvidia.com/gpu"

// GPUTaint is the taint GKE puts on every GPU node, and QueuedTaint the one
// on nodes of a queued-provisioning pool (until the ProvisioningRequest that
// made them is bound).
var (
	GPUTaint    = Taint{Key: GPUTaintKey, Value: "present", Effect: "NoSchedule"}
	QueuedTaint = Taint{Key: QueuedTaintKey, Value: "true", Effect: "NoSchedule"}
)

// NodeLabels are the labels GKE puts on the pool's nodes that follow from
// the pool: its own node labels, its name, the accelerator, the MIG and
// sharing labels, spot and flex-start. GKE sets others (zone, machine
// family, ...) that the pool does not decide; KnowsNodeLabel says which keys
// NodeLabels speaks for.
func (p GPUPool) NodeLabels() map[string]string {
	out := map[string]string{}
	for k, v := range p.Labels {
		out[k] = v
	}
	for k, v := range p.NodeSelector() {
		out[k] = v
	}
	if p.GPU.Type != "" {
		out[AcceleratorLabel] = p.GPU.Type
	}
	switch p.Capacity {
	case CapacitySpot:
		out[SpotLabel] = "true"
	case CapacityFlexStart:
		out[FlexStartLabel] = "true"
	}
	return out
}

// KnowsNodeLabel reports whether NodeLabels says, for every pool, whether
// its nodes carry key: the pool's own labels and the ones GKE sets from the
// pool. Another label GKE sets itself (cloud.google.com/gke-*) cannot be
// known from the pool.
func (p GPUPool) KnowsNodeLabel(key string) bool {
	switch key {
	case NodePoolLabel, AcceleratorLabel, SpotLabel, FlexStartLabel, PartitionSizeLabel, SharingStrategyLabel, MaxClientsLabel:
		return true
	}
	_, own := p.Labels[key]
	return own || !strings.HasPrefix(key, ServerOwnedNodeLabelPfx)
}

// NodeTaints are the taints on the pool's nodes that keep pods off them
// (NoSchedule, NoExecute): GKE's GPU taint, the queued-provisioning taint,
// and the pool's own. WorkloadTolerations tolerates each of them.
func (p GPUPool) NodeTaints() []Taint {
	var out []Taint
	seen := map[Taint]bool{}
	add := func(t Taint) {
		if (t.Effect == "NoSchedule" || t.Effect == "NoExecute") && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if p.GPU.Type != "" {
		add(GPUTaint)
	}
	if p.QueuedProvisioning {
		add(QueuedTaint)
	}
	for _, t := range SortTaints(p.Taints) {
		add(t)
	}
	return out
}

// topologyFamilies are the machine families whose nodes GKE labels with
// their placement (cloud.google.com/gce-topology-block, -subblock, -host):
// GKE's page on topology-aware scheduling (AI Hypercomputer) names A4X, A4,
// A3 Ultra, A3 Mega and A3 High, Spot nodes of them with compact placement
// only (../shared/reference/GKE-KUEUE-FACTS.md, "Topology-Aware Scheduling
// on GKE").
var topologyFamilies = []string{"a4x-", "a4-", "a3-ultragpu-", "a3-megagpu-", "a3-highgpu-"}

// TopologyLabels reports whether, by what GKE documents, the pool's nodes
// carry GKE's topology labels: an A4X, A4, A3 Ultra, A3 Mega or A3 High
// machine, and, for Spot capacity, compact placement.
func (p GPUPool) TopologyLabels() bool {
	mt := p.MachineType
	if mt == "" {
		mt, _ = PickMachineType(p.GPU.Type, p.GPU.Count)
	}
	if !slices.ContainsFunc(topologyFamilies, func(f string) bool { return strings.HasPrefix(mt, f) }) {
		return false
	}
	return p.Capacity != CapacitySpot || p.Placement == PlacementCompact
}
