package spec

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

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
	Type   string
	Count  int
	Driver string // GPUDriverDefault | GPUDriverLatest | GPUDriverDisabled
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

// MaxFlexStartRunDuration is the longest a flex-start node may run.
const MaxFlexStartRunDuration = 7 * 24 * time.Hour

// Enumerations, for schema validators and their descriptions.
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
// exactly one carries them.
func PickMachineType(gpuType string, count int) (string, bool) {
	m := catalog.MachineTypesFor(gpuType, count)
	if len(m) != 1 {
		return "", false
	}
	return m[0], true
}

// NodeSelector is the node labels that select the pool's nodes, for a
// Kueue ResourceFlavor's node_labels.
func (p GPUPool) NodeSelector() map[string]string {
	return map[string]string{NodePoolLabel: p.Name}
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

// IsServerOrMarkerResourceLabel reports the resource labels configuration
// does not manage: Google's goog-* and the platform's marker.
func IsServerOrMarkerResourceLabel(key string) bool {
	return strings.HasPrefix(key, "goog-") || key == PoolMarkerLabel
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

var (
	poolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)
	gcpLabelK  = regexp.MustCompile(`^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$`)
	gcpLabelV  = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$`)
	zoneRE     = regexp.MustCompile(`^[a-z]+-[a-z]+[0-9]+-[a-z]$`)
)

// Validate reports every problem with the pool that can be found without
// asking GKE, each with the attribute to fix and how.
func (p GPUPool) Validate() FieldErrors {
	var errs FieldErrors
	switch {
	case p.Name == "":
		errs.add(Path{"name"}, "Missing Name", "a GPU pool needs a name.")
	case !poolNameRE.MatchString(p.Name):
		errs.add(Path{"name"}, "Invalid Node Pool Name",
			"%q is not a valid GKE node pool name: use 1 to 40 lower-case letters, digits and '-', starting with a letter and not ending with '-', e.g. %q.",
			p.Name, suggestPoolName(p.Name))
	}
	p.validateGPU(&errs)
	p.validateCapacity(&errs)
	p.validateAutoscaling(&errs)
	if p.Placement != "" && !slices.Contains(Placements, p.Placement) {
		errs.add(Path{"placement"}, "Invalid Placement", "placement %q is not one of %s.", p.Placement, strings.Join(Placements, ", "))
	}
	if p.Placement == PlacementCompact && p.QueuedProvisioning {
		errs.add(Path{"placement"}, "Compact Placement With Queued Provisioning",
			"GKE does not allow compact placement on a queued-provisioning pool. Remove placement, or set queued_provisioning = false.")
	}
	for _, z := range p.NodeLocations {
		if !zoneRE.MatchString(z) {
			errs.add(Path{"node_locations"}, "Invalid Zone", "%q is not a zone name such as \"us-central1-a\".", z)
		} else if p.Location != "" && !strings.HasPrefix(z, regionOf(p.Location)+"-") {
			errs.add(Path{"node_locations"}, "Zone Outside The Cluster's Region",
				"zone %q is not in region %q of the cluster (location %q). Use zones of %s.", z, regionOf(p.Location), p.Location, regionOf(p.Location))
		}
	}
	validateLabels(&errs, Path{"labels"}, p.Labels)
	for _, k := range sortedKeys(p.Labels) {
		if strings.HasPrefix(k, ServerOwnedNodeLabelPfx) {
			errs.add(Path{"labels", Key(k)}, "Reserved Node Label",
				"GKE sets node labels beginning with %q itself; remove %q (node_selector already selects the pool).", ServerOwnedNodeLabelPfx, k)
		}
	}
	p.validateTaints(&errs)
	for _, k := range sortedKeys(p.ResourceLabels) {
		v := p.ResourceLabels[k]
		switch {
		case strings.HasPrefix(k, "goog-"):
			errs.add(Path{"resource_labels", Key(k)}, "Reserved Resource Label", "labels beginning with \"goog-\" are reserved for Google; rename %q.", k)
		case k == PoolMarkerLabel:
			errs.add(Path{"resource_labels", Key(k)}, "Reserved Resource Label",
				"%q marks the node pools mlplatform created, and is set by the provider itself; rename it.", k)
		case !gcpLabelK.MatchString(k):
			errs.add(Path{"resource_labels", Key(k)}, "Invalid Resource Label Key",
				"%q is not a valid Google Cloud label key: 1 to 63 lower-case letters, digits, '_' and '-', starting with a letter, e.g. %q.", k, strings.ToLower(k))
		case !gcpLabelV.MatchString(v):
			errs.add(Path{"resource_labels", Key(k)}, "Invalid Resource Label Value",
				"%q is not a valid Google Cloud label value: up to 63 lower-case letters, digits, '_' and '-', e.g. %q.", v, strings.ToLower(v))
		}
	}
	if n := len(p.EffectiveResourceLabels()) + 1; n > 64 {
		errs.add(Path{"resource_labels"}, "Too Many Resource Labels",
			"Google Cloud allows 64 labels; with the 3 default cost labels and the provider's %s this pool has %d. Remove %d.", PoolMarkerLabel, n, n-64)
	}
	if p.DiskSizeGB != 0 && p.DiskSizeGB < 10 {
		errs.add(Path{"disk", "size_gb"}, "Disk Too Small", "GKE needs a boot disk of at least 10 GB (got %d); GPU images want 100 or more.", p.DiskSizeGB)
	}
	return errs
}

func (p GPUPool) validateGPU(errs *FieldErrors) {
	a, ok := catalog.Lookup(p.GPU.Type)
	if !ok {
		errs.add(Path{"gpu", "type"}, "Unknown GPU Type", "GPU type %q is not one GKE node pools offer here; use one of %s.",
			p.GPU.Type, strings.Join(catalog.Types(), ", "))
	} else if !slices.Contains(a.Counts(), p.GPU.Count) {
		errs.add(Path{"gpu", "count"}, "GPU Count Not Offered", "%s comes in %s GPUs per node, not %d.",
			p.GPU.Type, joinInts(a.Counts()), p.GPU.Count)
	}
	if p.GPU.Driver != "" && !slices.Contains(GPUDrivers, p.GPU.Driver) {
		errs.add(Path{"gpu", "driver"}, "Invalid GPU Driver", "driver %q is not one of %s.", p.GPU.Driver, strings.Join(GPUDrivers, ", "))
	}
	if !ok || !slices.Contains(a.Counts(), p.GPU.Count) {
		return // the machine type cannot be checked against a GPU that does not exist
	}
	fits := catalog.MachineTypesFor(p.GPU.Type, p.GPU.Count)
	if p.MachineType == "" {
		if len(fits) > 1 {
			errs.add(Path{"machine_type"}, "Machine Type Needed",
				"%d × %s fit several machine types (%s), which differ in CPUs and memory; set machine_type to one of them.",
				p.GPU.Count, p.GPU.Type, strings.Join(fits, ", "))
		}
		return
	}
	if !slices.Contains(fits, p.MachineType) {
		if t, n, known := catalog.LookupMachineType(p.MachineType); known {
			errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
				"machine type %q carries %d × %s, but gpu asks for %d × %s. Use %s, or change gpu to match.",
				p.MachineType, n, t, p.GPU.Count, p.GPU.Type, strings.Join(fits, " or "))
		} else {
			errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
				"machine type %q does not carry %s GPUs; %d × %s come with %s.", p.MachineType, p.GPU.Type, p.GPU.Count, p.GPU.Type, strings.Join(fits, " or "))
		}
	}
}

func (p GPUPool) validateCapacity(errs *FieldErrors) {
	if !slices.Contains(Capacities, p.Capacity) {
		errs.add(Path{"capacity"}, "Invalid Capacity", "capacity %q is not one of %s.", p.Capacity, strings.Join(Capacities, ", "))
		return
	}
	r := p.Reservation
	switch {
	case p.Capacity == CapacityReservation && r == nil:
		errs.add(Path{"reservation"}, "Reservation Missing",
			"capacity = \"reservation\" needs reservation = { affinity = \"specific\", name = \"...\" } (or affinity = \"any\").")
	case p.Capacity == CapacityReservation && r.Affinity == ReservationNone:
		errs.add(Path{"reservation", "affinity"}, "Reservation Affinity None",
			"capacity = \"reservation\" consumes a reservation, so affinity must be \"any\" or \"specific\", not \"none\".")
	case p.Capacity != CapacityReservation && r != nil && r.Affinity != ReservationNone:
		errs.add(Path{"reservation"}, "Reservation Without Reservation Capacity",
			"capacity is %q, which does not consume reservations; set capacity = \"reservation\", or remove reservation.", p.Capacity)
	}
	if r != nil {
		switch {
		case !slices.Contains(ReservationAffinities, r.Affinity):
			errs.add(Path{"reservation", "affinity"}, "Invalid Reservation Affinity", "affinity %q is not one of %s.", r.Affinity, strings.Join(ReservationAffinities, ", "))
		case r.Affinity == ReservationSpecific && r.Name == "":
			errs.add(Path{"reservation", "name"}, "Reservation Name Missing", "affinity = \"specific\" needs the reservation's name.")
		case r.Affinity != ReservationSpecific && r.Name != "":
			errs.add(Path{"reservation", "name"}, "Reservation Name Without Specific Affinity",
				"a reservation name only applies with affinity = \"specific\"; set it, or remove name.")
		}
	}
	if p.MaxRunDuration != 0 {
		switch {
		case p.Capacity != CapacityFlexStart:
			errs.add(Path{"max_run_duration"}, "Max Run Duration Needs Flex-Start",
				"max_run_duration limits flex-start nodes; capacity is %q. Remove it, or set capacity = \"flex_start\".", p.Capacity)
		case p.MaxRunDuration < 10*time.Minute || p.MaxRunDuration > MaxFlexStartRunDuration:
			errs.add(Path{"max_run_duration"}, "Max Run Duration Out Of Range",
				"flex-start nodes run between 10 minutes and 7 days (168h); %s is outside that.", p.MaxRunDuration)
		}
	}
	if p.QueuedProvisioning && p.Capacity != CapacityFlexStart {
		errs.add(Path{"queued_provisioning"}, "Queued Provisioning Needs Flex-Start",
			"queued provisioning (Dynamic Workload Scheduler) is a flex-start mode; set capacity = \"flex_start\", or remove queued_provisioning.")
	}
}

func (p GPUPool) validateAutoscaling(errs *FieldErrors) {
	a := p.Autoscaling
	if a.MaxNodes < 1 {
		errs.add(Path{"autoscaling", "max_nodes"}, "Max Nodes Below One", "max_nodes is %d; a pool needs room for at least 1 node (min_nodes = 0 scales it to zero when idle).", a.MaxNodes)
	}
	if a.MinNodes < 0 {
		errs.add(Path{"autoscaling", "min_nodes"}, "Negative Min Nodes", "min_nodes is %d; use 0 or more.", a.MinNodes)
	} else if a.MinNodes > a.MaxNodes && a.MaxNodes >= 1 {
		errs.add(Path{"autoscaling", "min_nodes"}, "Min Nodes Above Max Nodes", "min_nodes (%d) is above max_nodes (%d); lower min_nodes or raise max_nodes.", a.MinNodes, a.MaxNodes)
	}
	if p.Capacity == CapacityFlexStart && a.MinNodes != 0 {
		errs.add(Path{"autoscaling", "min_nodes"}, "Flex-Start Pools Scale From Zero",
			"flex-start nodes are created on demand only, so min_nodes must be 0 (it is %d).", a.MinNodes)
	}
	if a.LocationPolicy != "" && !slices.Contains(LocationPolicies, a.LocationPolicy) {
		errs.add(Path{"autoscaling", "location_policy"}, "Invalid Location Policy", "location_policy %q is not one of %s.", a.LocationPolicy, strings.Join(LocationPolicies, ", "))
	}
}

func (p GPUPool) validateTaints(errs *FieldErrors) {
	for _, t := range p.Taints {
		path := Path{"taints", Key(t.Key)}
		if problems := validation.IsQualifiedName(t.Key); len(problems) > 0 {
			errs.add(path, "Invalid Taint Key", "taint key %q is not valid: %s.", t.Key, strings.Join(problems, "; "))
		}
		if t.Value != "" {
			if problems := validation.IsValidLabelValue(t.Value); len(problems) > 0 {
				errs.add(append(path, "value"), "Invalid Taint Value", "taint value %q is not valid: %s.", t.Value, strings.Join(problems, "; "))
			}
		}
		if !slices.Contains(TaintEffects, t.Effect) {
			errs.add(append(path, "effect"), "Invalid Taint Effect", "taint effect %q is not one of %s.", t.Effect, strings.Join(TaintEffects, ", "))
		}
		if t.Key == GPUTaintKey {
			errs.add(path, "GPU Taint Is Added By GKE",
				"GKE taints every GPU node with nvidia.com/gpu=present:NoSchedule itself; remove this taint (workload_tolerations already tolerates it).")
		}
	}
}

// regionOf returns the region of a region or zone name.
func regionOf(location string) string {
	if strings.Count(location, "-") == 2 {
		return location[:strings.LastIndex(location, "-")]
	}
	return location
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

func suggestPoolName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 40 {
		out = strings.TrimRight(out[:40], "-")
	}
	if out == "" || out[0] < 'a' || out[0] > 'z' {
		out = "gpu-" + out
	}
	return out
}
