package resources

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type gpuPoolModel struct {
	ID                  types.String   `tfsdk:"id"`
	Name                types.String   `tfsdk:"name"`
	Project             types.String   `tfsdk:"project"`
	Location            types.String   `tfsdk:"location"`
	Cluster             types.String   `tfsdk:"cluster"`
	NodeLocations       types.Set      `tfsdk:"node_locations"`
	MachineType         types.String   `tfsdk:"machine_type"`
	GPU                 types.Object   `tfsdk:"gpu"`
	Capacity            types.String   `tfsdk:"capacity"`
	Reservation         types.Object   `tfsdk:"reservation"`
	MaxRunDuration      types.String   `tfsdk:"max_run_duration"`
	QueuedProvisioning  types.Bool     `tfsdk:"queued_provisioning"`
	Autoscaling         types.Object   `tfsdk:"autoscaling"`
	Placement           types.String   `tfsdk:"placement"`
	PlacementPolicyName types.String   `tfsdk:"placement_policy_name"`
	Labels              types.Map      `tfsdk:"labels"`
	Taints              types.Map      `tfsdk:"taints"`
	ResourceLabels      types.Map      `tfsdk:"resource_labels"`
	Disk                types.Object   `tfsdk:"disk"`
	ServiceAccount      types.String   `tfsdk:"service_account"`
	WorkloadIdentity    types.Bool     `tfsdk:"workload_identity"`
	NodeSelector        types.Map      `tfsdk:"node_selector"`
	WorkloadTolerations types.List     `tfsdk:"workload_tolerations"`
	EffectiveLabels     types.Map      `tfsdk:"effective_labels"`
	EffectiveTaints     types.List     `tfsdk:"effective_taints"`
	InstanceGroupURLs   types.List     `tfsdk:"instance_group_urls"`
	Version             types.String   `tfsdk:"version"`
	Status              types.String   `tfsdk:"status"`
	EstimatedCost       types.Float64  `tfsdk:"estimated_hourly_cost_usd"`
	SliceCost           types.Float64  `tfsdk:"estimated_hourly_cost_per_slice_usd"`
	Allocatable         types.Int64    `tfsdk:"allocatable_gpus_per_node"`
	TopologyLabels      types.Bool     `tfsdk:"topology_labels"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

type gpuModel struct {
	Type          types.String `tfsdk:"type"`
	Count         types.Int64  `tfsdk:"count"`
	Driver        types.String `tfsdk:"driver"`
	PartitionSize types.String `tfsdk:"partition_size"`
	Sharing       types.Object `tfsdk:"sharing"`
}

type gpuSharingModel struct {
	Strategy   types.String `tfsdk:"strategy"`
	MaxClients types.Int64  `tfsdk:"max_shared_clients_per_gpu"`
}

type reservationModel struct {
	Affinity types.String `tfsdk:"affinity"`
	Name     types.String `tfsdk:"name"`
}

type autoscalingModel struct {
	MinNodes       types.Int64  `tfsdk:"min_nodes"`
	MaxNodes       types.Int64  `tfsdk:"max_nodes"`
	LocationPolicy types.String `tfsdk:"location_policy"`
}

type diskModel struct {
	SizeGB types.Int64  `tfsdk:"size_gb"`
	Type   types.String `tfsdk:"type"`
}

type poolTaintModel struct {
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

var (
	gpuSharingType = map[string]attr.Type{"strategy": types.StringType, "max_shared_clients_per_gpu": types.Int64Type}
	gpuType        = map[string]attr.Type{"type": types.StringType, "count": types.Int64Type, "driver": types.StringType,
		"partition_size": types.StringType, "sharing": types.ObjectType{AttrTypes: gpuSharingType}}
	reservationType = map[string]attr.Type{"affinity": types.StringType, "name": types.StringType}
	autoscalingType = map[string]attr.Type{"min_nodes": types.Int64Type, "max_nodes": types.Int64Type, "location_policy": types.StringType}
	diskType        = map[string]attr.Type{"size_gb": types.Int64Type, "type": types.StringType}
	poolTaintType   = types.ObjectType{AttrTypes: map[string]attr.Type{"value": types.StringType, "effect": types.StringType}}
)

// toSpec converts a plan or config; unknown values read as empty (plan-time
// validation skips attributes that are not fully known).
func (m gpuPoolModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.GPUPool {
	p := spec.GPUPool{
		Project: m.Project.ValueString(), Location: m.Location.ValueString(), Cluster: m.Cluster.ValueString(), Name: m.Name.ValueString(),
		MachineType:         m.MachineType.ValueString(),
		Capacity:            m.Capacity.ValueString(),
		QueuedProvisioning:  m.QueuedProvisioning.ValueBool(),
		Placement:           m.Placement.ValueString(),
		PlacementPolicyName: m.PlacementPolicyName.ValueString(),
		Labels:              stringMap(ctx, m.Labels, diags),
		ResourceLabels:      stringMap(ctx, m.ResourceLabels, diags),
		ServiceAccount:      m.ServiceAccount.ValueString(),
		WorkloadIdentity:    m.WorkloadIdentity.IsNull() || m.WorkloadIdentity.IsUnknown() || m.WorkloadIdentity.ValueBool(),
	}
	if m.Capacity.IsNull() || m.Capacity.IsUnknown() {
		p.Capacity = spec.CapacityOnDemand // the schema's default; a configured "" is the spec's to refuse
	}
	if !m.NodeLocations.IsNull() && !m.NodeLocations.IsUnknown() {
		p.NodeLocations = stringList(ctx, m.NodeLocations, diags)
		sort.Strings(p.NodeLocations)
	}
	var g gpuModel
	if objectAs(ctx, m.GPU, &g, diags) {
		p.GPU = spec.GPU{Type: g.Type.ValueString(), Count: int(g.Count.ValueInt64()), Driver: g.Driver.ValueString(), PartitionSize: g.PartitionSize.ValueString()}
		var sh gpuSharingModel
		if objectAs(ctx, g.Sharing, &sh, diags) {
			p.GPU.Sharing = &spec.GPUSharing{Strategy: sh.Strategy.ValueString(), MaxClients: int(sh.MaxClients.ValueInt64())}
		}
	}
	var r reservationModel
	if objectAs(ctx, m.Reservation, &r, diags) {
		p.Reservation = &spec.Reservation{Affinity: r.Affinity.ValueString(), Name: r.Name.ValueString()}
	}
	if s := m.MaxRunDuration.ValueString(); s != "" {
		// The spec reads 0 as "GKE's default", so a duration that does not
		// parse, or parses to 0, is reported here (in words, not Go's).
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			diags.AddAttributeError(path.Root("max_run_duration"), "Invalid Duration",
				fmt.Sprintf("Attribute max_run_duration: %q is not a duration; write it in hours or minutes, e.g. \"72h\" or \"90m\" (at most \"168h\", 7 days).", s))
		case d == 0:
			diags.AddAttributeError(path.Root("max_run_duration"), "Max Run Duration Out Of Range",
				fmt.Sprintf("Attribute max_run_duration: %q is no time at all; flex-start nodes run between 10 minutes and 7 days. Write e.g. \"72h\", or leave max_run_duration out for 7 days.", s))
		}
		p.MaxRunDuration = d
	}
	var a autoscalingModel
	if objectAs(ctx, m.Autoscaling, &a, diags) {
		p.Autoscaling = spec.Autoscaling{MinNodes: int(a.MinNodes.ValueInt64()), MaxNodes: int(a.MaxNodes.ValueInt64()), LocationPolicy: a.LocationPolicy.ValueString()}
	}
	var dk diskModel
	if objectAs(ctx, m.Disk, &dk, diags) {
		p.DiskSizeGB, p.DiskType = int(dk.SizeGB.ValueInt64()), dk.Type.ValueString()
	}
	if !m.Taints.IsNull() && !m.Taints.IsUnknown() {
		ts := map[string]poolTaintModel{}
		diags.Append(mapInto(m.Taints, &ts)...)
		for k, t := range ts {
			p.Taints = append(p.Taints, spec.Taint{Key: k, Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
		}
		p.Taints = spec.SortTaints(p.Taints)
	}
	return p
}

// known says which root attributes are fully known, for plan-time
// validation: an error at a root is reported only when every attribute its
// rules read is known (spec.GPUPool.Validate; an unknown value reads as
// empty there, which would give wrong errors).
func (m gpuPoolModel) known(ctx context.Context) map[string]bool {
	return knownWith(knownAttrs(ctx, m), map[string][]string{
		// zone format, region (location), one zone with compact placement
		// (placement, queued_provisioning and capacity decide whether that
		// rule or another placement rule applies).
		"node_locations": {"location", "placement", "queued_provisioning", "capacity"},
		"machine_type":   {"gpu"},
		"reservation":    {"capacity"}, "max_run_duration": {"capacity"}, "queued_provisioning": {"capacity"},
		// min and max, flex-start from zero, 1,000 nodes per zone.
		"autoscaling": {"capacity", "node_locations"},
		// the machines named in the flex-start message.
		"placement": {"queued_provisioning", "capacity", "gpu", "machine_type"},
		// a policy name needs compact placement.
		"placement_policy_name": {"placement"},
		// the default cost labels count.
		"resource_labels": {"name", "gpu", "capacity"},
		// disk types by the GPU's machine series.
		"disk": {"gpu", "machine_type"},
	})
}

// ref is the node pool the model addresses.
func (m gpuPoolModel) ref() reconcile.GPUPoolRef {
	return reconcile.GPUPoolRef{Project: m.Project.ValueString(), Location: m.Location.ValueString(), Cluster: m.Cluster.ValueString(), Name: m.Name.ValueString()}
}

// tolerationsState is the workload_tolerations value for a pool.
func tolerationsState(ctx context.Context, p spec.GPUPool, diags *diag.Diagnostics) types.List {
	return tolerationsToList(ctx, p.WorkloadTolerations(), types.ListNull(tolerationType), diags)
}

func nodeSelectorState(ctx context.Context, p spec.GPUPool, diags *diag.Diagnostics) types.Map {
	return stringMapValue(p.NodeSelector())
}

// gpuPoolState converts what GKE reports into state. prior is the plan or
// the previous state: it keeps configured spellings (a duration) and empty
// maps empty rather than null.
func gpuPoolState(ctx context.Context, o reconcile.ObservedGPUPool, prior gpuPoolModel, diags *diag.Diagnostics) gpuPoolModel {
	s := o.Spec
	m := gpuPoolModel{
		ID:                  types.StringValue(reconcile.RefOf(s).NodePoolName()),
		Name:                types.StringValue(s.Name),
		Project:             types.StringValue(s.Project),
		Location:            types.StringValue(s.Location),
		Cluster:             types.StringValue(s.Cluster),
		MachineType:         types.StringValue(s.MachineType),
		Capacity:            types.StringValue(s.Capacity),
		QueuedProvisioning:  types.BoolValue(s.QueuedProvisioning),
		Placement:           optString(s.Placement),
		PlacementPolicyName: optString(s.PlacementPolicyName),
		Labels:              stringMapState(ctx, s.Labels, prior.Labels, diags),
		ResourceLabels:      stringMapState(ctx, s.ResourceLabels, prior.ResourceLabels, diags),
		ServiceAccount:      types.StringValue(s.ServiceAccount),
		WorkloadIdentity:    types.BoolValue(s.WorkloadIdentity),
		NodeSelector:        nodeSelectorState(ctx, s, diags),
		WorkloadTolerations: tolerationsState(ctx, s, diags),
		EffectiveLabels:     stringMapState(ctx, o.EffectiveResourceLabels, types.MapValueMust(types.StringType, map[string]attr.Value{}), diags),
		EffectiveTaints:     taintsToList(ctx, o.EffectiveTaints, types.ListValueMust(taintType, nil), diags),
		InstanceGroupURLs:   stringListValue(nonNil(o.InstanceGroupURLs)),
		Version:             types.StringValue(o.Version),
		Status:              types.StringValue(o.Status),
		Timeouts:            prior.Timeouts,
	}
	m.NodeLocations = stringSetValue(nonNil(s.NodeLocations))
	var d diag.Diagnostics
	sharing := types.ObjectNull(gpuSharingType)
	if sh := s.GPU.Sharing; sh != nil {
		sharing, d = modelObject(gpuSharingType, gpuSharingModel{Strategy: types.StringValue(sh.Strategy), MaxClients: types.Int64Value(int64(sh.MaxClients))})
		diags.Append(d...)
	}
	m.GPU, d = modelObject(gpuType, gpuModel{Type: types.StringValue(s.GPU.Type), Count: types.Int64Value(int64(s.GPU.Count)),
		Driver: types.StringValue(s.GPU.Driver), PartitionSize: optString(s.GPU.PartitionSize), Sharing: sharing})
	diags.Append(d...)
	m.Allocatable = types.Int64Value(int64(s.AllocatableGPUsPerNode()))
	m.TopologyLabels = types.BoolValue(s.TopologyLabels())
	m.Reservation = types.ObjectNull(reservationType)
	if r := s.Reservation; r != nil {
		m.Reservation, d = modelObject(reservationType, reservationModel{Affinity: types.StringValue(r.Affinity), Name: optString(r.Name)})
		diags.Append(d...)
	}
	m.MaxRunDuration = types.StringNull()
	if s.MaxRunDuration != 0 {
		m.MaxRunDuration = types.StringValue(spec.FormatDuration(s.MaxRunDuration))
		if pd, err := time.ParseDuration(prior.MaxRunDuration.ValueString()); err == nil && pd == s.MaxRunDuration {
			m.MaxRunDuration = prior.MaxRunDuration
		}
	}
	m.Autoscaling, d = modelObject(autoscalingType, autoscalingModel{MinNodes: types.Int64Value(int64(s.Autoscaling.MinNodes)),
		MaxNodes: types.Int64Value(int64(s.Autoscaling.MaxNodes)), LocationPolicy: optString(s.Autoscaling.LocationPolicy)})
	diags.Append(d...)
	m.Disk, d = modelObject(diskType, diskModel{SizeGB: types.Int64Value(int64(s.DiskSizeGB)), Type: types.StringValue(s.DiskType)})
	diags.Append(d...)
	m.Taints = types.MapNull(poolTaintType)
	if len(s.Taints) > 0 {
		ts := map[string]poolTaintModel{}
		for _, t := range s.Taints {
			ts[t.Key] = poolTaintModel{Value: optString(t.Value), Effect: types.StringValue(t.Effect)}
		}
		v, d := mapOfModels(poolTaintType, ts)
		diags.Append(d...)
		m.Taints = v
	} else if !prior.Taints.IsNull() && !prior.Taints.IsUnknown() && len(prior.Taints.Elements()) == 0 {
		m.Taints = types.MapValueMust(poolTaintType, map[string]attr.Value{})
	}
	return m
}

// parseGPUPoolID accepts projects/P/locations/L/clusters/C/nodePools/N and P/L/C/N.
func parseGPUPoolID(id string) (reconcile.GPUPoolRef, bool) {
	parts := strings.Split(id, "/")
	switch {
	case len(parts) == 8 && parts[0] == "projects" && parts[2] == "locations" && parts[4] == "clusters" && parts[6] == "nodePools":
		parts = []string{parts[1], parts[3], parts[5], parts[7]}
	case len(parts) == 4:
	default:
		return reconcile.GPUPoolRef{}, false
	}
	for _, p := range parts {
		if p == "" {
			return reconcile.GPUPoolRef{}, false
		}
	}
	return reconcile.GPUPoolRef{Project: parts[0], Location: parts[1], Cluster: parts[2], Name: parts[3]}, true
}

// estimatedCost is the pool's cost per hour at max_nodes from the price
// table, rounded to the cent; null when the table has no price for it.
func estimatedCost(t pricing.Table, p spec.GPUPool) types.Float64 {
	usd, ok := t.PoolHourly(p.GPU.Type, p.Capacity, p.Autoscaling.MaxNodes, p.GPU.Count)
	if !ok {
		return types.Float64Null()
	}
	return types.Float64Value(math.Round(usd*100) / 100)
}

// sliceCost is the price per hour of one nvidia.com/gpu of the pool (a GPU,
// a MIG partition or a share), to 1/10,000 dollar; null without a price.
func sliceCost(t pricing.Table, p spec.GPUPool) types.Float64 {
	usd, ok := t.HourlyPerGPU(p.GPU.Type, p.Capacity)
	if !ok {
		return types.Float64Null()
	}
	perSlice := usd / float64(p.GPU.PartitionsPerGPU()*p.GPU.ClientsPerGPU())
	return types.Float64Value(math.Round(perSlice*10000) / 10000)
}
