package reconcile

import (
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Server ⇄ spec: the CreateNodePool body for a spec (BuildNodePool), the
// spec a node pool holds (FromNodePool), and the *PB helpers both use.

var (
	driverToPB = map[string]containerpb.GPUDriverInstallationConfig_GPUDriverVersion{
		spec.GPUDriverDefault:  containerpb.GPUDriverInstallationConfig_DEFAULT,
		spec.GPUDriverLatest:   containerpb.GPUDriverInstallationConfig_LATEST,
		spec.GPUDriverDisabled: containerpb.GPUDriverInstallationConfig_INSTALLATION_DISABLED,
	}
	effectToPB = map[string]containerpb.NodeTaint_Effect{
		"NoSchedule": containerpb.NodeTaint_NO_SCHEDULE, "PreferNoSchedule": containerpb.NodeTaint_PREFER_NO_SCHEDULE,
		"NoExecute": containerpb.NodeTaint_NO_EXECUTE,
	}
	sharingToPB = map[string]containerpb.GPUSharingConfig_GPUSharingStrategy{
		spec.SharingTimeSharing: containerpb.GPUSharingConfig_TIME_SHARING, spec.SharingMPS: containerpb.GPUSharingConfig_MPS,
	}
	policyToPB = map[string]containerpb.NodePoolAutoscaling_LocationPolicy{
		spec.LocationPolicyBalanced: containerpb.NodePoolAutoscaling_BALANCED, spec.LocationPolicyAny: containerpb.NodePoolAutoscaling_ANY,
	}
)

func invert[K, V comparable](m map[K]V) map[V]K {
	out := make(map[V]K, len(m))
	for k, v := range m {
		out[v] = k
	}
	return out
}

var (
	driverFromPB  = invert(driverToPB)
	sharingFromPB = invert(sharingToPB)
	effectFromPB  = invert(effectToPB)
	policyFromPB  = invert(policyToPB)
)

const reservationNameKey = "compute.googleapis.com/reservation-name"

// serverTaint reports taints GKE adds itself.
func serverTaint(key string) bool { return key == spec.GPUTaintKey || key == spec.QueuedTaintKey }

// BuildNodePool is the CreateNodePool body for a pool: its resource labels
// carry the platform's marker (spec.PoolMarkerLabel).
func BuildNodePool(p spec.GPUPool) *containerpb.NodePool {
	mt := p.MachineType
	if mt == "" {
		mt, _ = spec.PickMachineType(p.GPU.Type, p.GPU.Count)
	}
	cfg := &containerpb.NodeConfig{
		MachineType:            mt,
		DiskSizeGb:             int32(p.DiskSizeGB),
		DiskType:               p.DiskType,
		ServiceAccount:         p.ServiceAccount,
		Labels:                 maps.Clone(p.Labels),
		Taints:                 taintsToPB(p.Taints),
		ResourceLabels:         poolMarked(p.EffectiveResourceLabels()),
		Accelerators:           acceleratorsPB(p.GPU),
		Spot:                   p.Capacity == spec.CapacitySpot,
		WorkloadMetadataConfig: &containerpb.WorkloadMetadataConfig{Mode: workloadMode(p.WorkloadIdentity)},
		ReservationAffinity:    reservationPB(p),
	}
	// Flex-start, queued or not: "to use flex-start with queued provisioning,
	// you have to add the --flex-start and --enable-queued-provisioning flags
	// when you create the node pool" (GKE, Run a large-scale workload with
	// flex-start with queued provisioning). GKE 1.30 still took a queued pool
	// without it, labelled on-demand (recorded: k8s-config-connector
	// containernodepool-queuedprovisioning/_http.log); the current docs decide.
	// Pools created without it read the same (FromNodePool), so none is replaced.
	if p.Capacity == spec.CapacityFlexStart {
		cfg.FlexStart = proto.Bool(true)
	}
	if p.MaxRunDuration > 0 {
		cfg.MaxRunDuration = durationpb.New(p.MaxRunDuration)
	}
	np := &containerpb.NodePool{
		Name:             p.Name,
		Config:           cfg,
		InitialNodeCount: 0, // the autoscaler brings the pool to min_nodes
		Locations:        slices.Clone(p.NodeLocations),
		Autoscaling:      autoscalingPB(p),
		Management:       &containerpb.NodeManagement{AutoRepair: true, AutoUpgrade: true},
	}
	if p.Placement == spec.PlacementCompact {
		np.PlacementPolicy = &containerpb.NodePool_PlacementPolicy{Type: containerpb.NodePool_PlacementPolicy_COMPACT, PolicyName: p.PlacementPolicyName}
	}
	if p.QueuedProvisioning {
		np.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
	}
	return np
}

func poolMarked(labels map[string]string) map[string]string {
	labels[spec.PoolMarkerLabel] = spec.ManagedBy
	return labels
}

// PoolCreated reports whether a node pool carries the platform's marker.
func PoolCreated(np *containerpb.NodePool) bool {
	return np.GetConfig().GetResourceLabels()[spec.PoolMarkerLabel] == spec.ManagedBy
}

func workloadMode(on bool) containerpb.WorkloadMetadataConfig_Mode {
	if on {
		return containerpb.WorkloadMetadataConfig_GKE_METADATA
	}
	return containerpb.WorkloadMetadataConfig_GCE_METADATA
}

func acceleratorsPB(g spec.GPU) []*containerpb.AcceleratorConfig {
	d := g.Driver
	if d == "" {
		d = spec.GPUDriverDefault
	}
	a := &containerpb.AcceleratorConfig{
		AcceleratorType:             g.Type,
		AcceleratorCount:            int64(g.Count),
		GpuPartitionSize:            g.PartitionSize,
		GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: driverToPB[d].Enum()},
	}
	if s := g.Sharing; s != nil {
		a.GpuSharingConfig = &containerpb.GPUSharingConfig{
			MaxSharedClientsPerGpu: int64(s.MaxClients),
			GpuSharingStrategy:     sharingToPB[s.Strategy].Enum(),
		}
	}
	return []*containerpb.AcceleratorConfig{a}
}

func autoscalingPB(p spec.GPUPool) *containerpb.NodePoolAutoscaling {
	pol := p.Autoscaling.LocationPolicy
	if pol == "" {
		pol = spec.DefaultLocationPolicy(p.Capacity)
	}
	return &containerpb.NodePoolAutoscaling{
		Enabled:           true,
		TotalMinNodeCount: int32(p.Autoscaling.MinNodes),
		TotalMaxNodeCount: int32(p.Autoscaling.MaxNodes),
		LocationPolicy:    policyToPB[pol],
	}
}

func reservationPB(p spec.GPUPool) *containerpb.ReservationAffinity {
	switch {
	case p.Capacity == spec.CapacityFlexStart:
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	case p.Reservation == nil:
		return nil
	case p.Reservation.Affinity == spec.ReservationSpecific:
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_SPECIFIC_RESERVATION,
			Key: reservationNameKey, Values: []string{p.Reservation.Name}}
	case p.Reservation.Affinity == spec.ReservationAny:
		return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_ANY_RESERVATION}
	}
	return &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
}

func taintsToPB(ts []spec.Taint) []*containerpb.NodeTaint {
	var out []*containerpb.NodeTaint
	for _, t := range spec.SortTaints(ts) {
		out = append(out, &containerpb.NodeTaint{Key: t.Key, Value: t.Value, Effect: effectToPB[t.Effect]})
	}
	return out
}

func taintsFromPB(ts []*containerpb.NodeTaint, keep func(key string) bool) []spec.Taint {
	var out []spec.Taint
	for _, t := range ts {
		if keep(t.GetKey()) {
			out = append(out, spec.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: effectFromPB[t.GetEffect()]})
		}
	}
	return spec.SortTaints(out)
}

// FromNodePool reads the configuration-managed part of a node pool. hint is
// the desired or previously known spec: it decides what GKE's own additions
// and defaults are (not drift) and what the configuration set explicitly.
func FromNodePool(ref GPUPoolRef, np *containerpb.NodePool, hint spec.GPUPool) spec.GPUPool {
	cfg := np.GetConfig()
	p := spec.GPUPool{
		Project: ref.Project, Location: ref.Location, Cluster: ref.Cluster, Name: np.GetName(),
		NodeLocations:    slices.Sorted(slices.Values(np.GetLocations())),
		MachineType:      cfg.GetMachineType(),
		DiskSizeGB:       int(cfg.GetDiskSizeGb()),
		DiskType:         cfg.GetDiskType(),
		ServiceAccount:   cfg.GetServiceAccount(),
		WorkloadIdentity: cfg.GetWorkloadMetadataConfig().GetMode() == containerpb.WorkloadMetadataConfig_GKE_METADATA,
	}
	if accs := cfg.GetAccelerators(); len(accs) > 0 {
		p.GPU = spec.GPU{Type: accs[0].GetAcceleratorType(), Count: int(accs[0].GetAcceleratorCount()), Driver: spec.GPUDriverDefault}
		if d, ok := driverFromPB[accs[0].GetGpuDriverInstallationConfig().GetGpuDriverVersion()]; ok {
			p.GPU.Driver = d
		}
		p.GPU.PartitionSize = accs[0].GetGpuPartitionSize()
		if sc := accs[0].GetGpuSharingConfig(); sc != nil {
			// An unknown strategy reads as "" (plan-time validation names the
			// allowed ones), so the drift shows rather than being dropped.
			p.GPU.Sharing = &spec.GPUSharing{Strategy: sharingFromPB[sc.GetGpuSharingStrategy()], MaxClients: int(sc.GetMaxSharedClientsPerGpu())}
		}
	}
	// Capacity and reservation.
	ra := cfg.GetReservationAffinity()
	p.QueuedProvisioning = np.GetQueuedProvisioning().GetEnabled()
	switch {
	case p.QueuedProvisioning || cfg.GetFlexStart():
		p.Capacity = spec.CapacityFlexStart
	case cfg.GetSpot():
		p.Capacity = spec.CapacitySpot
	case ra.GetConsumeReservationType() == containerpb.ReservationAffinity_SPECIFIC_RESERVATION,
		ra.GetConsumeReservationType() == containerpb.ReservationAffinity_ANY_RESERVATION && hint.Capacity == spec.CapacityReservation:
		p.Capacity = spec.CapacityReservation
	default:
		p.Capacity = spec.CapacityOnDemand
	}
	if p.Capacity == spec.CapacityReservation || hint.Reservation != nil {
		switch ra.GetConsumeReservationType() {
		case containerpb.ReservationAffinity_SPECIFIC_RESERVATION:
			p.Reservation = &spec.Reservation{Affinity: spec.ReservationSpecific}
			if v := ra.GetValues(); len(v) > 0 {
				p.Reservation.Name = v[0]
			}
		case containerpb.ReservationAffinity_ANY_RESERVATION:
			p.Reservation = &spec.Reservation{Affinity: spec.ReservationAny}
		case containerpb.ReservationAffinity_NO_RESERVATION:
			p.Reservation = &spec.Reservation{Affinity: spec.ReservationNone}
		}
	}
	if d := cfg.GetMaxRunDuration(); d != nil {
		p.MaxRunDuration = d.AsDuration()
		if hint.MaxRunDuration == 0 && p.MaxRunDuration == spec.MaxFlexStartRunDuration {
			p.MaxRunDuration = 0 // GKE's default
		}
	}
	// Autoscaling: totals across zones.
	if a := np.GetAutoscaling(); a.GetEnabled() {
		p.Autoscaling.MinNodes, p.Autoscaling.MaxNodes = int(a.GetTotalMinNodeCount()), int(a.GetTotalMaxNodeCount())
		if a.GetTotalMaxNodeCount() == 0 && a.GetMaxNodeCount() > 0 { // per-zone limits (set by gcloud or the console)
			zones := max(len(np.GetLocations()), 1)
			p.Autoscaling.MinNodes, p.Autoscaling.MaxNodes = int(a.GetMinNodeCount())*zones, int(a.GetMaxNodeCount())*zones
		}
		p.Autoscaling.LocationPolicy = policyFromPB[a.GetLocationPolicy()]
		if p.Autoscaling.LocationPolicy == "" { // unspecified: GKE applies BALANCED
			p.Autoscaling.LocationPolicy = spec.LocationPolicyBalanced
		}
	}
	if np.GetPlacementPolicy().GetType() == containerpb.NodePool_PlacementPolicy_COMPACT {
		p.Placement = spec.PlacementCompact
		p.PlacementPolicyName = np.GetPlacementPolicy().GetPolicyName()
	}
	for k, v := range cfg.GetLabels() {
		if !strings.HasPrefix(k, spec.ServerOwnedNodeLabelPfx) {
			if p.Labels == nil {
				p.Labels = map[string]string{}
			}
			p.Labels[k] = v
		}
	}
	p.Taints = taintsFromPB(cfg.GetTaints(), func(k string) bool { return !serverTaint(k) })
	for k, v := range cfg.GetResourceLabels() {
		_, configured := hint.ResourceLabels[k]
		if spec.IsServerOrMarkerResourceLabel(k) || (spec.IsDefaultResourceLabel(k) && !configured) {
			continue
		}
		if p.ResourceLabels == nil {
			p.ResourceLabels = map[string]string{}
		}
		p.ResourceLabels[k] = v
	}
	return p
}

// Observed turns a node pool into what Observe reports.
func Observed(ref GPUPoolRef, np *containerpb.NodePool, hint spec.GPUPool) ObservedGPUPool {
	return ObservedGPUPool{
		Spec:                    FromNodePool(ref, np, hint),
		Status:                  np.GetStatus().String(),
		StatusMessage:           np.GetStatusMessage(),
		Version:                 np.GetVersion(),
		InstanceGroupURLs:       slices.Clone(np.GetInstanceGroupUrls()),
		EffectiveResourceLabels: maps.Clone(np.GetConfig().GetResourceLabels()),
		EffectiveTaints:         taintsFromPB(np.GetConfig().GetTaints(), func(string) bool { return true }),
		pool:                    np,
	}
}
