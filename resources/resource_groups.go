package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Schema, model and conversions of Kueue resource groups, shared by
// mlplatform_cluster_queue and mlplatform_cohort:
//
//	resource_groups = [{
//	  covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
//	  flavors = [{
//	    name      = "h100-spot"
//	    resources = [{ name = "cpu", nominal_quota = "96" }, ...]
//	  }]
//	}]
//
// Quotas are strings holding Kubernetes quantities. State keeps the
// configured spelling whenever the server holds the same quantity, so "12000m"
// against the server's "12" is never drift.

type resourceGroupModel struct {
	CoveredResources types.List `tfsdk:"covered_resources"`
	Flavors          types.List `tfsdk:"flavors"`
}

type flavorQuotasModel struct {
	Name      types.String `tfsdk:"name"`
	Resources types.List   `tfsdk:"resources"`
}

type resourceQuotaModel struct {
	Name           types.String `tfsdk:"name"`
	NominalQuota   types.String `tfsdk:"nominal_quota"`
	BorrowingLimit types.String `tfsdk:"borrowing_limit"`
	LendingLimit   types.String `tfsdk:"lending_limit"`
}

var (
	resourceQuotaType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"name": types.StringType, "nominal_quota": types.StringType, "borrowing_limit": types.StringType, "lending_limit": types.StringType,
	}}
	flavorQuotasType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"name": types.StringType, "resources": types.ListType{ElemType: resourceQuotaType},
	}}
	resourceGroupType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"covered_resources": types.ListType{ElemType: types.StringType}, "flavors": types.ListType{ElemType: flavorQuotasType},
	}}
)

// resourceGroupsAttribute is the resource_groups attribute, described by
// description (whose quota it is).
func resourceGroupsAttribute(description string) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: description,
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"covered_resources": schema.ListAttribute{Required: true, ElementType: types.StringType,
				MarkdownDescription: "Resources the group's flavors grant quota for (1 to 64), e.g. `[\"cpu\", \"memory\", \"nvidia.com/gpu\"]`. " +
					"A resource belongs to one group only; every flavor of the group lists a quota for each, in this order."},
			"flavors": schema.ListNestedAttribute{Required: true,
				MarkdownDescription: "Quotas per ResourceFlavor (1 to 64). A flavor belongs to one group only.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name": schema.StringAttribute{Required: true, MarkdownDescription: "Name of a ResourceFlavor, e.g. `mlplatform_resource_flavor.h100_spot.name`."},
					"resources": schema.ListNestedAttribute{Required: true,
						MarkdownDescription: "One quota per covered resource, in the order of `covered_resources`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"name": schema.StringAttribute{Required: true, MarkdownDescription: "The covered resource, e.g. `nvidia.com/gpu`."},
							"nominal_quota": schema.StringAttribute{Required: true,
								MarkdownDescription: "Quantity available, as a Kubernetes quantity string (`\"16\"`, `\"500m\"`, `\"1Ti\"`); `\"0\"` grants none. " +
									"Compared by value: `\"12\"` and `\"12000m\"` are the same."},
							"borrowing_limit": schema.StringAttribute{Optional: true,
								Validators: notEmpty("borrowing_limit", "leave borrowing_limit out for no limit, or write a quantity, e.g. \"8\" (\"0\" borrows nothing)."),
								MarkdownDescription: "Most that may be borrowed beyond `nominal_quota` from the rest of the cohort tree; unset means no limit. " +
									"Only with a cohort (ClusterQueue) or a parent (Cohort)."},
							"lending_limit": schema.StringAttribute{Optional: true,
								Validators: notEmpty("lending_limit", "leave lending_limit out to lend all unused quota, or write a quantity, e.g. \"4\" (\"0\" lends nothing)."),
								MarkdownDescription: "Most of the unused quota that may be lent to the rest of the cohort tree; unset means all of it. " +
									"Only with a cohort (ClusterQueue) or a parent (Cohort)."},
						}},
					},
				}},
			},
		}},
	}
}

// resourceGroupsFromList converts the attribute into specs. Null and unknown
// parts read as empty, so plan-time validation can run on what is known.
func resourceGroupsFromList(ctx context.Context, l types.List, diags *diag.Diagnostics) []spec.ResourceGroup {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var gms []resourceGroupModel
	diags.Append(elementsInto(l.Elements(), &gms)...)
	out := make([]spec.ResourceGroup, 0, len(gms))
	for _, gm := range gms {
		g := spec.ResourceGroup{}
		if covered := stringList(ctx, gm.CoveredResources, diags); len(covered) > 0 {
			g.CoveredResources = covered
		}
		var fms []flavorQuotasModel
		diags.Append(elementsInto(gm.Flavors.Elements(), &fms)...)
		for _, fm := range fms {
			f := spec.FlavorQuotas{Name: fm.Name.ValueString()}
			var rms []resourceQuotaModel
			diags.Append(elementsInto(fm.Resources.Elements(), &rms)...)
			for _, rm := range rms {
				f.Resources = append(f.Resources, spec.ResourceQuota{
					Name: rm.Name.ValueString(), NominalQuota: rm.NominalQuota.ValueString(),
					BorrowingLimit: rm.BorrowingLimit.ValueString(), LendingLimit: rm.LendingLimit.ValueString(),
				})
			}
			g.Flavors = append(g.Flavors, f)
		}
		out = append(out, g)
	}
	return out
}

// resourceGroupsToList converts what the server holds into the attribute,
// written as in prior (the plan or the previous state) wherever prior has the
// same quantity for the same flavor and resource.
func resourceGroupsToList(ctx context.Context, groups []spec.ResourceGroup, prior types.List, diags *diag.Diagnostics) types.List {
	if len(groups) == 0 {
		return emptyLike(prior, resourceGroupType)
	}
	var ignore diag.Diagnostics // prior is only a spelling hint
	groups = spec.KeepQuotaSpelling(groups, resourceGroupsFromList(ctx, prior, &ignore))
	gms := make([]resourceGroupModel, 0, len(groups))
	for _, g := range groups {
		fms := make([]flavorQuotasModel, 0, len(g.Flavors))
		for _, f := range g.Flavors {
			rms := make([]resourceQuotaModel, 0, len(f.Resources))
			for _, r := range f.Resources {
				rms = append(rms, resourceQuotaModel{
					Name: types.StringValue(r.Name), NominalQuota: types.StringValue(r.NominalQuota),
					BorrowingLimit: optString(r.BorrowingLimit), LendingLimit: optString(r.LendingLimit),
				})
			}
			rl, d := listOfModels(resourceQuotaType, rms)
			diags.Append(d...)
			fms = append(fms, flavorQuotasModel{Name: types.StringValue(f.Name), Resources: rl})
		}
		fl, d := listOfModels(flavorQuotasType, fms)
		diags.Append(d...)
		gms = append(gms, resourceGroupModel{CoveredResources: stringListValue(g.CoveredResources), Flavors: fl})
	}
	l, d := listOfModels(resourceGroupType, gms)
	diags.Append(d...)
	return l
}
