package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type cohortModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Parent            types.String `tfsdk:"parent"`
	ResourceGroups    types.List   `tfsdk:"resource_groups"`
	FairSharingWeight types.String `tfsdk:"fair_sharing_weight"`
}

func (m cohortModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.Cohort {
	return spec.Cohort{
		Name:              m.Name.ValueString(),
		Parent:            m.Parent.ValueString(),
		ResourceGroups:    resourceGroupsFromList(ctx, m.ResourceGroups, diags),
		FairSharingWeight: m.FairSharingWeight.ValueString(),
	}
}

// known says which attributes are fully known, for plan-time validation. A
// parent not known yet has a placeholder in ValidateConfig, so limits are
// still checked.
func (m cohortModel) known(ctx context.Context) map[string]bool {
	return knownAttrs(ctx, m)
}

// cohortState is what the server holds, with quantities written as in prior
// where they are equal.
func cohortState(ctx context.Context, s spec.Cohort, prior cohortModel, diags *diag.Diagnostics) cohortModel {
	return cohortModel{
		ID:                types.StringValue(s.Name),
		Name:              types.StringValue(s.Name),
		Parent:            optString(s.Parent),
		ResourceGroups:    resourceGroupsToList(ctx, s.ResourceGroups, prior.ResourceGroups, diags),
		FairSharingWeight: optString(spec.KeepSpelling(s.FairSharingWeight, prior.FairSharingWeight.ValueString())),
	}
}
