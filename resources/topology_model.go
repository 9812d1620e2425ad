package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type topologyModel struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	Levels types.List   `tfsdk:"levels"`
}

func (m topologyModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.Topology {
	return spec.Topology{Name: m.Name.ValueString(), Levels: stringList(ctx, m.Levels, diags)}
}

// known says which attributes are fully known, for plan-time validation.
func (m topologyModel) known(ctx context.Context) map[string]bool { return knownAttrs(ctx, m) }

func topologyState(_ context.Context, s spec.Topology, _ topologyModel, _ *diag.Diagnostics) topologyModel {
	return topologyModel{
		ID:     types.StringValue(s.Name),
		Name:   types.StringValue(s.Name),
		Levels: stringListValue(s.Levels),
	}
}
