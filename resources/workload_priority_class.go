package resources

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
)

var (
	_ resource.ResourceWithConfigure      = &WorkloadPriorityClass{}
	_ resource.ResourceWithImportState    = &WorkloadPriorityClass{}
	_ resource.ResourceWithValidateConfig = &WorkloadPriorityClass{}
)

// deleteTimeout bounds the wait for a deleted object to disappear.
const deleteTimeout = 5 * time.Minute

// WorkloadPriorityClass is mlplatform_workload_priority_class.
type WorkloadPriorityClass struct {
	clients *platform.Clients
}

// NewWorkloadPriorityClass is the resource constructor.
func NewWorkloadPriorityClass() resource.Resource { return &WorkloadPriorityClass{} }

func (r *WorkloadPriorityClass) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload_priority_class"
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
				MarkdownDescription: "Name of the class (a DNS subdomain), referenced by jobs. Changing it replaces the class.",
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
				Validators:          []validator.String{stringvalidator.LengthAtLeast(1)},
			},
		},
	}
}

func (r *WorkloadPriorityClass) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clientsFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *WorkloadPriorityClass) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m workloadPriorityClassModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	addSpecErrors(&resp.Diagnostics, m.toSpec().Validate(), m.known())
}

func (r *WorkloadPriorityClass) reconciler(ctx context.Context, diags *diag.Diagnostics) (reconcile.WorkloadPriorityClasses, bool) {
	kc, err := r.clients.Kube(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To The Kubernetes Cluster", err)
		return reconcile.WorkloadPriorityClasses{}, false
	}
	return reconcile.NewWorkloadPriorityClasses(kc), true
}

func (r *WorkloadPriorityClass) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

func (r *WorkloadPriorityClass) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, &resp.State, &resp.Diagnostics)
}

// apply makes the cluster match the plan and records what the server holds.
func (r *WorkloadPriorityClass) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var m workloadPriorityClassModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	desired := m.toSpec()
	if errs := desired.Validate(); len(errs) > 0 {
		diagnostics.FieldErrors(diags, errs)
		return
	}
	rec, ok := r.reconciler(ctx, diags)
	if !ok {
		return
	}
	got, err := rec.Apply(ctx, reconcile.Ref{Name: desired.Name}, desired)
	if err != nil {
		diagnostics.Error(diags, "Could Not Apply WorkloadPriorityClass "+desired.Name, err)
		return
	}
	diags.Append(state.Set(ctx, workloadPriorityClassState(got))...)
}

func (r *WorkloadPriorityClass) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var state workloadPriorityClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec, ok := r.reconciler(ctx, &resp.Diagnostics)
	if !ok {
		return
	}
	got, found, err := rec.Observe(ctx, reconcile.Ref{Name: state.Name.ValueString()})
	if err != nil {
		diagnostics.Error(&resp.Diagnostics, "Could Not Read WorkloadPriorityClass "+state.Name.ValueString(), err)
		return
	}
	if !found {
		resp.State.RemoveResource(ctx)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, workloadPriorityClassState(got))...)
}

func (r *WorkloadPriorityClass) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var state workloadPriorityClassModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	rec, ok := r.reconciler(ctx, &resp.Diagnostics)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	if err := rec.Delete(ctx, reconcile.Ref{Name: state.Name.ValueString()}); err != nil {
		diagnostics.Error(&resp.Diagnostics, "Could Not Delete WorkloadPriorityClass "+state.Name.ValueString(), err)
	}
}

// ImportState imports by name: terraform import mlplatform_workload_priority_class.x NAME.
func (r *WorkloadPriorityClass) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
