package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
)

// GPUPool.Validate: the rules GKE documents for a pool, checked before any
// request; this file holds the pool-wide ones (cluster, GPU, capacity,
// autoscaling), gpu_pool_validate_nodes.go those of its nodes.

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
	p.validateSharing(a, errs)
	if !slices.Contains(a.Counts(), p.GPU.Count) {
		// On the accelerator-optimized families the GPUs are part of the
		// machine shape: only the counts of its machine types exist.
		errs.add(Path{"gpu", "count"}, "GPU Count Not Offered", "%s comes in %s GPUs per node, not %d.",
			p.GPU.Type, joinInts(a.Counts()), p.GPU.Count)
		return
	}
	fits := catalog.MachineTypesFor(p.GPU.Type, p.GPU.Count)
	if p.MachineType == "" {
		switch {
		case a.Attached:
			// GPUs attached to N1: the machine's size is the user's choice.
			errs.add(Path{"machine_type"}, "Machine Type Needed",
				"%s attach to a general-purpose machine type you choose, so set machine_type: %s. E.g. %v.",
				poolGPUs(p.GPU.Count, a.Type), a.AttachRule, set("machine_type", poolExampleMachine(fits)))
		case len(fits) > 1:
			errs.add(Path{"machine_type"}, "Machine Type Needed",
				"%d × %s fit several machine types (%s), which differ in CPUs and memory; set machine_type to one of them.",
				p.GPU.Count, p.GPU.Type, strings.Join(fits, ", "))
		}
		return
	}
	if slices.Contains(fits, p.MachineType) {
		return
	}
	use := poolOrList(fits)
	if a.Attached {
		use = fmt.Sprintf("a machine type that takes %s, e.g. %q (%s)", poolGPUs(p.GPU.Count, a.Type), poolExampleMachine(fits), a.AttachRule)
	}
	t, counts, known := catalog.LookupMachineType(p.MachineType)
	switch {
	case known && t == p.GPU.Type && a.Attached:
		// The machine takes this GPU, in other counts.
		errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
			"machine type %q takes %s × %s, not %d. Set gpu.count to %s, or use %s.",
			p.MachineType, joinInts(counts), t, p.GPU.Count, joinInts(counts), use)
	case known && len(counts) > 1:
		errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
			"machine type %q takes %s × %s, but gpu asks for %d × %s. Use %s, or change gpu to match.",
			p.MachineType, joinInts(counts), t, p.GPU.Count, p.GPU.Type, use)
	case known:
		errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
			"machine type %q carries %d × %s, but gpu asks for %d × %s. Use %s, or change gpu to match.",
			p.MachineType, counts[0], t, p.GPU.Count, p.GPU.Type, use)
	default:
		if _, _, known := catalog.LookupMachineType(strings.ToLower(p.MachineType)); known {
			errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
				"machine types are written in lower case: %q. %d × %s come with %s.", strings.ToLower(p.MachineType), p.GPU.Count, p.GPU.Type, use)
		} else {
			errs.add(Path{"machine_type"}, "Machine Type Does Not Match GPU",
				"machine type %q does not carry %s GPUs; %d × %s come with %s.", p.MachineType, p.GPU.Type, p.GPU.Count, p.GPU.Type, use)
		}
	}
}

// poolExampleMachine is the machine type to suggest among fits: a mid-size
// N1 when it fits (the smallest ones starve a GPU of CPUs), else the first.
func poolExampleMachine(fits []string) string {
	for _, m := range []string{"n1-standard-8", "n1-standard-16"} {
		if slices.Contains(fits, m) {
			return m
		}
	}
	return fits[0]
}

// poolGPUs writes "1 × nvidia-tesla-t4".
func poolGPUs(count int, accel string) string { return fmt.Sprintf("%d × %s", count, accel) }

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
			} else if IsReservationBlock(r.Name) {
				p.validateReservationBlock(errs)
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
// IsReservationBlock reports whether a reservation name names one block of
// a reservation, RESERVATION/reservationBlocks/BLOCK.
func IsReservationBlock(name string) bool {
	parts := strings.Split(name, "/")
	return len(parts) == 3 && parts[1] == "reservationBlocks"
}

// reservationBlockFamilies are the machine families whose reservations have
// blocks: A3 Ultra and A4 (GKE, "reservation blocks" for AI Hypercomputer;
// ../shared/reference/GKE-KUEUE-FACTS.md).
var reservationBlockFamilies = []string{"a3-ultragpu-", "a4-"}

// validateReservationBlock: a block of a reservation is capacity in one
// zone, placed close together, of an A3 Ultra or A4 reservation. Cluster
// Toolkit's gke-node-pool requires explicit zones with one
// (RESERVATION/reservationBlocks/BLOCK needs zones).
func (p GPUPool) validateReservationBlock(errs *FieldErrors) {
	mt := p.machineTypeOrGPU()
	if !slices.ContainsFunc(reservationBlockFamilies, func(f string) bool { return strings.HasPrefix(mt, f) }) {
		errs.add(Path{"reservation", "name"}, "Reservation Block On Another Machine",
			"%q names a block of a reservation, and only A3 Ultra (a3-ultragpu-8g, H200) and A4 (a4-highgpu-8g, B200) reservations have blocks, not %s: "+
				"name the whole reservation, or use an H200 or B200 pool.", p.Reservation.Name, mt)
	}
	if len(p.NodeLocations) != 1 {
		errs.add(Path{"node_locations"}, "Reservation Block Needs One Zone",
			"a reservation block is capacity in one zone, and GKE takes it only in the zone listed: set node_locations to the block's zone, e.g. [\"us-central1-b\"] (it has %d).",
			len(p.NodeLocations))
	}
}

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
