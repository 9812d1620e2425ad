package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/mapplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ResourceFlavor is mlplatform_resource_flavor.
type ResourceFlavor struct {
	objectCRUD[resourceFlavorModel, spec.ResourceFlavor]
}

// NewResourceFlavor is the resource constructor.
func NewResourceFlavor() resource.Resource {
	return &ResourceFlavor{objectCRUD: objectCRUD[resourceFlavorModel, spec.ResourceFlavor]{
		resourceType: "mlplatform_resource_flavor",
		kind:         "ResourceFlavor",
		connect:      kubeReconciler[reconcile.Ref, spec.ResourceFlavor, spec.ResourceFlavor](reconcile.NewResourceFlavors),
		toSpec:       resourceFlavorModel.toSpec,
		validate:     spec.ResourceFlavor.Validate,
		ref:          func(m resourceFlavorModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:      specState(resourceFlavorState),
	}}
}

// topologySet reports whether the flavor in state has a topology, after
// which Kueue makes node labels, tolerations and the topology immutable.
func topologySet(ctx context.Context, state tfsdk.State) bool {
	if state.Raw.IsNull() {
		return false
	}
	var t types.String
	state.GetAttribute(ctx, path.Root("topology_name"), &t)
	return !t.IsNull() && !t.IsUnknown() && t.ValueString() != ""
}

const immutableWithTopology = "Kueue makes this immutable once the flavor has a topology_name, so changing it replaces the flavor."

func (r *ResourceFlavor) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `ResourceFlavor` (kueue.x-k8s.io/v1beta2): a kind of node that quotas are granted on. " +
			"Workloads admitted on the flavor get its `node_labels` as node selector and its `tolerations`, so wire them from the " +
			"GPU pool they stand for: `node_labels = mlplatform_gpu_pool.x.node_selector`, `tolerations = mlplatform_gpu_pool.x.workload_tolerations`. " +
			"Kueue holds a flavor (finalizer `kueue.x-k8s.io/resource-in-use`) while a ClusterQueue uses it; deleting it waits until the queues let go.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The flavor name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Flavor name, referenced by ClusterQueue quotas. Changing it replaces the flavor.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"node_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Labels of the nodes this flavor stands for (at most 8); added to the node selector of admitted workloads. " + immutableWithTopology,
				PlanModifiers: []planmodifier.Map{mapplanmodifier.RequiresReplaceIf(func(ctx context.Context, req planmodifier.MapRequest, resp *mapplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = topologySet(ctx, req.State)
				}, "Replaces the flavor when it has a topology.", "Replaces the flavor when it has a topology.")}},
			"node_taints": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: taintAttributes()},
				MarkdownDescription: "Taints the flavor's nodes carry (at most 8); a workload is admitted on the flavor only if it tolerates them. " +
					"Leave empty when the taints are in `tolerations` (GKE GPU pools: the pool's `workload_tolerations` already cover its taints)."},
			"tolerations": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: tolerationAttributes()},
				MarkdownDescription: "Tolerations added to admitted workloads (at most 8). " + immutableWithTopology,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIf(func(ctx context.Context, req planmodifier.ListRequest, resp *listplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = topologySet(ctx, req.State)
				}, "Replaces the flavor when it has a topology.", "Replaces the flavor when it has a topology.")}},
			"topology_name": schema.StringAttribute{Optional: true,
				Validators:          notEmpty("topology_name", "leave topology_name out for a flavor without topology-aware scheduling, or name a Kueue Topology, e.g. \"gke-default\"."),
				MarkdownDescription: "Name of a Kueue Topology for topology-aware scheduling; needs at least one node label. " + immutableWithTopology,
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplaceIf(func(ctx context.Context, req planmodifier.StringRequest, resp *stringplanmodifier.RequiresReplaceIfFuncResponse) {
					resp.RequiresReplace = topologySet(ctx, req.State)
				}, "Replaces the flavor when it had a topology.", "Replaces the flavor when it had a topology.")}},
		},
	}
}

func (r *ResourceFlavor) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m resourceFlavorModel
	resp.Diagnostics.Append(getModel(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s := m.toSpec(ctx, &resp.Diagnostics)
	known := m.known(ctx)
	if m.NodeLabels.IsUnknown() {
		// Labels not known yet (e.g. a GPU pool's node_selector while
		// validating): a topology's need for them is checked once they are.
		s.NodeLabels = map[string]string{"node-labels-known-after-apply": ""}
	}
	addSpecErrors(&resp.Diagnostics, withoutEmptyKeyTolerations(s.Validate(), m.Tolerations), known)
}

// withoutEmptyKeyTolerations drops the spec's errors about a toleration
// whose key is written as "": the schema reports that key, and the spec,
// reading it as no key, would report the same mistake again (as needing
// operator Exists).
func withoutEmptyKeyTolerations(errs spec.FieldErrors, tols types.List) spec.FieldErrors {
	if tols.IsNull() || tols.IsUnknown() {
		return errs
	}
	empty := map[int]bool{}
	for i, e := range tols.Elements() {
		o, ok := e.(types.Object)
		if !ok {
			continue
		}
		if k, ok := o.Attributes()["key"].(types.String); ok && !k.IsNull() && !k.IsUnknown() && k.ValueString() == "" {
			empty[i] = true
		}
	}
	if len(empty) == 0 {
		return errs
	}
	var kept spec.FieldErrors
	for _, e := range errs {
		if len(e.Path) > 1 && e.Path[0] == "tolerations" {
			if i, ok := e.Path[1].(int); ok && empty[i] {
				continue
			}
		}
		kept = append(kept, e)
	}
	return kept
}

// ImportState imports by name: terraform import mlplatform_resource_flavor.x NAME.
func (r *ResourceFlavor) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, nil)
}
