package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Shared schema pieces and conversions for Kubernetes taints and
// tolerations, used by every resource that selects or tolerates nodes.

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

type tolerationModel struct {
	Key               types.String `tfsdk:"key"`
	Operator          types.String `tfsdk:"operator"`
	Value             types.String `tfsdk:"value"`
	Effect            types.String `tfsdk:"effect"`
	TolerationSeconds types.Int64  `tfsdk:"toleration_seconds"`
}

func taintAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"key": schema.StringAttribute{Required: true, MarkdownDescription: "Taint key, e.g. `nvidia.com/gpu`."},
		"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value.",
			Validators: notEmpty("value", "leave value out for a taint without one, or write the value, e.g. \"true\".")},
		"effect": schema.StringAttribute{Required: true, MarkdownDescription: "One of `NoSchedule`, `PreferNoSchedule`, `NoExecute`."},
	}
}

func tolerationAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"key": schema.StringAttribute{Optional: true, MarkdownDescription: "Taint key to tolerate; empty with operator `Exists` tolerates every taint.",
			Validators: notEmpty("key", "leave key out (with operator = \"Exists\") to tolerate every taint, or write the key of the taint to tolerate, e.g. \"nvidia.com/gpu\".")},
		"operator": schema.StringAttribute{Optional: true, MarkdownDescription: "`Equal` (the default when unset) or `Exists`.",
			Validators: notEmpty("operator", "leave operator out for Equal, or write Equal or Exists.")},
		"value": schema.StringAttribute{Optional: true, MarkdownDescription: "Value to match with operator `Equal`.",
			Validators: notEmpty("value", "leave value out (operator Exists matches any value), or write the taint's value, e.g. \"present\".")},
		"effect": schema.StringAttribute{Optional: true, MarkdownDescription: "Effect to tolerate; unset tolerates every effect.",
			Validators: notEmpty("effect", "leave effect out to tolerate every effect, or write NoSchedule, PreferNoSchedule or NoExecute.")},
		"toleration_seconds": schema.Int64Attribute{Optional: true, MarkdownDescription: "With effect `NoExecute`: how long the pod stays after the taint appears."},
	}
}

var (
	taintType      = types.ObjectType{AttrTypes: map[string]attr.Type{"key": types.StringType, "value": types.StringType, "effect": types.StringType}}
	tolerationType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"key": types.StringType, "operator": types.StringType, "value": types.StringType, "effect": types.StringType, "toleration_seconds": types.Int64Type,
	}}
)

func taintsFromList(ctx context.Context, l types.List, diags *diag.Diagnostics) []spec.Taint {
	if l.IsUnknown() { // from a resource not yet created; validated again at apply
		return nil
	}
	var ms []taintModel
	diags.Append(elementsInto(l.Elements(), &ms)...)
	out := make([]spec.Taint, 0, len(ms))
	for _, m := range ms {
		out = append(out, spec.Taint{Key: m.Key.ValueString(), Value: m.Value.ValueString(), Effect: m.Effect.ValueString()})
	}
	return out
}

func tolerationsFromList(ctx context.Context, l types.List, diags *diag.Diagnostics) []spec.Toleration {
	if l.IsUnknown() { // e.g. a GPU pool's workload_tolerations while validating; known again at plan
		return nil
	}
	var ms []tolerationModel
	diags.Append(elementsInto(l.Elements(), &ms)...)
	out := make([]spec.Toleration, 0, len(ms))
	for _, m := range ms {
		t := spec.Toleration{Key: m.Key.ValueString(), Operator: m.Operator.ValueString(), Value: m.Value.ValueString(), Effect: m.Effect.ValueString()}
		if !m.TolerationSeconds.IsNull() && !m.TolerationSeconds.IsUnknown() {
			v := m.TolerationSeconds.ValueInt64()
			t.TolerationSeconds = &v
		}
		out = append(out, t)
	}
	return out
}

func taintsToList(ctx context.Context, ts []spec.Taint, prior types.List, diags *diag.Diagnostics) types.List {
	if len(ts) == 0 {
		return emptyLike(prior, taintType)
	}
	ms := make([]taintModel, 0, len(ts))
	for _, t := range ts {
		ms = append(ms, taintModel{Key: types.StringValue(t.Key), Value: optString(t.Value), Effect: types.StringValue(t.Effect)})
	}
	l, d := listOfModels(taintType, ms)
	diags.Append(d...)
	return l
}

func tolerationsToList(ctx context.Context, ts []spec.Toleration, prior types.List, diags *diag.Diagnostics) types.List {
	if len(ts) == 0 {
		return emptyLike(prior, tolerationType)
	}
	ms := make([]tolerationModel, 0, len(ts))
	for _, t := range ts {
		m := tolerationModel{Key: optString(t.Key), Operator: optString(t.Operator), Value: optString(t.Value), Effect: optString(t.Effect),
			TolerationSeconds: types.Int64PointerValue(t.TolerationSeconds)}
		ms = append(ms, m)
	}
	l, d := listOfModels(tolerationType, ms)
	diags.Append(d...)
	return l
}
