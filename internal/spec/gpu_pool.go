package spec

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
)

// GPUPool is a GKE node pool of GPU machines that scales with demand.
type GPUPool struct {
	Project  string
	Location string
	Cluster  string
	Name     string

	NodeLocations []string // zones; empty = the cluster's
	MachineType   string   // empty = the one machine type GPU picks
	GPU           GPU

	Capacity           string // CapacityOnDemand | CapacitySpot | CapacityFlexStart | CapacityReservation
	Reservation        *Reservation
	MaxRunDuration     time.Duration // flex-start only; 0 = GKE's default (7 days)
	QueuedProvisioning bool          // flex-start through ProvisioningRequests (Kueue's admission check)

	Autoscaling Autoscaling
	Placement   string // "" | PlacementCompact
	// PlacementPolicyName names a compact placement policy (a Compute
	// Engine resource policy of the pool's project and region) GKE uses
	// instead of one of its own; only with PlacementCompact.
	PlacementPolicyName string

	Labels         map[string]string // Kubernetes node labels
	Taints         []Taint           // node taints (sorted by key, effect)
	ResourceLabels map[string]string // Google Cloud labels on the pool's VMs

	DiskSizeGB       int    // 0 = GKE's default
	DiskType         string // "" = GKE's default
	ServiceAccount   string // "" = the project's default compute service account
	WorkloadIdentity bool   // node metadata server mode GKE_METADATA
}

// GPU is the accelerator every node of the pool carries.
type GPU struct {
	Type          string
	Count         int
	Driver        string      // GPUDriverDefault | GPUDriverLatest | GPUDriverDisabled
	PartitionSize string      // MIG partition size, e.g. "1g.5gb"; "" = whole GPUs
	Sharing       *GPUSharing // time-sharing or MPS; nil = none
}

// GPUSharing lets several containers share each GPU (or MIG partition).
type GPUSharing struct {
	Strategy   string // SharingTimeSharing | SharingMPS
	MaxClients int    // max_shared_clients_per_gpu, 2 to 48
}

// GPU sharing strategies (containerpb GPUSharingConfig: TIME_SHARING | MPS).
const (
	SharingTimeSharing = "time_sharing"
	SharingMPS         = "mps"
)

// SharingStrategies, for Validate and the schema's descriptions.
var SharingStrategies = []string{SharingTimeSharing, SharingMPS}

// Node labels GKE puts on the nodes of a pool with MIG or GPU sharing
// (GKE, "Running multi-instance GPUs", "Share GPUs with multiple workloads").
const (
	PartitionSizeLabel   = "cloud.google.com/gke-gpu-partition-size"
	SharingStrategyLabel = "cloud.google.com/gke-gpu-sharing-strategy"
	MaxClientsLabel      = "cloud.google.com/gke-max-shared-clients-per-gpu"
)

// sharingLabelValue is how GKE's node label spells a strategy.
var sharingLabelValue = map[string]string{SharingTimeSharing: "time-sharing", SharingMPS: "mps"}

// PartitionsPerGPU is how many MIG partitions one GPU holds: 1 without MIG
// (or with a size the catalog does not know, which Validate refuses).
func (g GPU) PartitionsPerGPU() int {
	if a, ok := catalog.Lookup(g.Type); ok {
		if p, ok := a.Partition(g.PartitionSize); ok {
			return p.PerGPU
		}
	}
	return 1
}

// ClientsPerGPU is how many containers share one GPU or partition: 1
// without sharing.
func (g GPU) ClientsPerGPU() int {
	if g.Sharing == nil || g.Sharing.MaxClients < 1 {
		return 1
	}
	return g.Sharing.MaxClients
}

// Sliced reports whether a node's nvidia.com/gpu count is not its GPUs.
func (g GPU) Sliced() bool { return g.PartitionSize != "" || g.Sharing != nil }

// AllocatableGPUsPerNode is what one node reports as nvidia.com/gpu: GPUs ×
// partitions per GPU × shared clients (GKE keeps every slice and share
// nvidia.com/gpu), e.g. 7 for one A100 at 1g.5gb, 21 with 3 clients on top.
func (p GPUPool) AllocatableGPUsPerNode() int {
	return p.GPU.Count * p.GPU.PartitionsPerGPU() * p.GPU.ClientsPerGPU()
}

// Reservation names the Compute Engine reservation a pool consumes.
type Reservation struct {
	Affinity string // ReservationAny | ReservationSpecific | ReservationNone
	Name     string // with ReservationSpecific
}

// Autoscaling bounds are totals across all the pool's zones.
type Autoscaling struct {
	MinNodes       int
	MaxNodes       int
	LocationPolicy string // LocationPolicyBalanced | LocationPolicyAny
}

// Capacity types.
const (
	CapacityOnDemand    = "on_demand"
	CapacitySpot        = "spot"
	CapacityFlexStart   = "flex_start"
	CapacityReservation = "reservation"
)

// GPU driver installation modes.
const (
	GPUDriverDefault  = "default"
	GPUDriverLatest   = "latest"
	GPUDriverDisabled = "disabled"
)

// Reservation affinities.
const (
	ReservationAny      = "any"
	ReservationSpecific = "specific"
	ReservationNone     = "none"
)

// Autoscaler location policies.
const (
	LocationPolicyBalanced = "balanced"
	LocationPolicyAny      = "any"
)

// PlacementCompact places nodes close together (lower network latency).
const PlacementCompact = "compact"

// MaxFlexStartRunDuration is the longest a flex-start node may run, and
// GKE's default: "for up to seven days" (GKE, About flex-start).
const MaxFlexStartRunDuration = 7 * 24 * time.Hour

// Enumerations, for Validate and the schema's descriptions.
var (
	Capacities            = []string{CapacityOnDemand, CapacitySpot, CapacityFlexStart, CapacityReservation}
	GPUDrivers            = []string{GPUDriverDefault, GPUDriverLatest, GPUDriverDisabled}
	ReservationAffinities = []string{ReservationAny, ReservationSpecific, ReservationNone}
	LocationPolicies      = []string{LocationPolicyBalanced, LocationPolicyAny}
	Placements            = []string{PlacementCompact}
)

// ServerOwnedNodeLabelPfx starts the node labels GKE sets itself.
const ServerOwnedNodeLabelPfx = "cloud.google.com/gke-"

// GPU taints and labels GKE manages on nodes.
const (
	GPUTaintKey    = "nvidia.com/gpu"
	QueuedTaintKey = "cloud.google.com/gke-queued"
	NodePoolLabel  = "cloud.google.com/gke-nodepool"
)

// DefaultLocationPolicy is the autoscaler policy a pool gets when none is
// set: ANY for spot and flex-start (take capacity wherever it is, as GKE
// recommends), BALANCED otherwise.
func DefaultLocationPolicy(capacity string) string {
	if capacity == CapacitySpot || capacity == CapacityFlexStart {
		return LocationPolicyAny
	}
	return LocationPolicyBalanced
}

// PickMachineType returns the machine type for a GPU type and count when
// exactly one carries them. GPUs attached to N1 never pick one: the
// machine's size is the user's choice.
func PickMachineType(gpuType string, count int) (string, bool) {
	if a, ok := catalog.Lookup(gpuType); ok && a.Attached {
		return "", false
	}
	m := catalog.MachineTypesFor(gpuType, count)
	if len(m) != 1 {
		return "", false
	}
	return m[0], true
}

// NodeSelector is the node labels that select the pool's nodes, for a
// Kueue ResourceFlavor's node_labels: the pool's name and, with MIG or GPU
// sharing, GKE's labels for them, so that only workloads that ask for
// slices or shares land there.
func (p GPUPool) NodeSelector() map[string]string {
	out := map[string]string{NodePoolLabel: p.Name}
	if p.GPU.PartitionSize != "" {
		out[PartitionSizeLabel] = p.GPU.PartitionSize
	}
	if s := p.GPU.Sharing; s != nil {
		out[SharingStrategyLabel] = sharingLabelValue[s.Strategy]
		out[MaxClientsLabel] = strconv.Itoa(s.MaxClients)
	}
	return out
}

// WorkloadTolerations are the tolerations a pod needs to run on the pool:
// GKE's GPU taint, the queued-provisioning taint, and one per configured taint.
func (p GPUPool) WorkloadTolerations() []Toleration {
	out := []Toleration{{Key: GPUTaintKey, Operator: "Exists", Effect: "NoSchedule"}}
	if p.QueuedProvisioning {
		out = append(out, Toleration{Key: QueuedTaintKey, Operator: "Exists", Effect: "NoSchedule"})
	}
	for _, t := range SortTaints(p.Taints) {
		if t.Key == GPUTaintKey || (p.QueuedProvisioning && t.Key == QueuedTaintKey) {
			continue
		}
		if t.Value == "" {
			out = append(out, Toleration{Key: t.Key, Operator: "Exists", Effect: t.Effect})
		} else {
			out = append(out, Toleration{Key: t.Key, Operator: "Equal", Value: t.Value, Effect: t.Effect})
		}
	}
	return out
}

// SortTaints returns taints ordered by key, then effect.
func SortTaints(ts []Taint) []Taint {
	out := slices.Clone(ts)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Key != out[j].Key {
			return out[i].Key < out[j].Key
		}
		return out[i].Effect < out[j].Effect
	})
	return out
}

// Default resource labels every pool's VMs carry, so each GPU-hour on the
// bill can be traced to a pool, its GPU and its capacity type.
const (
	CostLabelPool     = "mlplatform-pool"
	CostLabelGPU      = "mlplatform-gpu"
	CostLabelCapacity = "mlplatform-capacity"
)

// DefaultResourceLabels are the cost labels derived from the pool itself.
func (p GPUPool) DefaultResourceLabels() map[string]string {
	return map[string]string{
		CostLabelPool:     p.Name,
		CostLabelGPU:      p.GPU.Type,
		CostLabelCapacity: strings.ReplaceAll(p.Capacity, "_", "-"),
	}
}

// PoolMarkerLabel is the resource label, value ManagedBy, that marks a node
// pool the platform created (an imported one is not marked). It is the
// platform's alone: resource_labels cannot set it, and updates keep it as
// GKE holds it.
const PoolMarkerLabel = "mlplatform-managed-by"

// PoolCreationLabel is the resource label whose value the platform writes
// in the request that creates a node pool, and never changes: one creation of
// one pool, when (UTC) and a random part, e.g. "20261201t203351z-9f3a61c2".
// A resource records it as the pool's identity (a pool deleted and created
// again has another). Like PoolMarkerLabel it is the platform's alone.
const PoolCreationLabel = "mlplatform-creation"

// IsServerOrMarkerResourceLabel reports the resource labels configuration
// does not manage: Google's goog-* and the platform's marker and creation id.
func IsServerOrMarkerResourceLabel(key string) bool {
	return strings.HasPrefix(key, "goog-") || key == PoolMarkerLabel || key == PoolCreationLabel
}

// IsDefaultResourceLabel reports whether key is one of the default cost labels.
func IsDefaultResourceLabel(key string) bool {
	return key == CostLabelPool || key == CostLabelGPU || key == CostLabelCapacity
}

// EffectiveResourceLabels are the labels sent to GKE: the defaults, then
// the configured ones (which win).
func (p GPUPool) EffectiveResourceLabels() map[string]string {
	out := p.DefaultResourceLabels()
	maps.Copy(out, p.ResourceLabels)
	return out
}
