package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// WorkloadPriorityClass is mlplatform_workload_priority_class.
type WorkloadPriorityClass struct {
	objectCRUD[workloadPriorityClassModel, spec.WorkloadPriorityClass]
}

// NewWorkloadPriorityClass is the resource constructor.
func NewWorkloadPriorityClass() resource.Resource {
	return &WorkloadPriorityClass{objectCRUD: objectCRUD[workloadPriorityClassModel, spec.WorkloadPriorityClass]{
		resourceType: "mlplatform_workload_priority_class",
		kind:         "WorkloadPriorityClass",
		connect:      kubeReconciler[reconcile.Ref, spec.WorkloadPriorityClass, spec.WorkloadPriorityClass](reconcile.NewWorkloadPriorityClasses),
		toSpec: func(m workloadPriorityClassModel, _ context.Context, _ *diag.Diagnostics) spec.WorkloadPriorityClass {
			return m.toSpec()
		},
		validate: spec.WorkloadPriorityClass.Validate,
		ref:      func(m workloadPriorityClassModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState: specState(func(_ context.Context, s spec.WorkloadPriorityClass, _ workloadPriorityClassModel, _ *diag.Diagnostics) workloadPriorityClassModel {
			return workloadPriorityClassState(s)
		}),
		known: func(m workloadPriorityClassModel, _ context.Context) map[string]bool { return m.known() },
	}}
}

func (r *WorkloadPriorityClass) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `WorkloadPriorityClass` (kueue.x-k8s.io/v1beta2): the priority a workload gets when its job " +
			"carries the label `kueue.x-k8s.io/priority-class: <name>`. Kueue uses it to order queued workloads and to decide which " +
			"workloads may preempt others; it does not affect pod scheduling priority.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The class name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Name of the class (lower-case letters, digits, `-` and `.`, at most 63 characters: jobs name it in a label), referenced by jobs. Changing it replaces the class.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"value": schema.Int64Attribute{
				Required: true,
				MarkdownDescription: "Priority value (32-bit). Higher runs first and may preempt lower. Changing it does not change " +
					"the priority of workloads that already exist.",
			},
			"description": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "When teams should use this class (at most 2048 characters).",
				Validators:          notEmpty("description", "leave description out for none, or write one, e.g. \"For production training runs\"."),
			},
		},
	}
}

// ImportState imports by name: terraform import mlplatform_workload_priority_class.x NAME.
func (r *WorkloadPriorityClass) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, nil)
}
