package resources

import (
	"context"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// MultiKueueCheck is mlplatform_multikueue_check.
type MultiKueueCheck struct {
	objectCRUD[multiKueueCheckModel, spec.MultiKueueCheck]
}

type multiKueueCheckModel struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	Clusters      types.List   `tfsdk:"clusters"`
	WaitForActive types.Bool   `tfsdk:"wait_for_active"`
	ActiveTimeout types.String `tfsdk:"active_timeout"`
}

// NewMultiKueueCheck is the resource constructor.
func NewMultiKueueCheck() resource.Resource {
	return &MultiKueueCheck{objectCRUD: objectCRUD[multiKueueCheckModel, spec.MultiKueueCheck]{
		resourceType: "mlplatform_multikueue_check",
		kind:         "MultiKueue AdmissionCheck",
		connect:      kubeReconciler[reconcile.Ref, spec.MultiKueueCheck, spec.MultiKueueCheck](reconcile.NewMultiKueueChecks),
		toSpec:       multiKueueCheckModel.toSpec,
		validate:     spec.MultiKueueCheck.Validate,
		ref:          func(m multiKueueCheckModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:      specState(multiKueueCheckState),
		known:        multiKueueCheckModel.known,
		wait: func(m multiKueueCheckModel) (bool, time.Duration) {
			return waitSettings(m.WaitForActive, m.ActiveTimeout)
		},
	}}
}

// multiKueueCheckSchemaVersion is 1 since clusters became an ordered list
// (Kueue v0.19's incremental dispatcher follows the order); version 0 held
// them as a set (UpgradeState).
const multiKueueCheckSchemaVersion = 1

func (r *MultiKueueCheck) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = multiKueueCheckSchema()
}

func multiKueueCheckSchema() schema.Schema {
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The name of both objects.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{Required: true,
			MarkdownDescription: "Name of the AdmissionCheck and of its MultiKueueConfig; ClusterQueues list the check by it in `admission_checks`. " +
				"Lower-case letters, digits and `-`, at most 63 characters. Changing it replaces both.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
		"clusters": schema.ListAttribute{Required: true, ElementType: types.StringType,
			MarkdownDescription: "The workers Kueue dispatches to, most preferred first: names of `mlplatform_multikueue_cluster` resources " +
				"(1 to 20, each once). From Kueue v0.19 the incremental dispatcher nominates workers in this order; on Kueue v0.17 and v0.18 " +
				"the order is kept but Kueue does not use it. Reordering is an in-place update. " +
				"Removing one stops new dispatches to it; workloads already running there finish there."},
	}
	for k, v := range waitAttributes("check and each of its workers") {
		attrs[k] = v
	}
	return schema.Schema{
		Version: multiKueueCheckSchemaVersion,
		MarkdownDescription: "A Kueue `AdmissionCheck` handled by MultiKueue (`" + spec.MultiKueueControllerName + "`), together with the " +
			"`MultiKueueConfig` of the same name listing the worker clusters. A ClusterQueue in the manager that lists the check in " +
			"`admission_checks` does not run its workloads itself: Kueue copies each to the workers, and the first worker to admit it runs it. " +
			"After apply the provider waits until Kueue reports the check Active with every worker connected, and otherwise fails naming each " +
			"worker that is not, in plain words (unreachable, kubeconfig rejected, token refused, RBAC missing) with Kueue's reason.",
		Attributes: attrs,
	}
}

// ImportState imports by name: terraform import mlplatform_multikueue_check.x NAME.
func (r *MultiKueueCheck) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, waitDefaults())
}

func (m multiKueueCheckModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.MultiKueueCheck {
	return spec.MultiKueueCheck{Name: m.Name.ValueString(), Clusters: stringList(ctx, m.Clusters, diags)}
}

func multiKueueCheckState(_ context.Context, s spec.MultiKueueCheck, prior multiKueueCheckModel, _ *diag.Diagnostics) multiKueueCheckModel {
	wait, timeout := prior.WaitForActive, prior.ActiveTimeout
	if wait.IsNull() || wait.IsUnknown() {
		wait = types.BoolValue(true)
	}
	if timeout.IsNull() || timeout.IsUnknown() {
		timeout = types.StringValue(defaultActiveTimeout)
	}
	return multiKueueCheckModel{
		ID: types.StringValue(s.Name), Name: types.StringValue(s.Name), Clusters: stringListValue(nonNil(s.Clusters)),
		WaitForActive: wait, ActiveTimeout: timeout,
	}
}

// known says which attributes are fully known, for plan-time validation.
func (m multiKueueCheckModel) known(ctx context.Context) map[string]bool { return knownAttrs(ctx, m) }

// UpgradeState upgrades state written with clusters as a set (schema
// version 0, provider releases before Kueue v0.19 support) to the list.
// Those releases wrote the MultiKueueConfig's clusters sorted by name, so
// the list is the set's names sorted: what the cluster holds. A
// configuration that lists them in that order plans no change; one that
// lists them in another order plans an in-place update to that order, which
// Kueue v0.19 then follows.
func (r *MultiKueueCheck) UpgradeState(context.Context) map[int64]resource.StateUpgrader {
	v0 := multiKueueCheckSchema()
	v0.Version = 0
	clusters := v0.Attributes["clusters"].(schema.ListAttribute)
	v0.Attributes["clusters"] = schema.SetAttribute{Required: true, ElementType: types.StringType, MarkdownDescription: clusters.MarkdownDescription}
	return map[int64]resource.StateUpgrader{0: {PriorSchema: &v0, StateUpgrader: upgradeMultiKueueCheckV0}}
}

type multiKueueCheckModelV0 struct {
	ID            types.String `tfsdk:"id"`
	Name          types.String `tfsdk:"name"`
	Clusters      types.Set    `tfsdk:"clusters"`
	WaitForActive types.Bool   `tfsdk:"wait_for_active"`
	ActiveTimeout types.String `tfsdk:"active_timeout"`
}

func upgradeMultiKueueCheckV0(ctx context.Context, req resource.UpgradeStateRequest, resp *resource.UpgradeStateResponse) {
	var prior multiKueueCheckModelV0
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	clusters := types.ListNull(types.StringType)
	switch {
	case prior.Clusters.IsUnknown():
		clusters = types.ListUnknown(types.StringType)
	case !prior.Clusters.IsNull():
		names := stringList(ctx, prior.Clusters, &resp.Diagnostics)
		slices.Sort(names)
		clusters = stringListValue(names)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, multiKueueCheckModel{
		ID: prior.ID, Name: prior.Name, Clusters: clusters, WaitForActive: prior.WaitForActive, ActiveTimeout: prior.ActiveTimeout,
	})...)
}
