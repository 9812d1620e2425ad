package resources

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Topology is mlplatform_topology.
type Topology struct {
	objectCRUD[topologyModel, spec.Topology]
}

// NewTopology is the resource constructor.
func NewTopology() resource.Resource {
	return &Topology{objectCRUD: objectCRUD[topologyModel, spec.Topology]{
		resourceType: "mlplatform_topology",
		kind:         "Topology",
		connect:      kubeReconciler[reconcile.Ref, spec.Topology, spec.Topology](reconcile.NewTopologies),
		toSpec:       topologyModel.toSpec,
		validate:     spec.Topology.Validate,
		ref:          func(m topologyModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:      specState(topologyState),
		known:        topologyModel.known,
	}}
}

func (r *Topology) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `Topology` (kueue.x-k8s.io/v1beta2) for topology-aware scheduling: the node labels that say where a node is, " +
			"highest level first. A `mlplatform_resource_flavor` naming it in `topology_name` makes its quota topology-aware: a workload whose pod " +
			"template asks for `kueue.x-k8s.io/podset-required-topology: LEVEL` is admitted only with all its pods inside one domain of that level " +
			"(one block, one host), and `podset-preferred-topology` packs them as close as the free capacity allows. " +
			"Kueue holds a Topology (finalizer `kueue.x-k8s.io/resource-in-use`) while a flavor names it; deleting it waits up to 30 seconds for the " +
			"flavors to go and otherwise fails, naming them.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The Topology name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Topology name, referenced by flavors' `topology_name`; " +
				"`gke-default` is the usual one on GKE. Changing it replaces the Topology.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"levels": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Node labels, highest level first (1 to 16, each once; `kubernetes.io/hostname` only last). On GKE the usual levels are " +
					"`cloud.google.com/gce-topology-block`, `cloud.google.com/gce-topology-subblock`, `cloud.google.com/gce-topology-host`, " +
					"`kubernetes.io/hostname`: nodes carry the first three on A3 Ultra, A4 and other accelerator-optimized machines placed compactly " +
					"or from a reservation (see the guide \"Placing gangs close together\"). Kueue refuses any change to the levels, so changing them replaces the " +
					"Topology; while a flavor names it that replacement cannot delete it: give the new levels a new Topology name and point the flavor at it.",
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplace()}},
		},
	}
}

// ModifyPlan warns when new levels replace a Topology: flavors naming it
// hold it, so the replacement fails unless they move to another Topology.
func (r *Topology) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var was, will types.List
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("levels"), &was)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("levels"), &will)...)
	if resp.Diagnostics.HasError() || will.IsUnknown() {
		return
	}
	if slices.Equal(stringList(ctx, was, &resp.Diagnostics), stringList(ctx, will, &resp.Diagnostics)) {
		return
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("levels"), "Topology Replaced",
		"Kueue refuses changes to a Topology's levels, so this plan deletes the Topology and creates it again. Kueue keeps a Topology while "+
			"any ResourceFlavor names it in topology_name, and then the delete fails after 30 seconds, naming the flavors. To change the levels "+
			"under flavors in use, create a Topology with a new name and point the flavors at it (which replaces them), then remove the old one.")
}

// ImportState imports by name: terraform import mlplatform_topology.x NAME.
func (r *Topology) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, nil)
}
