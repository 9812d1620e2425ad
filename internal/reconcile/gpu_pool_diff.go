package reconcile

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Action is one GKE request that moves a pool toward its spec: either an
// UpdateNodePool carrying exactly one field group, or SetNodePoolAutoscaling.
type Action struct {
	Field       string // the field group, e.g. "autoscaling", "labels"
	Update      *containerpb.UpdateNodePoolRequest
	Autoscaling *containerpb.NodePoolAutoscaling
}

// Diff lists the requests that make actual match desired, in a fixed order,
// one field group each. Fields GKE cannot change in place make it return
// ErrNeedsReplacement (callers replace the pool instead of updating it).
func Diff(desired spec.GPUPool, actual *containerpb.NodePool) ([]Action, error) {
	immutable, out := diff(desired, actual)
	if len(immutable) > 0 {
		return nil, fmt.Errorf("%w: node pool %s differs in %s, which GKE cannot change in place", ErrNeedsReplacement, desired.Name, strings.Join(immutable, ", "))
	}
	return out, nil
}

// diff is Diff's two halves: the fields that differ and GKE cannot change
// in place (in spec terms), and the requests for those it can.
func diff(desired spec.GPUPool, actual *containerpb.NodePool) (immutable []string, out []Action) {
	name := RefOf(desired).NodePoolName()
	cur := FromNodePool(RefOf(desired), actual, desired)
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
	check("gpu.partition_size", true, desired.GPU.PartitionSize != cur.GPU.PartitionSize)
	check("capacity", true, desired.Capacity != cur.Capacity)
	check("queued_provisioning", true, desired.QueuedProvisioning != cur.QueuedProvisioning)
	check("placement", true, desired.Placement != cur.Placement)
	check("placement_policy_name", true, desired.PlacementPolicyName != cur.PlacementPolicyName)
	check("reservation", desired.Capacity == spec.CapacityReservation, desired.Reservation != nil &&
		(cur.Reservation == nil || *cur.Reservation != *desired.Reservation))
	check("service_account", desired.ServiceAccount != "", desired.ServiceAccount != cur.ServiceAccount)

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
			for k, v := range actual.GetConfig().GetResourceLabels() { // the request replaces every label: keep the platform's
				if k == spec.PoolMarkerLabel || k == spec.PoolCreationLabel {
					wantRL[k] = v
				}
			}
			r.ResourceLabels = &containerpb.ResourceLabels{Labels: wantRL}
		})
	}
	// The driver and GPU sharing change in place, in one accelerators
	// request that carries the whole accelerator (magic-modules PR #18493,
	// verified on GKE): type, count and partition size as they are.
	if orDefault(desired.GPU.Driver, spec.GPUDriverDefault) != cur.GPU.Driver || !sameSharing(desired.GPU.Sharing, cur.GPU.Sharing) {
		update("gpu", func(r *containerpb.UpdateNodePoolRequest) { r.Accelerators = acceleratorsPB(desired.GPU) })
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
	return immutable, out
}

func sameSharing(a, b *spec.GPUSharing) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
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
