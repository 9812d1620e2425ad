package resources

import (
	"context"
	"fmt"
	"maps"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// mlplatform_gpu_pool at plan time: validators for what the spec reads as
// unset, plan modifiers for the provider's and GKE's defaults, ValidateConfig
// and ModifyPlan (cost estimate, effective labels and taints).

// Plan-time checks the spec cannot make: it reads an attribute set to ""
// (or 0) as one left out, which means GKE's or the provider's default. Each
// reports only the empty value, which the spec never reports, so a mistake
// is still one error; every other rule is the spec's (spec.GPUPool.Validate).

// gpuPoolReservationNameNotEmpty refuses name = "" unless affinity is
// "specific", where the spec reports the missing name.
type gpuPoolReservationNameNotEmpty struct{}

func (gpuPoolReservationNameNotEmpty) Description(context.Context) string { return "must not be empty" }
func (v gpuPoolReservationNameNotEmpty) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (gpuPoolReservationNameNotEmpty) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() != "" {
		return
	}
	var affinity types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, req.Path.ParentPath().AtName("affinity"), &affinity)...)
	if affinity.IsUnknown() || affinity.ValueString() == spec.ReservationSpecific {
		return
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Empty Reservation Name",
		"Attribute "+req.Path.String()+": name is empty; a reservation name only applies with affinity = \"specific\". Remove name, or set affinity = \"specific\" and name the reservation.")
}

// gpuPoolMachineTypeNotEmpty refuses machine_type = "" when gpu fits one
// machine type; when it fits several the spec asks for one (Machine Type
// Needed), and when gpu is wrong the spec reports that.
type gpuPoolMachineTypeNotEmpty struct{}

func (gpuPoolMachineTypeNotEmpty) Description(context.Context) string { return "must not be empty" }
func (v gpuPoolMachineTypeNotEmpty) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (gpuPoolMachineTypeNotEmpty) ValidateString(ctx context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() != "" {
		return
	}
	var g types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("gpu"), &g)...)
	var gm gpuModel
	if !objectAs(ctx, g, &gm, &resp.Diagnostics) || gm.Type.IsUnknown() || gm.Count.IsUnknown() {
		return
	}
	if mt, ok := spec.PickMachineType(gm.Type.ValueString(), int(gm.Count.ValueInt64())); ok {
		resp.Diagnostics.AddAttributeError(req.Path, "Empty Machine Type",
			fmt.Sprintf("Attribute machine_type: machine_type is empty. Leave it out: gpu fits one machine type, %s, which is then used; or set it, e.g. %q.", mt, mt))
	}
}

// gpuPoolZonesNotEmpty refuses node_locations = [].
type gpuPoolZonesNotEmpty struct{}

func (gpuPoolZonesNotEmpty) Description(context.Context) string { return "must list at least one zone" }
func (v gpuPoolZonesNotEmpty) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (gpuPoolZonesNotEmpty) ValidateSet(_ context.Context, req validator.SetRequest, resp *validator.SetResponse) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() && len(req.ConfigValue.Elements()) == 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "No Zones",
			"Attribute node_locations: the list of zones is empty. Leave node_locations out for the cluster's zones, or list zones, e.g. [\"us-central1-a\"].")
	}
}

// gpuPoolDiskSizeNotZero refuses size_gb = 0 (the spec checks the rest of
// the range).
type gpuPoolDiskSizeNotZero struct{}

func (gpuPoolDiskSizeNotZero) Description(context.Context) string { return "must not be 0" }
func (v gpuPoolDiskSizeNotZero) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (gpuPoolDiskSizeNotZero) ValidateInt64(_ context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if !req.ConfigValue.IsNull() && !req.ConfigValue.IsUnknown() && req.ConfigValue.ValueInt64() == 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Disk Too Small",
			"Attribute disk.size_gb: 0 GB is no disk; GKE needs a boot disk of at least 10 GB, and GPU images want 100 or more. Set e.g. size_gb = 200, or leave it out for GKE's default (100).")
	}
}

// providerDefault keeps project, location or cluster from state when the
// resource does not set it; ModifyPlan then compares it with the provider's
// (attribute plan modifiers run on a resource instance that may not be
// configured, so they cannot read the provider).
type providerDefault struct{ attr string }

func (d providerDefault) Description(context.Context) string {
	return "Defaults to the provider's " + d.attr + "."
}
func (d providerDefault) MarkdownDescription(ctx context.Context) string { return d.Description(ctx) }

func (d providerDefault) PlanModifyString(_ context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if req.ConfigValue.IsNull() && !req.StateValue.IsNull() {
		resp.PlanValue = req.StateValue
	}
}

// planProviderDefaults fills project, location and cluster from the
// provider when the resource does not set them; a different provider value
// than the pool was created with replaces the pool.
func (r *GPUPool) planProviderDefaults(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, plan *gpuPoolModel) {
	var cfg platform.Config
	if r.clients != nil {
		cfg = r.clients.Config
	}
	for _, f := range []struct {
		attr     string
		provider string
		value    *types.String
	}{{"project", cfg.Project, &plan.Project}, {"location", cfg.Location, &plan.Location}, {"cluster", cfg.Cluster, &plan.Cluster}} {
		var configured types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(f.attr), &configured)...)
		if !configured.IsNull() {
			continue
		}
		if f.provider == "" {
			if f.value.IsUnknown() {
				resp.Diagnostics.AddAttributeError(path.Root(f.attr), "Missing "+strings.ToUpper(f.attr[:1])+f.attr[1:],
					fmt.Sprintf("Attribute %s: the pool's %s is set neither here nor in the provider; set %s in the resource or in the provider block (or MLPLATFORM_%s).",
						f.attr, f.attr, f.attr, strings.ToUpper(f.attr)))
			}
			continue
		}
		if !f.value.IsUnknown() && f.value.ValueString() != f.provider {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root(f.attr))
		}
		*f.value = types.StringValue(f.provider)
	}
}

// machineTypeDefault plans the machine type when gpu picks exactly one.
type machineTypeDefault struct{}

func (machineTypeDefault) Description(context.Context) string {
	return "Defaults to the one machine type that carries the configured GPUs."
}
func (d machineTypeDefault) MarkdownDescription(ctx context.Context) string {
	return d.Description(ctx)
}

func (machineTypeDefault) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	var g types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("gpu"), &g)...)
	var gm gpuModel
	if objectAs(ctx, g, &gm, &resp.Diagnostics) && !gm.Type.IsUnknown() && !gm.Count.IsUnknown() {
		if mt, ok := spec.PickMachineType(gm.Type.ValueString(), int(gm.Count.ValueInt64())); ok {
			resp.PlanValue = types.StringValue(mt)
			return
		}
	}
	if !req.StateValue.IsNull() {
		resp.PlanValue = req.StateValue
	}
}

// locationPolicyDefault plans the autoscaler location policy from capacity.
type locationPolicyDefault struct{}

func (locationPolicyDefault) Description(context.Context) string {
	return "Defaults to any for spot and flex-start, balanced otherwise."
}
func (d locationPolicyDefault) MarkdownDescription(ctx context.Context) string {
	return d.Description(ctx)
}

func (locationPolicyDefault) PlanModifyString(ctx context.Context, req planmodifier.StringRequest, resp *planmodifier.StringResponse) {
	if !req.ConfigValue.IsNull() {
		return
	}
	var capacity types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("capacity"), &capacity)...)
	if capacity.IsUnknown() {
		return
	}
	resp.PlanValue = types.StringValue(spec.DefaultLocationPolicy(capacity.ValueString()))
}

// ModifyPlan fills in, at plan time, what follows from the configuration
// (node_selector, workload_tolerations) and keeps server-reported values
// whose inputs do not change, so an update plan shows only what changes.
func (r *GPUPool) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return // destroy
	}
	var plan gpuPoolModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.planProviderDefaults(ctx, req, resp, &plan)
	if resp.Diagnostics.HasError() {
		return
	}
	var diags diag.Diagnostics
	p := plan.toSpec(ctx, &diags) // problems were reported by ValidateConfig
	gpuKnown := !plan.GPU.IsUnknown() && fullyKnown(ctx, plan.GPU)
	if plan.Name.IsUnknown() || !gpuKnown {
		plan.NodeSelector = types.MapUnknown(types.StringType)
	} else {
		plan.NodeSelector = nodeSelectorState(ctx, p, &diags)
	}
	if !gpuKnown {
		plan.Allocatable = types.Int64Unknown()
	} else {
		plan.Allocatable = types.Int64Value(int64(p.AllocatableGPUsPerNode()))
	}
	if !gpuKnown || plan.Capacity.IsUnknown() || plan.Placement.IsUnknown() || plan.MachineType.IsUnknown() {
		plan.TopologyLabels = types.BoolUnknown()
	} else {
		plan.TopologyLabels = types.BoolValue(p.TopologyLabels())
	}
	if !gpuKnown || plan.Capacity.IsUnknown() {
		plan.SliceCost = types.Float64Unknown()
	} else {
		plan.SliceCost = sliceCost(r.prices(), p)
	}
	if !gpuKnown || plan.Capacity.IsUnknown() || !fullyKnown(ctx, plan.Autoscaling) {
		plan.EstimatedCost = types.Float64Unknown()
	} else {
		plan.EstimatedCost = estimatedCost(r.prices(), p)
	}
	if plan.Taints.IsUnknown() || plan.QueuedProvisioning.IsUnknown() {
		plan.WorkloadTolerations = types.ListUnknown(tolerationType)
	} else {
		plan.WorkloadTolerations = tolerationsState(ctx, p, &diags)
	}
	// Zones can only be checked against the cluster's region now that the
	// provider's location is known. A location the resource sets was
	// checked by ValidateConfig (spec Validate), so only then is it skipped.
	var configLocation types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("location"), &configLocation)...)
	if configLocation.IsNull() {
		addSpecErrors(&resp.Diagnostics, p.ValidateLocation(), plan.known(ctx))
	}

	if !req.State.Raw.IsNull() {
		var state gpuPoolModel
		resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
		if resp.Diagnostics.HasError() {
			return
		}
		keep := func(same bool, planned, prior attr.Value) attr.Value {
			if same {
				return prior
			}
			return planned
		}
		plan.ID = state.ID
		plan.Version = state.Version
		plan.EffectiveTaints = keep(plan.Taints.Equal(state.Taints), types.ListUnknown(taintType), state.EffectiveTaints).(types.List)
		// The default cost labels follow name, GPU type and capacity.
		gpuTypeOf := func(o types.Object) attr.Value { return o.Attributes()["type"] }
		sameGPUType := !plan.GPU.IsUnknown() && !plan.GPU.IsNull() && !state.GPU.IsNull() && gpuTypeOf(plan.GPU).Equal(gpuTypeOf(state.GPU))
		plan.EffectiveLabels = keep(plan.ResourceLabels.Equal(state.ResourceLabels) && plan.Name.Equal(state.Name) &&
			sameGPUType && plan.Capacity.Equal(state.Capacity), types.MapUnknown(types.StringType), state.EffectiveLabels).(types.Map)
		if plan.EffectiveLabels.Equal(state.EffectiveLabels) {
			// Same inputs: the labels the pool must carry are known. One edited
			// outside Terraform (a cost label too) shows here and is put back.
			plan.EffectiveLabels = wantEffectiveLabels(ctx, p, state.EffectiveLabels, &diags)
		}
		plan.InstanceGroupURLs = keep(plan.NodeLocations.Equal(state.NodeLocations), types.ListUnknown(types.StringType), state.InstanceGroupURLs).(types.List)
		plan.Status = types.StringValue("RUNNING") // every apply waits until the pool runs again
		if state.Status.ValueString() == "ERROR" {
			// Left by a create GKE could not finish: replace it.
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("status"))
			plan.Status = types.StringUnknown()
		}
		if plan.Status.Equal(state.Status) && req.Plan.Raw.Equal(req.State.Raw) {
			plan.Status = state.Status
		}
	}
	resp.Diagnostics.Append(diags...)
	resp.Diagnostics.Append(setPlan(ctx, &resp.Plan, plan)...)
}

// wantEffectiveLabels is what effective_labels must be after an apply that
// leaves GKE's own goog-* labels and the platform's marker (from state)
// alone: those, then the pool's labels (the default cost labels and
// resource_labels).
func wantEffectiveLabels(ctx context.Context, p spec.GPUPool, state types.Map, diags *diag.Diagnostics) types.Map {
	want := map[string]string{}
	for k, v := range stringMap(ctx, state, diags) {
		if spec.IsServerOrMarkerResourceLabel(k) {
			want[k] = v
		}
	}
	maps.Copy(want, p.EffectiveResourceLabels())
	return stringMapValue(want)
}
