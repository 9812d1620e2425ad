package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type workloadPriorityClassModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Value       types.Int64  `tfsdk:"value"`
	Description types.String `tfsdk:"description"`
}

// toSpec is the desired state. Unknown values become zero values; callers
// that validate use known() to skip them.
func (m workloadPriorityClassModel) toSpec() spec.WorkloadPriorityClass {
	return spec.WorkloadPriorityClass{
		Name:        m.Name.ValueString(),
		Value:       m.Value.ValueInt64(),
		Description: m.Description.ValueString(),
	}
}

// known reports, per top-level attribute, whether its value is known yet.
func (m workloadPriorityClassModel) known() map[string]bool {
	return knownAttrs(context.Background(), m)
}

// workloadPriorityClassState is what the server holds, as state. An empty
// description is null (the attribute is optional and rejects "").
func workloadPriorityClassState(s spec.WorkloadPriorityClass) workloadPriorityClassModel {
	m := workloadPriorityClassModel{
		ID:          types.StringValue(s.Name),
		Name:        types.StringValue(s.Name),
		Value:       types.Int64Value(s.Value),
		Description: types.StringNull(),
	}
	if s.Description != "" {
		m.Description = types.StringValue(s.Description)
	}
	return m
}
