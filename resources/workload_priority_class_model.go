package resources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
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
	return map[string]bool{
		"name":        !m.Name.IsUnknown(),
		"value":       !m.Value.IsUnknown(),
		"description": !m.Description.IsUnknown(),
	}
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

// refuseEmpty validates an optional string that must not be "": left out,
// it means "none", and "" would read back as left out. The spec cannot tell
// "" from left out (both are the zero string), so this is the one check of
// it. title names the attribute in the summary ("Display Name"); example is
// a value to write instead, quoted.
func refuseEmpty(title, example string) []validator.String {
	return []validator.String{emptyStringRefused{title: title, example: example}}
}

type emptyStringRefused struct{ title, example string }

func (v emptyStringRefused) Description(context.Context) string { return "must not be empty" }

func (v emptyStringRefused) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v emptyStringRefused) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() != "" {
		return
	}
	name := req.Path.String()
	if steps := req.Path.Steps(); len(steps) > 0 {
		name = steps[len(steps)-1].String()
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Empty "+v.title,
		fmt.Sprintf("Attribute %s: it is empty. Leave %s out for none, or write one, e.g. %s.", req.Path, name, v.example))
}
