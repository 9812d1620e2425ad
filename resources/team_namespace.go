package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

var (
	_ resource.ResourceWithConfigure      = &TeamNamespace{}
	_ resource.ResourceWithImportState    = &TeamNamespace{}
	_ resource.ResourceWithValidateConfig = &TeamNamespace{}
	_ resource.ResourceWithModifyPlan     = &TeamNamespace{}
)

// TeamNamespace is mlplatform_team_namespace.
type TeamNamespace struct {
	objectCRUD[teamNamespaceModel, spec.TeamNamespace]
}

// NewTeamNamespace is the resource constructor.
func NewTeamNamespace() resource.Resource {
	return &TeamNamespace{objectCRUD: objectCRUD[teamNamespaceModel, spec.TeamNamespace]{
		kind:       "Namespace",
		reconciler: reconcilerOf[spec.TeamNamespace](reconcile.NewTeamNamespaces),
		toSpec: func(ctx context.Context, m teamNamespaceModel, d *diag.Diagnostics) spec.TeamNamespace {
			return m.toSpec(ctx, d)
		},
		validate: spec.TeamNamespace.Validate,
		ref:      func(m teamNamespaceModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:  teamNamespaceState,
	}}
}

func (r *TeamNamespace) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_team_namespace"
}

func (r *TeamNamespace) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A team's namespace, safe by default: Pod Security level `restricted` enforced, cost labels " +
			"(`" + spec.TeamLabel + "`, `" + spec.OwnerLabel + "`) so usage can be traced, and a `selector` for a ClusterQueue's " +
			"`namespace_selector`. Only the labels and annotations configured here are managed; others (added by other tools) are left alone. " +
			"Deleting it waits until Kubernetes has removed everything in the namespace.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The namespace name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "Namespace name (a DNS label). Changing it replaces the namespace and everything in it."},
			"team": schema.StringAttribute{Required: true,
				MarkdownDescription: "Team the namespace belongs to; set as label `" + spec.TeamLabel + "` (cost attribution, queue selection)."},
			"owner": schema.StringAttribute{Optional: true, Validators: nonEmpty,
				MarkdownDescription: "Owner (a user or group name) for cost attribution; set as label `" + spec.OwnerLabel + "`."},
			"pod_security_level": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("restricted"),
				Validators:          []validator.String{stringvalidator.OneOf(spec.PodSecurityLevels...)},
				MarkdownDescription: "Pod Security Standards level enforced on the namespace (`" + spec.PodSecurityKey + "`). Default `restricted`."},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "More labels. The platform's own keys are reserved."},
			"annotations": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Annotations."},
			"selector": schema.SingleNestedAttribute{Computed: true,
				MarkdownDescription: "Selects this team's namespaces: use as a ClusterQueue's `namespace_selector`.",
				PlanModifiers:       []planmodifier.Object{objectplanmodifier.UseStateForUnknown()},
				Attributes: map[string]schema.Attribute{
					"match_labels":      schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Labels to match."},
					"match_expressions": schema.ListAttribute{Computed: true, ElementType: selectorRequirementType, MarkdownDescription: "Always empty."},
				}},
		},
	}
	resp.Schema = withObjectTypes(resp.Schema)
}

// ModifyPlan makes the selector known at plan time, so a ClusterQueue's
// namespace_selector shows its real value in the plan.
func (r *TeamNamespace) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
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

func (r *TeamNamespace) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m teamNamespaceModel
	resp.Diagnostics.Append(getModel(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s := m.toSpec(ctx, &resp.Diagnostics)
	addSpecErrors(&resp.Diagnostics, s.Validate(), m.known(ctx))
}

// ImportState imports by name: terraform import mlplatform_team_namespace.x NAME.
func (r *TeamNamespace) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, nil)
}
