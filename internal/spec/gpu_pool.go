package spec

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

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

// Validate reports every problem with the pool that can be found without
// asking GKE, each once, at the attribute to fix, with how to fix it. A rule
// that depends on another attribute is skipped while that attribute is
// itself wrong, so one mistake is one error. The rules that need the
// cluster's location (ValidateLocation) run when Location is set.
func (p GPUPool) Validate() FieldErrors {
	var errs FieldErrors
	switch problem := poolNameProblem(p.Name, poolNameMaxLen); {
	case p.Name == "":
		errs.add(Path{"name"}, "Missing Name", "a GPU pool needs a name, e.g. \"l4-spot\".")
	case problem != "":
		errs.add(Path{"name"}, "Invalid Node Pool Name",
			"%q is not a valid GKE node pool name: %s. Use 1 to 40 lower-case letters, digits and '-', starting with a letter and not ending with '-', e.g. %q.",
			p.Name, problem, poolSuggestName(p.Name, poolNameMaxLen))
	}
	p.validateCluster(&errs)
	p.validateGPU(&errs)
	p.validateCapacity(&errs)
	p.validateAutoscaling(&errs)
	p.validatePlacement(&errs)
	p.validateZones(&errs)
	p.validateNodeLabels(&errs)
	p.validateTaints(&errs)
	p.validateResourceLabels(&errs)
	p.validateDisk(&errs)
	if p.ServiceAccount != "" {
		if problem := poolServiceAccountProblem(p.ServiceAccount); problem != "" {
			errs.add(Path{"service_account"}, "Invalid Service Account",
				"%q is not a Google service account: %s. Use a service account's e-mail, e.g. \"gpu-nodes@%s.iam.gserviceaccount.com\", or leave service_account out for the project's Compute Engine default.",
				p.ServiceAccount, problem, poolExampleProject(p.Project))
		}
	}
	if p.Location != "" {
		errs = append(errs, p.ValidateLocation()...)
	}
	return errs
}

// ValidateLocation reports the problems that need the cluster's location:
// zones of node_locations outside the cluster's region. Validate runs it
// when Location is set; a plan that takes the location from the provider
// runs it once that is known.
func (p GPUPool) ValidateLocation() FieldErrors {
	var errs FieldErrors
	if poolLocationProblem(p.Location) != "" {
		return nil // reported at location, or the provider's to report
	}
	// containerpb NodePool.locations: "The list of Google Compute Engine
	// zones in which the NodePool's nodes should be located"; they must be
	// in the cluster's region (GKE, node locations of regional and zonal
	// clusters).
	region := poolRegionOf(p.Location)
	var outside []string
	for _, z := range p.NodeLocations {
		if poolZoneProblem(z) == "" && poolRegionOf(z) != region {
			outside = append(outside, fmt.Sprintf("%q", z))
		}
	}
	if len(outside) > 0 { // one mistake (another region), one error
		errs.add(Path{"node_locations"}, "Zone Outside The Cluster's Region",
			"%s %s not in region %q of the cluster (location %q). Use zones of %s, e.g. %q.",
			strings.Join(outside, " and "), map[bool]string{true: "is", false: "are"}[len(outside) == 1], region, p.Location, region, region+"-a")
	}
	return errs
}

// validateCluster checks the cluster's project, location and name when the
// resource sets them (empty: the provider's, checked there).
func (p GPUPool) validateCluster(errs *FieldErrors) {
	if p.Project != "" {
		if problem := poolProjectProblem(p.Project); problem != "" {
			errs.add(Path{"project"}, "Invalid Project",
				"%q is not a Google Cloud project ID: %s. Use the project's ID (6 to 30 lower-case letters, digits and '-', starting with a letter), e.g. \"ml-training-prod\".",
				p.Project, problem)
		}
	}
	if p.Location != "" {
		if problem := poolLocationProblem(p.Location); problem != "" {
			errs.add(Path{"location"}, "Invalid Location",
				"%q is not a cluster location: %s. Use the cluster's region, e.g. \"us-central1\", or its zone, e.g. \"us-central1-a\".", p.Location, problem)
		}
	}
	if p.Cluster != "" {
		// GKE cluster names follow the node pool naming rule.
		if problem := poolNameProblem(p.Cluster, poolNameMaxLen); problem != "" {
			errs.add(Path{"cluster"}, "Invalid Cluster Name",
				"%q is not a GKE cluster name: %s. Use the cluster's name (1 to 40 lower-case letters, digits and '-', starting with a letter), e.g. %q.",
				p.Cluster, problem, poolSuggestName(p.Cluster, poolNameMaxLen))
		}
	}
}

func (p GPUPool) validateGPU(errs *FieldErrors) {
	if p.GPU.Driver != "" && !slices.Contains(GPUDrivers, p.GPU.Driver) {
		// containerpb GPUDriverInstallationConfig: INSTALLATION_DISABLED |
		// DEFAULT | LATEST.
		errs.add(Path{"gpu", "driver"}, "Invalid GPU Driver",
			"driver %q is not one of %s: %q installs GKE's default driver for the node version, %q the newest, %q none (you install it).%s",
			p.GPU.Driver, strings.Join(GPUDrivers, ", "), GPUDriverDefault, GPUDriverLatest, GPUDriverDisabled, poolCaseHint(p.GPU.Driver, GPUDrivers))
	}
	// The accelerators and machine types GKE offers: internal/catalog
	// (GKE GPU node pools; containerpb AcceleratorConfig).
	a, ok := catalog.Lookup(p.GPU.Type)
	if !ok {
		errs.add(Path{"gpu", "type"}, "Unknown GPU Type", "GPU type %q is not one GKE node pools offer here; use one of %s.%s",
			p.GPU.Type, strings.Join(catalog.Types(), ", "), poolCaseHint(p.GPU.Type, catalog.Types()))
		return // the count and machine type cannot be checked against a GPU that does not exist
	}
	if !slices.Contains(a.Counts(), p.GPU.Count) {
		// On the accelerator-optimized families the GPUs are part of the
		// machine shape: only the counts of its machine types exist.
		errs.add(Path{"gpu", "count"}, "GPU Count Not Offered", "%s comes in %s GPUs per node, not %d.",
			p.GPU.Type, joinInts(a.Counts()), p.GPU.Count)
		return
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
	if slices.Contains(fits, p.MachineType) {
		return
	}
	if t, n, known := catalog.LookupMachineType(p.MachineType); known {
		errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
			"machine type %q carries %d × %s, but gpu asks for %d × %s. Use %s, or change gpu to match.",
			p.MachineType, n, t, p.GPU.Count, p.GPU.Type, poolOrList(fits))
	} else if _, _, known := catalog.LookupMachineType(strings.ToLower(p.MachineType)); known {
		errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
			"machine types are written in lower case: %q. %d × %s come with %s.", strings.ToLower(p.MachineType), p.GPU.Count, p.GPU.Type, poolOrList(fits))
	} else {
		errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
			"machine type %q does not carry %s GPUs; %d × %s come with %s.", p.MachineType, p.GPU.Type, p.GPU.Count, p.GPU.Type, poolOrList(fits))
	}
}

// poolCaseHint suggests the allowed value v differs from only in case.
func poolCaseHint(v string, allowed []string) string {
	for _, a := range allowed {
		if v != a && strings.EqualFold(strings.TrimSpace(v), a) {
			return fmt.Sprintf(" Values are case-sensitive: write %q.", a)
		}
	}
	return ""
}

func (p GPUPool) validateCapacity(errs *FieldErrors) {
	capacityOK := slices.Contains(Capacities, p.Capacity)
	switch {
	case capacityOK:
	case p.Capacity == "":
		errs.add(Path{"capacity"}, "Invalid Capacity",
			"capacity is empty. Leave it out for on_demand, or set one of %s.", strings.Join(Capacities, ", "))
	default:
		errs.add(Path{"capacity"}, "Invalid Capacity",
			"capacity %q is not one of %s: on_demand (the default), spot (preemptible, cheaper), flex_start (waits for capacity, at most 7 days) or reservation (a Compute Engine reservation).%s",
			p.Capacity, strings.Join(Capacities, ", "), poolCaseHint(p.Capacity, Capacities))
	}
	r := p.Reservation
	affinityOK := r == nil || slices.Contains(ReservationAffinities, r.Affinity)
	if r != nil {
		// containerpb ReservationAffinity: NO_RESERVATION | ANY_RESERVATION |
		// SPECIFIC_RESERVATION, the last with the reservation's name.
		switch {
		case !affinityOK:
			errs.add(Path{"reservation", "affinity"}, "Invalid Reservation Affinity",
				"affinity %q is not one of %s: specific consumes the reservation named in name; any, any matching reservation; none, no reservation.%s",
				r.Affinity, strings.Join(ReservationAffinities, ", "), poolCaseHint(r.Affinity, ReservationAffinities))
		case r.Affinity == ReservationSpecific && r.Name == "":
			errs.add(Path{"reservation", "name"}, "Reservation Name Missing",
				"%v needs the reservation's name, e.g. %v (or \"projects/OWNER_PROJECT/reservations/NAME\" for a shared one).",
				set("affinity", ReservationSpecific), set("name", "h100-reservation"))
		case r.Affinity != ReservationSpecific && r.Name != "":
			errs.add(Path{"reservation", "name"}, "Reservation Name Without Specific Affinity",
				"a reservation name only applies with %v; set %[1]v, or remove name.", set("affinity", ReservationSpecific))
		case r.Name != "":
			if problem := poolReservationProblem(r.Name); problem != "" {
				errs.add(Path{"reservation", "name"}, "Invalid Reservation Name",
					"%q is not a reservation name: %s. Use the reservation's name (1 to 63 lower-case letters, digits and '-', starting with a letter, not ending with '-'), e.g. \"h100-reservation\", or projects/OWNER_PROJECT/reservations/NAME for one shared from another project.",
					r.Name, problem)
			}
		}
	}
	if capacityOK && affinityOK {
		switch {
		case p.Capacity == CapacityReservation && r == nil:
			errs.add(Path{"reservation"}, "Reservation Missing",
				"%v needs %v (or %v).", set("capacity", CapacityReservation),
				set("reservation", obj("affinity", ReservationSpecific, "name", "...")), set("affinity", ReservationAny))
		case p.Capacity == CapacityReservation && r.Affinity == ReservationNone:
			errs.add(Path{"reservation", "affinity"}, "Reservation Affinity None",
				"%v consumes a reservation, so affinity must be \"any\" or \"specific\", not \"none\".", set("capacity", CapacityReservation))
		case p.Capacity != CapacityReservation && r != nil && r.Affinity != ReservationNone:
			// Spot and flex-start VMs do not consume reservations: GKE's
			// flex-start and queued provisioning pools need
			// reservation-affinity=none (GKE, flex-start and
			// provisioningrequest guides).
			errs.add(Path{"reservation"}, "Reservation Without Reservation Capacity",
				"capacity is %q, which does not consume reservations; set %v, or remove reservation.", p.Capacity, set("capacity", CapacityReservation))
		}
	}
	if p.MaxRunDuration != 0 {
		switch {
		case !capacityOK:
		case p.Capacity != CapacityFlexStart:
			errs.add(Path{"max_run_duration"}, "Max Run Duration Needs Flex-Start",
				"max_run_duration limits flex-start nodes; capacity is %q. Remove it, or set %v.", p.Capacity, set("capacity", CapacityFlexStart))
		case p.MaxRunDuration < poolMinRunDuration || p.MaxRunDuration > MaxFlexStartRunDuration:
			errs.add(Path{"max_run_duration"}, "Max Run Duration Out Of Range",
				"flex-start nodes run between 10 minutes and 7 days (\"168h\"); %s is outside that. Write e.g. \"72h\", or leave max_run_duration out for 7 days.",
				FormatDuration(p.MaxRunDuration))
		}
	}
	if p.QueuedProvisioning && capacityOK && p.Capacity != CapacityFlexStart {
		// containerpb NodePool.QueuedProvisioning: nodes "can be only
		// obtained through queuing via the Cluster Autoscaler
		// ProvisioningRequest API": GKE's flex-start with queued provisioning.
		errs.add(Path{"queued_provisioning"}, "Queued Provisioning Needs Flex-Start",
			"queued provisioning (Dynamic Workload Scheduler) is a flex-start mode; set %v, or remove queued_provisioning.", set("capacity", CapacityFlexStart))
	}
}

// poolReservationProblem checks a reservation's name: a Compute Engine
// resource name, projects/PROJECT/reservations/NAME for a shared
// reservation (GKE, Consuming reserved zonal resources: "--reservation=
// projects/OWNER_PROJECT_ID/reservations/RESERVATION_NAME"), or
// NAME/reservationBlocks/BLOCK for one block of it.
func poolReservationProblem(name string) string {
	parts := strings.Split(name, "/")
	switch {
	case len(parts) == 1:
		return poolNameProblem(name, poolComputeNameMaxLen)
	case len(parts) == 4 && parts[0] == "projects" && parts[2] == "reservations":
		if problem := poolProjectProblem(parts[1]); problem != "" {
			return fmt.Sprintf("its project %q is not a project ID: %s", parts[1], problem)
		}
		if problem := poolNameProblem(parts[3], poolComputeNameMaxLen); problem != "" {
			return fmt.Sprintf("its reservation name %q is not valid: %s", parts[3], problem)
		}
		return ""
	case len(parts) == 3 && parts[1] == "reservationBlocks":
		for _, n := range []string{parts[0], parts[2]} {
			if problem := poolNameProblem(n, poolComputeNameMaxLen); problem != "" {
				return fmt.Sprintf("%q is not valid: %s", n, problem)
			}
		}
		return ""
	}
	return "it has '/' but is not projects/PROJECT/reservations/NAME"
}

func (p GPUPool) validateAutoscaling(errs *FieldErrors) {
	// containerpb NodePoolAutoscaling: total_min_node_count "Must be
	// greater than or equal to 0 and less than or equal to
	// total_max_node_count"; a pool with max 0 could never have a node.
	a := p.Autoscaling
	maxOK := a.MaxNodes >= 1
	if !maxOK {
		errs.add(Path{"autoscaling", "max_nodes"}, "Max Nodes Below One",
			"max_nodes is %d; a pool needs room for at least 1 node (%v scales it to zero when idle).", a.MaxNodes, set("min_nodes", 0))
	} else if zones := len(p.NodeLocations); zones > 0 && a.MaxNodes > poolMaxNodesPerZone*zones {
		errs.add(Path{"autoscaling", "max_nodes"}, "Max Nodes Above GKE's Limit",
			"GKE allows at most %d nodes per node pool in each zone; with %d zone(s) in node_locations this pool can have at most %d, not %d. Lower max_nodes, or add zones.",
			poolMaxNodesPerZone, zones, poolMaxNodesPerZone*zones, a.MaxNodes)
	}
	switch {
	case a.MinNodes < 0:
		errs.add(Path{"autoscaling", "min_nodes"}, "Negative Min Nodes", "min_nodes is %d; use 0 or more (0 scales the pool to zero when idle).", a.MinNodes)
	case maxOK && a.MinNodes > a.MaxNodes:
		errs.add(Path{"autoscaling", "min_nodes"}, "Min Nodes Above Max Nodes", "min_nodes (%d) is above max_nodes (%d); lower min_nodes or raise max_nodes.", a.MinNodes, a.MaxNodes)
	case p.Capacity == CapacityFlexStart && a.MinNodes != 0:
		// Flex-start and queued provisioning pools start empty and scale
		// from zero (GKE flex-start guides: --num-nodes=0, min 0).
		errs.add(Path{"autoscaling", "min_nodes"}, "Flex-Start Pools Scale From Zero",
			"flex-start nodes are created on demand only, so min_nodes must be 0 (it is %d).", a.MinNodes)
	}
	if a.LocationPolicy != "" && !slices.Contains(LocationPolicies, a.LocationPolicy) {
		// containerpb NodePoolAutoscaling.LocationPolicy: BALANCED | ANY.
		errs.add(Path{"autoscaling", "location_policy"}, "Invalid Location Policy",
			"location_policy %q is not one of %s: balanced spreads nodes over the zones, any takes capacity wherever it is.%s",
			a.LocationPolicy, strings.Join(LocationPolicies, ", "), poolCaseHint(a.LocationPolicy, LocationPolicies))
	}
}

func (p GPUPool) validatePlacement(errs *FieldErrors) {
	switch {
	case p.Placement == "":
	case !slices.Contains(Placements, p.Placement):
		// containerpb NodePool.PlacementPolicy.Type: COMPACT is the only type.
		errs.add(Path{"placement"}, "Invalid Placement",
			"placement %q is not a placement GKE offers: the only one is \"compact\", which places the nodes close together. Leave placement out for GKE's default placement.%s",
			p.Placement, poolCaseHint(p.Placement, Placements))
	case p.QueuedProvisioning:
		// GKE: queued provisioning pools cannot use compact placement
		// (cluster-toolkit gke-node-pool: "placement_policy cannot be
		// COMPACT when enable_queued_provisioning is true").
		errs.add(Path{"placement"}, "Compact Placement With Queued Provisioning",
			"GKE does not allow compact placement on a queued-provisioning pool. Remove placement, or set %v.", set("queued_provisioning", false))
	case p.Capacity == CapacityFlexStart:
		// "Compact placement with DWS Flex Start is only supported for A3
		// Ultra, A4, and H4D machine types" (GoogleCloudPlatform
		// cluster-toolkit gke-node-pool precondition): none of this
		// provider's machine types.
		errs.add(Path{"placement"}, "Compact Placement With Flex-Start",
			"GKE offers compact placement for flex-start nodes only on A3 Ultra, A4 and H4D machines, not on %s. Remove placement, or use another capacity.",
			p.machineTypeOrGPU())
	case len(p.NodeLocations) > 1:
		// "Compact placement is only available for node pools operating in
		// a single zone" (GKE compact placement limitations for Standard,
		// as cluster-toolkit's gke-node-pool checks it).
		errs.add(Path{"node_locations"}, "Compact Placement Needs One Zone",
			"compact placement keeps every node in one zone, but node_locations lists %d (%s). List one zone, e.g. [%q], or remove placement.",
			len(p.NodeLocations), strings.Join(p.NodeLocations, ", "), p.NodeLocations[0])
	}
}

// machineTypeOrGPU names the pool's machines for messages.
func (p GPUPool) machineTypeOrGPU() string {
	if p.MachineType != "" {
		return p.MachineType
	}
	if mt, ok := PickMachineType(p.GPU.Type, p.GPU.Count); ok {
		return mt
	}
	return p.GPU.Type + " machines"
}

func (p GPUPool) validateZones(errs *FieldErrors) {
	for _, z := range p.NodeLocations {
		if problem := poolZoneProblem(z); problem != "" {
			example := "us-central1-a"
			switch {
			case poolZoneOK(strings.ToLower(z)):
				example = strings.ToLower(z)
			case poolRegionOK(z):
				example = z + "-a"
			case p.Location != "" && poolLocationProblem(p.Location) == "":
				example = poolRegionOf(p.Location) + "-a"
			}
			errs.add(Path{"node_locations"}, "Invalid Zone", "%q is not a zone: %s. Write zones such as %q.", z, problem, example)
		}
	}
}

func (p GPUPool) validateNodeLabels(errs *FieldErrors) {
	// Kubernetes label syntax (containerpb NodeConfig.labels: "Labels must
	// use a valid Kubernetes syntax and character set").
	validateLabels(errs, Path{"labels"}, p.Labels)
	total := 0
	for _, k := range sortedKeys(p.Labels) {
		total += len(k) + len(p.Labels[k])
		if QualifiedNameProblem(k) != "" || LabelValueProblem(p.Labels[k]) != "" {
			continue // reported by validateLabels
		}
		switch {
		case strings.HasPrefix(k, ServerOwnedNodeLabelPfx):
			// GKE sets cloud.google.com/gke-* labels on its nodes itself
			// (and the provider leaves them to GKE).
			errs.add(Path{"labels", Key(k)}, "Reserved Node Label",
				"GKE sets node labels beginning with %q itself; remove %q (node_selector already selects the pool).", ServerOwnedNodeLabelPfx, k)
		case slices.Contains(poolKubeletLabels, k):
			errs.add(Path{"labels", Key(k)}, "Node Label Set By Kubernetes",
				"the kubelet and GKE set %q on every node themselves; remove it (node_selector selects the pool's nodes).", k)
		case poolKubernetesLabelRefused(k):
			errs.add(Path{"labels", Key(k)}, "Reserved Node Label",
				"the kubelet refuses to start with labels under kubernetes.io or k8s.io other than kubelet.kubernetes.io/ and node.kubernetes.io/ ones, so nodes labelled %q would never join the cluster. Use a prefix of your own, e.g. %q.",
				k, "example.com/"+k[strings.Index(k, "/")+1:])
		}
	}
	if total > poolMaxNodeLabelChars {
		errs.add(Path{"labels"}, "Node Labels Too Long",
			"GKE accepts at most %d characters of node labels (keys and values together); these have %d. Shorten or remove some.", poolMaxNodeLabelChars, total)
	}
}

func (p GPUPool) validateTaints(errs *FieldErrors) {
	for _, t := range p.Taints {
		path := Path{"taints", Key(t.Key)}
		// Kubernetes taints (containerpb NodeConfig.taints): the key a
		// qualified name, the value a label value, the effect NoSchedule,
		// PreferNoSchedule or NoExecute.
		problem := QualifiedNameProblem(t.Key)
		switch {
		case problem != "":
			errs.add(path, "Invalid Taint Key",
				"taint key %q is not valid: %s. Use e.g. \"dedicated\" or \"example.com/team\".", t.Key, problem)
		case t.Key == GPUTaintKey:
			errs.add(path, "GPU Taint Is Added By GKE",
				"GKE taints every GPU node with nvidia.com/gpu=present:NoSchedule itself; remove this taint (workload_tolerations already tolerates it).")
		case t.Key == QueuedTaintKey:
			// The provider treats it as GKE's (reconcile serverTaint).
			errs.add(path, "Queued Taint Is Added By GKE",
				"GKE taints queued-provisioning nodes with %s itself; remove this taint (with %v, workload_tolerations tolerates it).",
				QueuedTaintKey, set("queued_provisioning", true))
		case slices.Contains(poolKubernetesTaints, t.Key):
			errs.add(path, "Taint Managed By Kubernetes",
				"Kubernetes adds and removes %q on nodes itself (it marks nodes that are not ready, under pressure, cordoned or shut down); as a pool taint it would fight the node controller. Use a key of your own, e.g. \"example.com/dedicated\".", t.Key)
		}
		if t.Value != "" {
			if problem := LabelValueProblem(t.Value); problem != "" {
				errs.add(append(slices.Clone(path), "value"), "Invalid Taint Value",
					"taint value %q is not valid: %s. Use at most 63 letters, digits, '-', '_' and '.', e.g. \"true\" or \"vision\".", t.Value, problem)
			}
		}
		if !slices.Contains(TaintEffects, t.Effect) {
			errs.add(append(slices.Clone(path), "effect"), "Invalid Taint Effect",
				"taint effect %q is not one of %s.%s", t.Effect, strings.Join(TaintEffects, ", "), poolCaseHint(t.Effect, TaintEffects))
		}
	}
}

func (p GPUPool) validateResourceLabels(errs *FieldErrors) {
	for _, k := range sortedKeys(p.ResourceLabels) {
		v := p.ResourceLabels[k]
		path := Path{"resource_labels", Key(k)}
		switch {
		case strings.HasPrefix(k, "goog-"):
			// Google's services set goog-* labels (GKE's goog-gke-*,
			// goog-k8s-*); the provider leaves them to Google.
			errs.add(path, "Reserved Resource Label",
				"labels beginning with \"goog-\" are set by Google Cloud itself (GKE adds goog-gke-* ones); rename %q, e.g. %q.", k, strings.TrimPrefix(k, "goog-"))
		case k == PoolMarkerLabel:
			errs.add(path, "Reserved Resource Label",
				"%q marks the node pools mlplatform created, and is set by the provider itself; rename it.", k)
		default:
			if problem := poolResourceLabelKeyProblem(k); problem != "" {
				errs.add(path, "Invalid Resource Label Key",
					"%q is not a valid Google Cloud label key: %s. Keys are 1 to 63 lower-case letters, digits, '_' and '-', starting with a letter, e.g. \"cost-center\".", k, problem)
			} else if problem := poolResourceLabelValueProblem(v); problem != "" {
				errs.add(path, "Invalid Resource Label Value",
					"label %q has value %q, which is not a valid Google Cloud label value: %s. Values are up to 63 lower-case letters, digits, '_' and '-', e.g. %q.",
					k, v, problem, poolSuggestLabelValue(v))
			}
		}
	}
	if n := len(p.EffectiveResourceLabels()) + 1; n > poolMaxResourceLabels {
		errs.add(Path{"resource_labels"}, "Too Many Resource Labels",
			"Google Cloud allows %d labels on a resource; with the 3 default cost labels and the provider's %s this pool has %d. Remove %d.",
			poolMaxResourceLabels, PoolMarkerLabel, n, n-poolMaxResourceLabels)
	}
}

// poolSuggestLabelValue turns v into a valid Google Cloud label value.
func poolSuggestLabelValue(v string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(v) {
		if poolIsLabelRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := b.String()
	if n := utf8.RuneCountInString(out); n > poolLabelMaxChars {
		out = string([]rune(out)[:poolLabelMaxChars])
	}
	return out
}

func (p GPUPool) validateDisk(errs *FieldErrors) {
	if p.DiskSizeGB != 0 && p.DiskSizeGB < poolMinDiskGB {
		errs.add(Path{"disk", "size_gb"}, "Disk Too Small",
			"GKE needs a boot disk of at least %d GB (got %d); GPU images want 100 or more, e.g. %v.", poolMinDiskGB, p.DiskSizeGB, set("size_gb", 200))
	} else if p.DiskSizeGB > poolMaxPDDiskGB && (p.DiskType == "" || strings.HasPrefix(p.DiskType, "pd-")) {
		errs.add(Path{"disk", "size_gb"}, "Disk Too Large",
			"a Persistent Disk holds at most 64 TiB (%d GB); %d is more. Use a smaller size_gb, and Cloud Storage or Filestore for data.", poolMaxPDDiskGB, p.DiskSizeGB)
	}
	if p.DiskType == "" {
		return
	}
	family, machine := "", ""
	if a, ok := catalog.Lookup(p.GPU.Type); ok && len(a.MachineTypes) > 0 {
		// Each accelerator comes on one machine series.
		machine = p.machineTypeOrGPU()
		family = poolFamily(a.MachineTypes[0].Name)
	}
	if problem := poolDiskTypeProblem(p.DiskType, family, machine); problem != "" {
		errs.add(Path{"disk", "type"}, "Invalid Disk Type", "%s.", problem)
	}
}

// poolExampleProject is the project for example e-mails.
func poolExampleProject(project string) string {
	if project == "" {
		return "PROJECT"
	}
	return project
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
	return poolOrList(s)
}
