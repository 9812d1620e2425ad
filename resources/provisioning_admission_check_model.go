package resources

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type provisioningAdmissionCheckModel struct {
	ID                       types.String `tfsdk:"id"`
	Name                     types.String `tfsdk:"name"`
	ProvisioningClass        types.String `tfsdk:"provisioning_class"`
	ManagedResources         types.Set    `tfsdk:"managed_resources"`
	Parameters               types.Map    `tfsdk:"parameters"`
	RetryStrategy            types.Object `tfsdk:"retry_strategy"`
	PodSetNodeSelectorUpdate types.Bool   `tfsdk:"pod_set_node_selector_update"`
}

type retryStrategyModel struct {
	BackoffLimitCount  types.Int64 `tfsdk:"backoff_limit_count"`
	BackoffBaseSeconds types.Int64 `tfsdk:"backoff_base_seconds"`
	BackoffMaxSeconds  types.Int64 `tfsdk:"backoff_max_seconds"`
}

var retryStrategyType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"backoff_limit_count": types.Int64Type, "backoff_base_seconds": types.Int64Type, "backoff_max_seconds": types.Int64Type,
}}

func retryStrategyObject(r spec.RetryStrategy) types.Object {
	return types.ObjectValueMust(retryStrategyType.AttrTypes, map[string]attr.Value{
		"backoff_limit_count":  types.Int64Value(r.BackoffLimitCount),
		"backoff_base_seconds": types.Int64Value(r.BackoffBaseSeconds),
		"backoff_max_seconds":  types.Int64Value(r.BackoffMaxSeconds),
	})
}

// toSpec converts a plan or a configuration. In a configuration, attributes
// left out are null (their defaults are applied in the plan), so null means
// the default here too.
func (m provisioningAdmissionCheckModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.ProvisioningAdmissionCheck {
	p := spec.ProvisioningAdmissionCheck{
		Name:              m.Name.ValueString(),
		ProvisioningClass: spec.QueuedProvisioningClass,
		ManagedResources:  slices.Clone(spec.DefaultManagedResources),
		Parameters:        stringMap(ctx, m.Parameters, diags),
		RetryStrategy:     spec.DefaultRetryStrategy,
	}
	if !m.ProvisioningClass.IsNull() && !m.ProvisioningClass.IsUnknown() {
		p.ProvisioningClass = m.ProvisioningClass.ValueString()
	}
	if !m.ManagedResources.IsNull() && !m.ManagedResources.IsUnknown() {
		p.ManagedResources = stringList(ctx, m.ManagedResources, diags)
		slices.Sort(p.ManagedResources)
	}
	if !m.RetryStrategy.IsNull() && !m.RetryStrategy.IsUnknown() {
		var rm retryStrategyModel
		diags.Append(objectInto(m.RetryStrategy, &rm)...)
		setKnown(&p.RetryStrategy.BackoffLimitCount, rm.BackoffLimitCount)
		setKnown(&p.RetryStrategy.BackoffBaseSeconds, rm.BackoffBaseSeconds)
		setKnown(&p.RetryStrategy.BackoffMaxSeconds, rm.BackoffMaxSeconds)
	}
	if m.PodSetNodeSelectorUpdate.IsNull() || m.PodSetNodeSelectorUpdate.IsUnknown() || m.PodSetNodeSelectorUpdate.ValueBool() {
		p.PodSetNodeSelectors = []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector}
	}
	return p
}

func setKnown(dst *int64, v types.Int64) {
	if !v.IsNull() && !v.IsUnknown() {
		*dst = v.ValueInt64()
	}
}

// known says which attributes are fully known, for plan-time validation.
func (m provisioningAdmissionCheckModel) known(ctx context.Context) map[string]bool {
	return knownAttrs(ctx, m)
}

// provisioningAdmissionCheckState is what the server holds. The node
// selector update reads as true only when it is exactly GKE's, so anything
// else (removed, or changed out of band) shows as a change to restore.
func provisioningAdmissionCheckState(ctx context.Context, s spec.ProvisioningAdmissionCheck, prior provisioningAdmissionCheckModel, diags *diag.Diagnostics) provisioningAdmissionCheckModel {
	return provisioningAdmissionCheckModel{
		ID:                       types.StringValue(s.Name),
		Name:                     types.StringValue(s.Name),
		ProvisioningClass:        types.StringValue(s.ProvisioningClass),
		ManagedResources:         stringSetValue(nonNil(s.ManagedResources)),
		Parameters:               stringMapState(ctx, s.Parameters, prior.Parameters, diags),
		RetryStrategy:            retryStrategyObject(s.RetryStrategy),
		PodSetNodeSelectorUpdate: types.BoolValue(slices.Equal(s.PodSetNodeSelectors, []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector})),
	}
}
