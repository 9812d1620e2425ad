package resources

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// TeamNamespace is mlplatform_team_namespace.
type TeamNamespace struct {
	objectCRUD[teamNamespaceModel, spec.TeamNamespace]
}

// NewTeamNamespace is the resource constructor.
func NewTeamNamespace() resource.Resource {
	return &TeamNamespace{objectCRUD: objectCRUD[teamNamespaceModel, spec.TeamNamespace]{
		resourceType: "mlplatform_team_namespace",
		kind:         "Namespace",
		connect:      kubeReconciler[reconcile.Ref, spec.TeamNamespace, spec.TeamNamespace](reconcile.NewTeamNamespaces),
		toSpec:       teamNamespaceModel.toSpec,
		validate:     spec.TeamNamespace.Validate,
		ref:          func(m teamNamespaceModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:      specState(teamNamespaceState),
		known:        teamNamespaceModel.known,
	}}
}

func (r *TeamNamespace) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A team's namespace, safe by default: Pod Security level `restricted` enforced, cost labels " +
			"(`" + spec.TeamLabel + "`, `" + spec.OwnerLabel + "`) so usage can be traced, and a `selector` for a ClusterQueue's " +
			"`namespace_selector`. Only the labels and annotations configured here are managed; others (added by other tools) are left alone. " +
			"Deleting it waits until Kubernetes has removed everything in the namespace.\n\n" +
			"**Data is kept safe:** while the namespace holds PersistentVolumeClaims (checkpoints), or Jobs, JobSets or Kueue Workloads " +
			"that have not finished, a plan that would delete it (destroy, removal from the configuration, or a rename) fails, naming " +
			"them, before anything in that apply is deleted. Set `force_destroy = true`, and apply it, to delete the namespace with " +
			"everything in it.\n\n" +
			"A create fails, and leaves it unchanged, when a namespace of that name exists that this resource did not create (another " +
			"configuration's included); " +
			"import it to manage it (the import adopts its labels and annotations as they are; apply then sets only the ones configured " +
			"here, and leaves every other label, annotation and object in it alone). System namespaces (`default`, `kube-*`, " +
			"`kueue-system`, `gke-*`, ...) are refused at plan.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The namespace name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Namespace name (a DNS label). Changing it replaces the namespace and everything in it."},
			"team": schema.StringAttribute{Required: true,
				MarkdownDescription: "Team the namespace belongs to; set as label `" + spec.TeamLabel + "` (cost attribution, queue selection)."},
			"owner": schema.StringAttribute{Optional: true,
				Validators:          notEmpty("owner", "leave owner out, or write a user or group name, e.g. \"alice\"."),
				MarkdownDescription: "Owner (a user or group name) for cost attribution; set as label `" + spec.OwnerLabel + "`."},
			"pod_security_level": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("restricted"),
				MarkdownDescription: "Pod Security Standards level enforced on the namespace (`" + spec.PodSecurityKey + "`): `restricted`, `baseline` or `privileged`. Default `restricted`."},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "More labels. The platform's own keys are reserved."},
			"annotations": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Annotations."},
			"force_destroy": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Delete the namespace even while it holds PersistentVolumeClaims or unfinished Jobs, JobSets or Kueue " +
					"Workloads, which are deleted with it. Default `false`: such a deletion is refused at plan time, naming them. " +
					"Like terraform-provider-google's `force_destroy`, it must be applied (in state) before the destroy it allows."},
			"selector": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "Selects this team's namespaces: use as a ClusterQueue's `namespace_selector`.",
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]schema.Attribute{
					"match_labels":      schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Labels to match."},
					"match_expressions": schema.ListAttribute{Computed: true, ElementType: selectorRequirementType, MarkdownDescription: "Always empty."},
				}},
		},
	}
}

// ModifyPlan makes the selector known at plan time, so a ClusterQueue's
// namespace_selector shows its real value in the plan; and it refuses, at
// plan time, a deletion (destroy, or a rename's replacement) of a namespace
// that holds data, so nothing of that apply is deleted.
func (r *TeamNamespace) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if !req.State.Raw.IsNull() {
		r.protectData(ctx, req, resp)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if req.Plan.Raw.IsNull() {
		return
	}
	var team types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("team"), &team)...)
	if team.IsUnknown() || team.IsNull() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("selector"), teamSelector(team.ValueString()))...)
}

// protectData fails the plan when it deletes the namespace in state (a
// destroy, or a new name) while the namespace holds data or unfinished work
// and force_destroy is not set in state.
func (r *TeamNamespace) protectData(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if r.clients == nil {
		return
	}
	var name, planned types.String
	var force types.Bool
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("force_destroy"), &force)...)
	if !req.Plan.Raw.IsNull() {
		resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &planned)...)
		if planned.IsUnknown() || planned.Equal(name) {
			return // kept (an unknown name is decided at apply, where Delete checks again)
		}
	}
	if resp.Diagnostics.HasError() || force.ValueBool() {
		return
	}
	kc, ok := connectKube(ctx, r.clients, &resp.Diagnostics)
	if !ok {
		return
	}
	err := reconcile.NamespaceData(ctx, kc, name.ValueString())
	switch {
	case errors.Is(err, reconcile.ErrHoldsData):
		diagnostics.Error(&resp.Diagnostics, "Namespace "+name.ValueString()+" Holds Data", err)
	case err != nil: // the check must run before anything is deleted: no check, no plan
		diagnostics.Error(&resp.Diagnostics, "Could Not Check What Namespace "+name.ValueString()+" Holds", err)
	}
}

// ImportState imports by name: terraform import mlplatform_team_namespace.x NAME.
func (r *TeamNamespace) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, map[string]attr.Value{"force_destroy": types.BoolValue(false)})
}
