package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type teamNamespaceModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Team        types.String `tfsdk:"team"`
	Owner       types.String `tfsdk:"owner"`
	PodSecurity types.String `tfsdk:"pod_security_level"`
	Labels      types.Map    `tfsdk:"labels"`
	Annotations types.Map    `tfsdk:"annotations"`
	Selector    types.Object `tfsdk:"selector"`
	Force       types.Bool   `tfsdk:"force_destroy"`
}

func (m teamNamespaceModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.TeamNamespace {
	return spec.TeamNamespace{
		Name: m.Name.ValueString(), Team: m.Team.ValueString(), Owner: m.Owner.ValueString(),
		PodSecurity: m.PodSecurity.ValueString(),
		Labels:      stringMap(ctx, m.Labels, diags), Annotations: stringMap(ctx, m.Annotations, diags),
		ForceDestroy: m.Force.ValueBool(),
	}
}

// known says which attributes are fully known, for plan-time validation.
func (m teamNamespaceModel) known(ctx context.Context) map[string]bool {
	return knownAttrs(ctx, m)
}

// teamSelector selects the team's namespaces, in the type of a ClusterQueue's
// namespace_selector.
func teamSelector(team string) types.Object {
	return types.ObjectValueMust(selectorType.AttrTypes, map[string]attr.Value{
		"match_labels":      types.MapValueMust(types.StringType, map[string]attr.Value{spec.TeamLabel: types.StringValue(team)}),
		"match_expressions": types.ListNull(selectorRequirementType),
	})
}

// onlyKeysOf keeps the entries of server whose keys prior has: labels and
// annotations others add are theirs, not drift.
func onlyKeysOf(ctx context.Context, server map[string]string, prior types.Map, diags *diag.Diagnostics) map[string]string {
	keep := stringMap(ctx, prior, diags)
	out := map[string]string{}
	for k := range keep {
		if v, ok := server[k]; ok {
			out[k] = v
		}
	}
	return out
}

func teamNamespaceState(ctx context.Context, s spec.TeamNamespace, prior teamNamespaceModel, diags *diag.Diagnostics) teamNamespaceModel {
	return teamNamespaceModel{
		ID:          types.StringValue(s.Name),
		Name:        types.StringValue(s.Name),
		Team:        types.StringValue(s.Team),
		Owner:       optString(s.Owner),
		PodSecurity: types.StringValue(s.PodSecurity),
		Labels:      stringMapState(ctx, onlyKeysOf(ctx, s.Labels, prior.Labels, diags), prior.Labels, diags),
		Annotations: stringMapState(ctx, onlyKeysOf(ctx, s.Annotations, prior.Annotations, diags), prior.Annotations, diags),
		Selector:    teamSelector(s.Team),
		Force:       types.BoolValue(boolOr(prior.Force, false)), // not held by the server
	}
}
