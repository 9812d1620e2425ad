package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type resourceFlavorModel struct {
	ID           types.String `tfsdk:"id"`
	Name         types.String `tfsdk:"name"`
	NodeLabels   types.Map    `tfsdk:"node_labels"`
	NodeTaints   types.List   `tfsdk:"node_taints"`
	Tolerations  types.List   `tfsdk:"tolerations"`
	TopologyName types.String `tfsdk:"topology_name"`
}

func (m resourceFlavorModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.ResourceFlavor {
	return spec.ResourceFlavor{
		Name:         m.Name.ValueString(),
		NodeLabels:   stringMap(ctx, m.NodeLabels, diags),
		NodeTaints:   taintsFromList(ctx, m.NodeTaints, diags),
		Tolerations:  tolerationsFromList(ctx, m.Tolerations, diags),
		TopologyName: m.TopologyName.ValueString(),
	}
}

// known says which attributes are fully known, for plan-time validation.
// Node labels not known yet have a placeholder in ValidateConfig, so a
// topology is still checked.
func (m resourceFlavorModel) known(ctx context.Context) map[string]bool {
	return knownAttrs(ctx, m)
}

func resourceFlavorState(ctx context.Context, s spec.ResourceFlavor, prior resourceFlavorModel, diags *diag.Diagnostics) resourceFlavorModel {
	return resourceFlavorModel{
		ID:           types.StringValue(s.Name),
		Name:         types.StringValue(s.Name),
		NodeLabels:   stringMapState(ctx, s.NodeLabels, prior.NodeLabels, diags),
		NodeTaints:   taintsToList(ctx, s.NodeTaints, prior.NodeTaints, diags),
		Tolerations:  tolerationsToList(ctx, s.Tolerations, prior.Tolerations, diags),
		TopologyName: optString(s.TopologyName),
	}
}
