package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Cohort is mlplatform_cohort.
type Cohort struct {
	objectCRUD[cohortModel, spec.Cohort]
}

// NewCohort is the resource constructor.
func NewCohort() resource.Resource {
	return &Cohort{objectCRUD: objectCRUD[cohortModel, spec.Cohort]{
		resourceType: "mlplatform_cohort",
		kind:         "Cohort",
		connect:      kubeReconciler[reconcile.Ref, spec.Cohort, spec.Cohort](reconcile.NewCohorts),
		toSpec:       cohortModel.toSpec,
		validate:     spec.Cohort.Validate,
		ref:          func(m cohortModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:      specState(cohortState),
		known:        cohortModel.known,
		unknownAtPlan: func(m cohortModel, s *spec.Cohort) {
			if m.Parent.IsUnknown() || (!m.Parent.IsNull() && m.Parent.ValueString() == "") {
				// A parent not known yet will be set, and one written as "" is
				// reported by the schema: limits are checked as for a cohort with a
				// parent.
				s.Parent = unknownParent
			}
		},
	}}
}

func (r *Cohort) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `Cohort` (kueue.x-k8s.io/v1beta2): a group of ClusterQueues that borrow each other's unused quota. " +
			"Cohorts form a tree through `parent`; quota in a cohort's `resource_groups` is added on top of what its member queues own " +
			"and shared by them, and borrowing/lending limits bound what crosses to the parent. A ClusterQueue joins by naming the cohort. " +
			"A cohort that does not exist yet is implied by the queues naming it; this resource makes it explicit so it can hold quota and limits.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The cohort name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true, MarkdownDescription: "Cohort name, referenced by ClusterQueues and child cohorts. Changing it replaces the cohort.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"parent": schema.StringAttribute{Optional: true,
				Validators: notEmpty("parent", "leave parent out to make this cohort the root of its tree, or name the parent cohort, e.g. \"org\"."),
				MarkdownDescription: "Name of the parent cohort; unset makes this cohort the root of its tree. A parent that does not exist acts as an " +
					"empty cohort. Kueue stops admitting in every queue of a cycle, so never make a cohort its own ancestor."},
			"resource_groups": resourceGroupsAttribute("Quota this cohort adds to what its member queues own, shared by all of them (at most 16 groups). " +
				"`borrowing_limit` and `lending_limit` bound what this subtree borrows from and lends to the rest of the tree, so they need a `parent`."),
			"fair_sharing_weight": schema.StringAttribute{Optional: true,
				Validators: notEmpty("fair_sharing_weight", "leave fair_sharing_weight out for Kueue's default weight of 1, or write a quantity, e.g. \"2\" or \"500m\"."),
				MarkdownDescription: "With fair sharing enabled in Kueue: this cohort's weight when competing with its siblings for unused quota, as a " +
					"quantity (`\"1\"`, `\"2\"`, `\"500m\"`). `\"0\"` always yields. Unset means Kueue's default, 1."},
		},
	}
}

// unknownParent stands in for a parent not known at plan time (or written
// as ""), so limits are not reported as needing one.
const unknownParent = "parent-known-after-apply"

// ImportState imports by name: terraform import mlplatform_cohort.x NAME.
func (r *Cohort) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, nil)
}
