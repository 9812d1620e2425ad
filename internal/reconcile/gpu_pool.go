package reconcile

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// NodePoolAPI is what reconciling GPU pools needs of GKE (internal/gke.Client
// satisfies it). Every mutating call returns a long-running operation.
type NodePoolAPI interface {
	GetNodePool(ctx context.Context, name string) (*containerpb.NodePool, error)
	CreateNodePool(ctx context.Context, parent string, np *containerpb.NodePool) (*containerpb.Operation, error)
	UpdateNodePool(ctx context.Context, req *containerpb.UpdateNodePoolRequest) (*containerpb.Operation, error)
	SetNodePoolAutoscaling(ctx context.Context, name string, a *containerpb.NodePoolAutoscaling) (*containerpb.Operation, error)
	DeleteNodePool(ctx context.Context, name string) (*containerpb.Operation, error)
	GetOperation(ctx context.Context, name string) (*containerpb.Operation, error)
}

// GPUPoolRef names a node pool.
type GPUPoolRef struct{ Project, Location, Cluster, Name string }

// ClusterName is projects/P/locations/L/clusters/C.
func (r GPUPoolRef) ClusterName() string { return gke.NodePoolRef(r).ClusterName() }

// NodePoolName is projects/P/locations/L/clusters/C/nodePools/N.
func (r GPUPoolRef) NodePoolName() string { return gke.NodePoolRef(r).NodePoolName() }

func (r GPUPoolRef) String() string { return r.NodePoolName() }

// RefOf is the node pool a spec addresses.
func RefOf(p spec.GPUPool) GPUPoolRef {
	return GPUPoolRef{Project: p.Project, Location: p.Location, Cluster: p.Cluster, Name: p.Name}
}

// ObservedGPUPool is a node pool as GKE reports it: the spec part that
// configuration manages, plus what only the server knows.
type ObservedGPUPool struct {
	Spec                    spec.GPUPool
	Status                  string // PROVISIONING | RUNNING | RECONCILING | STOPPING | ERROR ...
	StatusMessage           string
	Version                 string
	InstanceGroupURLs       []string
	EffectiveResourceLabels map[string]string // every label on the VMs, GKE's goog-gke* included
	EffectiveTaints         []spec.Taint      // every taint on the nodes, GKE's GPU taint included
}

// GPUPools reconciles GPU node pools: Observe → Diff → Apply → Wait, one
// GKE request per field group, serialized per cluster and retried while GKE
// is busy with another operation (gke.Operations, paced by Pacing).
type GPUPools struct {
	api   NodePoolAPI
	locks gke.Locker
	gke.Pacing
}

// NewGPUPools returns a reconciler with production defaults.
func NewGPUPools(api NodePoolAPI, locks gke.Locker) *GPUPools {
	return &GPUPools{api: api, locks: locks, Pacing: gke.DefaultPacing()}
}

// ---- errors -----------------------------------------------------------------

// ErrNeedsReplacement: the pool differs in a field GKE cannot change in place.
var ErrNeedsReplacement = errors.New("node pool needs replacement")

// CreateFailedError is a node pool create that GKE accepted but could not
// finish (e.g. a GPU stockout). Cleaned says whether the half-created pool
// was deleted again.
type CreateFailedError struct {
	Pool       spec.GPUPool
	Cause      *gke.OperationError
	Cleaned    bool
	CleanupErr error
}

func (e *CreateFailedError) Error() string {
	msg := e.Cause.Error()
	if e.CleanupErr != nil {
		msg += fmt.Sprintf(" (deleting the half-created pool also failed: %v)", e.CleanupErr)
	}
	return msg
}

func (e *CreateFailedError) Unwrap() error { return e.Cause }

var zoneInMessage = regexp.MustCompile(`zones?/([a-z]+-[a-z]+[0-9]+-[a-z])`)

// Stockout reports whether GKE ran out of machines, and in which zone.
func (e *CreateFailedError) Stockout() (zone string, ok bool) {
	m := e.Cause.Message
	if !strings.Contains(m, "STOCKOUT") && !strings.Contains(m, "does not have enough resources") {
		return "", false
	}
	if z := zoneInMessage.FindStringSubmatch(m); z != nil {
		return z[1], true
	}
	return "", true
}

// Plain says what happened and what to do.
func (e *CreateFailedError) Plain() string {
	p := e.Pool
	var b strings.Builder
	if zone, ok := e.Stockout(); ok {
		where := "in the pool's zones"
		if zone != "" {
			where = "in zone " + zone
		}
		fmt.Fprintf(&b, "GKE could not create node pool %s: Compute Engine has no %s capacity for %d × %s (%s) %s right now (a stockout). ",
			p.Name, strings.ReplaceAll(p.Capacity, "_", "-"), p.GPU.Count, p.GPU.Type, p.MachineType, where)
	} else {
		fmt.Fprintf(&b, "GKE could not create node pool %s: the create operation ended in error (%s). ", p.Name, e.Cause.Code)
	}
	switch {
	case e.Cleaned:
		b.WriteString("The provider deleted the half-created pool, so nothing is left behind and the next apply starts over. ")
	default:
		b.WriteString("The provider could not delete the half-created pool; the next apply deletes and recreates it. ")
	}
	if _, ok := e.Stockout(); ok {
		b.WriteString("Try again later, add zones to node_locations, or choose capacity \"flex_start\" (waits for capacity) or \"reservation\" (capacity you reserved).")
	}
	return b.String()
}

// ---- server ⇄ spec ------------------------------------------------------------

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
	driverFromPB = invert(driverToPB)
	effectFromPB = invert(effectToPB)
	policyFromPB = invert(policyToPB)
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
	if p.Capacity == spec.CapacityFlexStart && !p.QueuedProvisioning {
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
		np.PlacementPolicy = &containerpb.NodePool_PlacementPolicy{Type: containerpb.NodePool_PlacementPolicy_COMPACT}
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
	return []*containerpb.AcceleratorConfig{{
		AcceleratorType:             g.Type,
		AcceleratorCount:            int64(g.Count),
		GpuDriverInstallationConfig: &containerpb.GPUDriverInstallationConfig{GpuDriverVersion: driverToPB[d].Enum()},
	}}
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
	}
}

// ---- diff -------------------------------------------------------------------

// Action is one GKE request that moves a pool toward its spec: either an
// UpdateNodePool carrying exactly one field group, or SetNodePoolAutoscaling.
type Action struct {
	Field       string // the field group, e.g. "autoscaling", "labels"
	Update      *containerpb.UpdateNodePoolRequest
	Autoscaling *containerpb.NodePoolAutoscaling
}

// Diff lists the requests that make actual match desired, in a fixed order,
// one field group each. Fields GKE cannot change in place make it return
// ErrNeedsReplacement (the plan replaces the pool before it gets here).
func Diff(desired spec.GPUPool, actual *containerpb.NodePool) ([]Action, error) {
	name := RefOf(desired).NodePoolName()
	cur := FromNodePool(RefOf(desired), actual, desired)
	var immutable []string
	check := func(field string, set, differ bool) {
		if set && differ {
			immutable = append(immutable, field)
		}
	}
	wantMT := desired.MachineType
	if wantMT == "" {
		wantMT, _ = spec.PickMachineType(desired.GPU.Type, desired.GPU.Count)
	}
	check("machine_type", wantMT != "", wantMT != cur.MachineType)
	check("gpu.type", true, desired.GPU.Type != cur.GPU.Type)
	check("gpu.count", true, desired.GPU.Count != cur.GPU.Count)
	check("capacity", true, desired.Capacity != cur.Capacity)
	check("queued_provisioning", true, desired.QueuedProvisioning != cur.QueuedProvisioning)
	check("placement", true, desired.Placement != cur.Placement)
	check("reservation", desired.Capacity == spec.CapacityReservation, desired.Reservation != nil &&
		(cur.Reservation == nil || *cur.Reservation != *desired.Reservation))
	check("service_account", desired.ServiceAccount != "", desired.ServiceAccount != cur.ServiceAccount)
	if len(immutable) > 0 {
		return nil, fmt.Errorf("%w: node pool %s differs in %s, which GKE cannot change in place", ErrNeedsReplacement, desired.Name, strings.Join(immutable, ", "))
	}

	var out []Action
	update := func(field string, set func(r *containerpb.UpdateNodePoolRequest)) {
		r := &containerpb.UpdateNodePoolRequest{Name: name}
		set(r)
		out = append(out, Action{Field: field, Update: r})
	}
	wantAS := autoscalingPB(desired)
	if a := actual.GetAutoscaling(); !a.GetEnabled() || a.GetTotalMinNodeCount() != wantAS.TotalMinNodeCount ||
		a.GetTotalMaxNodeCount() != wantAS.TotalMaxNodeCount || a.GetMinNodeCount() != 0 || a.GetMaxNodeCount() != 0 ||
		(desired.Autoscaling.LocationPolicy != "" && a.GetLocationPolicy() != wantAS.LocationPolicy) {
		out = append(out, Action{Field: "autoscaling", Autoscaling: wantAS})
	}
	if len(desired.NodeLocations) > 0 && !slices.Equal(slices.Sorted(slices.Values(desired.NodeLocations)), cur.NodeLocations) {
		update("node_locations", func(r *containerpb.UpdateNodePoolRequest) {
			r.Locations = slices.Sorted(slices.Values(desired.NodeLocations))
		})
	}
	if !maps.Equal(desired.Labels, cur.Labels) {
		update("labels", func(r *containerpb.UpdateNodePoolRequest) {
			r.Labels = &containerpb.NodeLabels{Labels: nonNil(desired.Labels)}
		})
	}
	if !slices.Equal(spec.SortTaints(desired.Taints), cur.Taints) {
		update("taints", func(r *containerpb.UpdateNodePoolRequest) {
			ts := taintsToPB(desired.Taints)
			for _, t := range actual.GetConfig().GetTaints() { // keep GKE's own
				if serverTaint(t.GetKey()) {
					ts = append(ts, t)
				}
			}
			r.Taints = &containerpb.NodeTaints{Taints: ts}
		})
	}
	wantRL := desired.EffectiveResourceLabels()
	curRL := map[string]string{}
	for k, v := range actual.GetConfig().GetResourceLabels() {
		if !spec.IsServerOrMarkerResourceLabel(k) {
			curRL[k] = v
		}
	}
	if !maps.Equal(wantRL, curRL) {
		update("resource_labels", func(r *containerpb.UpdateNodePoolRequest) {
			if PoolCreated(actual) { // the request replaces every label: keep the marker
				wantRL = poolMarked(wantRL)
			}
			r.ResourceLabels = &containerpb.ResourceLabels{Labels: wantRL}
		})
	}
	if d := orDefault(desired.GPU.Driver, spec.GPUDriverDefault); d != cur.GPU.Driver {
		update("gpu.driver", func(r *containerpb.UpdateNodePoolRequest) { r.Accelerators = acceleratorsPB(desired.GPU) })
	}
	if (desired.DiskSizeGB != 0 && desired.DiskSizeGB != cur.DiskSizeGB) || (desired.DiskType != "" && desired.DiskType != cur.DiskType) {
		update("disk", func(r *containerpb.UpdateNodePoolRequest) {
			r.DiskSizeGb = int64(cmpOr(desired.DiskSizeGB, cur.DiskSizeGB))
			r.DiskType = orDefault(desired.DiskType, cur.DiskType)
		})
	}
	if desired.MaxRunDuration != 0 && desired.MaxRunDuration != cur.MaxRunDuration {
		update("max_run_duration", func(r *containerpb.UpdateNodePoolRequest) { r.MaxRunDuration = durationpb.New(desired.MaxRunDuration) })
	}
	if desired.WorkloadIdentity != cur.WorkloadIdentity {
		update("workload_identity", func(r *containerpb.UpdateNodePoolRequest) {
			r.WorkloadMetadataConfig = &containerpb.WorkloadMetadataConfig{Mode: workloadMode(desired.WorkloadIdentity)}
		})
	}
	return out, nil
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return maps.Clone(m)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// ---- apply ------------------------------------------------------------------

func notFound(err error) bool { return status.Code(err) == codes.NotFound }

// mutate sends one mutating request and waits for its operation (see
// gke.Operations.Mutate).
func (g *GPUPools) mutate(ctx context.Context, ref GPUPoolRef, what string, call func(ctx context.Context) (*containerpb.Operation, error)) error {
	ops := gke.Operations{API: g.api, Locks: g.locks, Pacing: g.Pacing}
	return ops.Mutate(ctx, gke.NodePoolRef(ref), what, call)
}

// get reads the pool; found is false when GKE has none of that name.
func (g *GPUPools) get(ctx context.Context, ref GPUPoolRef) (*containerpb.NodePool, bool, error) {
	np, err := g.api.GetNodePool(ctx, ref.NodePoolName())
	switch {
	case notFound(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read node pool %s: %w", ref, err)
	}
	return np, true, nil
}

// Observe reads the pool. hint is the configuration last known (see FromNodePool).
func (g *GPUPools) Observe(ctx context.Context, ref GPUPoolRef, hint spec.GPUPool) (ObservedGPUPool, bool, error) {
	np, found, err := g.get(ctx, ref)
	if !found || err != nil {
		return ObservedGPUPool{}, found, err
	}
	return Observed(ref, np, hint), true, nil
}

// settle waits while the pool is being created, changed or deleted by an
// operation that is not ours.
func (g *GPUPools) settle(ctx context.Context, ref GPUPoolRef) (*containerpb.NodePool, bool, error) {
	poll := g.Poll
	for {
		np, found, err := g.get(ctx, ref)
		if err != nil || !found {
			return np, found, err
		}
		switch np.GetStatus() {
		case containerpb.NodePool_PROVISIONING, containerpb.NodePool_RECONCILING, containerpb.NodePool_STOPPING:
		default:
			return np, true, nil
		}
		if err := g.Sleep(ctx, poll); err != nil {
			return nil, false, fmt.Errorf("node pool %s stayed %s: %w", ref, np.GetStatus(), err)
		}
		poll = min(poll*3/2, g.MaxPoll)
	}
}

// Create creates the pool and waits until it runs. A pool of that name that
// this provider created earlier (it carries spec.PoolMarkerLabel) is
// adopted: one in ERROR, left by an interrupted create, is deleted and
// created again. One without the marker is someone else's: Create fails with
// a *NotOwnedError before any write. A create that GKE accepts but cannot
// finish (stockout) deletes the half-created pool again and returns a
// *CreateFailedError.
func (g *GPUPools) Create(ctx context.Context, desired spec.GPUPool) (ObservedGPUPool, error) {
	ref := RefOf(desired)
	np, found, err := g.settle(ctx, ref)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	if found {
		return g.adopt(ctx, desired, np)
	}
	body := BuildNodePool(desired)
	err = g.mutate(ctx, ref, "create", func(ctx context.Context) (*containerpb.Operation, error) {
		return g.api.CreateNodePool(ctx, ref.ClusterName(), body)
	})
	if status.Code(err) == codes.AlreadyExists {
		// Created since it was read: by someone else, or by this very
		// request, retried after GKE had taken it.
		np, found, serr := g.settle(ctx, ref)
		switch {
		case serr != nil:
			return ObservedGPUPool{}, serr
		case found:
			return g.adopt(ctx, desired, np)
		}
	}
	var opErr *gke.OperationError
	if errors.As(err, &opErr) {
		failed := &CreateFailedError{Pool: desired, Cause: opErr}
		if failed.Pool.MachineType == "" {
			failed.Pool.MachineType = body.GetConfig().GetMachineType()
		}
		// Use a fresh budget for the cleanup: the create's may be spent.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Minute)
		defer cancel()
		failed.CleanupErr = g.Delete(cctx, ref)
		failed.Cleaned = failed.CleanupErr == nil
		return ObservedGPUPool{}, failed
	}
	if err != nil {
		return ObservedGPUPool{}, err
	}
	return g.observeAfter(ctx, ref, desired)
}

// adopt completes the create of a pool that already exists, if the platform
// created it.
func (g *GPUPools) adopt(ctx context.Context, desired spec.GPUPool, np *containerpb.NodePool) (ObservedGPUPool, error) {
	ref := RefOf(desired)
	if !PoolCreated(np) {
		return ObservedGPUPool{}, &NotOwnedError{Kind: "node pool", Name: ref.String()}
	}
	if np.GetStatus() != containerpb.NodePool_ERROR {
		return g.Update(ctx, desired)
	}
	g.Logf(ctx, "deleting node pool left in ERROR by an earlier create", map[string]any{"node_pool": ref.Name, "status_message": np.GetStatusMessage()})
	if err := g.Delete(ctx, ref); err != nil {
		return ObservedGPUPool{}, err
	}
	return g.Create(ctx, desired)
}

func (g *GPUPools) observeAfter(ctx context.Context, ref GPUPoolRef, desired spec.GPUPool) (ObservedGPUPool, error) {
	np, found, err := g.settle(ctx, ref)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	if !found {
		return ObservedGPUPool{}, fmt.Errorf("node pool %s disappeared right after it was changed: %w", ref, status.Error(codes.NotFound, ref.String()))
	}
	return Observed(ref, np, desired), nil
}

// Update makes an existing pool match desired, one request per field group.
func (g *GPUPools) Update(ctx context.Context, desired spec.GPUPool) (ObservedGPUPool, error) {
	ref := RefOf(desired)
	np, found, err := g.settle(ctx, ref)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	if !found {
		return ObservedGPUPool{}, fmt.Errorf("node pool %s no longer exists; run terraform apply again to create it: %w",
			ref, status.Error(codes.NotFound, ref.String()))
	}
	actions, err := Diff(desired, np)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	for _, a := range actions {
		g.Logf(ctx, "updating node pool", map[string]any{"node_pool": ref.Name, "field": a.Field})
		err := g.mutate(ctx, ref, "update "+a.Field+" of", func(ctx context.Context) (*containerpb.Operation, error) {
			if a.Autoscaling != nil {
				return g.api.SetNodePoolAutoscaling(ctx, ref.NodePoolName(), a.Autoscaling)
			}
			return g.api.UpdateNodePool(ctx, a.Update)
		})
		if err != nil {
			return ObservedGPUPool{}, err
		}
	}
	return g.observeAfter(ctx, ref, desired)
}

// Delete deletes the pool and waits until it is gone. A pool already gone
// is not an error.
func (g *GPUPools) Delete(ctx context.Context, ref GPUPoolRef) error {
	err := g.mutate(ctx, ref, "delete", func(ctx context.Context) (*containerpb.Operation, error) {
		op, err := g.api.DeleteNodePool(ctx, ref.NodePoolName())
		if notFound(err) {
			return nil, nil
		}
		return op, err
	})
	if err != nil {
		return err
	}
	_, found, err := g.settle(ctx, ref)
	if err == nil && found {
		err = fmt.Errorf("node pool %s still exists after its delete operation finished", ref)
	}
	return err
}
