package resources

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/setdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ProvisioningAdmissionCheck is mlplatform_provisioning_admission_check.
type ProvisioningAdmissionCheck struct {
	objectCRUD[provisioningAdmissionCheckModel, spec.ProvisioningAdmissionCheck]
}

// NewProvisioningAdmissionCheck is the resource constructor.
func NewProvisioningAdmissionCheck() resource.Resource {
	return &ProvisioningAdmissionCheck{objectCRUD: objectCRUD[provisioningAdmissionCheckModel, spec.ProvisioningAdmissionCheck]{
		resourceType: "mlplatform_provisioning_admission_check",
		kind:         "Provisioning AdmissionCheck",
		connect:      kubeReconciler[reconcile.Ref, spec.ProvisioningAdmissionCheck, spec.ProvisioningAdmissionCheck](reconcile.NewProvisioningAdmissionChecks),
		toSpec:       provisioningAdmissionCheckModel.toSpec,
		validate:     spec.ProvisioningAdmissionCheck.Validate,
		ref: func(m provisioningAdmissionCheckModel) reconcile.Ref {
			return reconcile.Ref{Name: m.Name.ValueString()}
		},
		toState: specState(provisioningAdmissionCheckState),
		known:   provisioningAdmissionCheckModel.known,
	}}
}

func (r *ProvisioningAdmissionCheck) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	managedDefault := make([]attr.Value, 0, len(spec.DefaultManagedResources))
	for _, m := range spec.DefaultManagedResources {
		managedDefault = append(managedDefault, types.StringValue(m))
	}
	d := spec.DefaultRetryStrategy
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `AdmissionCheck` handled by Kueue's ProvisioningRequest controller (`" + spec.ProvisioningControllerName + "`), " +
			"together with the `ProvisioningRequestConfig` of the same name that configures it. A ClusterQueue that lists the check admits a " +
			"workload only once the cluster autoscaler has provisioned its nodes: on GKE, through Dynamic Workload Scheduler (flex-start with " +
			"queued provisioning), so all of a job's GPUs arrive together or not at all. Both objects are applied, read back for drift and " +
			"deleted together (the check first; Kueue holds it while a ClusterQueue uses it).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The name of both objects.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"name": schema.StringAttribute{Required: true,
				MarkdownDescription: "Name of the AdmissionCheck and of its ProvisioningRequestConfig; ClusterQueues list the check by it. " +
					"Lower-case letters, digits and `-`, at most 63 characters (Kueue's limit on the reference between the two). Changing it replaces both.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()}},
			"provisioning_class": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(spec.QueuedProvisioningClass),
				MarkdownDescription: fmt.Sprintf("Provisioning class of the ProvisioningRequests Kueue creates. Default `%s` (GKE Dynamic Workload Scheduler); "+
					"the cluster autoscaler also knows `check-capacity.autoscaling.x-k8s.io` and `best-effort-atomic-scale-up.autoscaling.x-k8s.io`.", spec.QueuedProvisioningClass)},
			"managed_resources": schema.SetAttribute{Optional: true, Computed: true, ElementType: types.StringType,
				Default: setdefault.StaticValue(types.SetValueMust(types.StringType, managedDefault)),
				MarkdownDescription: "Resources whose pods need provisioned nodes (at most 100); pod sets requesting none of them are admitted " +
					"without a ProvisioningRequest. Default `[\"nvidia.com/gpu\"]`; `[]` means every resource."},
			"parameters": schema.MapAttribute{Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Parameters passed to the provisioning class (at most 100, values at most 255 characters)."},
			"retry_strategy": schema.SingleNestedAttribute{Optional: true, Computed: true,
				Default: objectdefault.StaticValue(retryStrategyObject(d)),
				MarkdownDescription: fmt.Sprintf("How Kueue retries a ProvisioningRequest that failed or expired: it requeues the workload after "+
					"about base × 2^(n-1) seconds (at most `backoff_max_seconds`), up to `backoff_limit_count` times, then deactivates it. "+
					"Defaults are Kueue's: %d / %d s / %d s.", d.BackoffLimitCount, d.BackoffBaseSeconds, d.BackoffMaxSeconds),
				Attributes: map[string]schema.Attribute{
					"backoff_limit_count": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(d.BackoffLimitCount),
						MarkdownDescription: fmt.Sprintf("Retries before the workload is deactivated; `0` switches retries off. Default %d.", d.BackoffLimitCount)},
					"backoff_base_seconds": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(d.BackoffBaseSeconds),
						MarkdownDescription: fmt.Sprintf("Base of the exponential backoff, in seconds. Default %d.", d.BackoffBaseSeconds)},
					"backoff_max_seconds": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(d.BackoffMaxSeconds),
						MarkdownDescription: fmt.Sprintf("Longest backoff, in seconds. Default %d.", d.BackoffMaxSeconds)},
				}},
			"pod_set_node_selector_update": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Add the node selector `" + spec.ProvisioningRequestNodeSelector + "` = the request's `" + spec.ResizeRequestNameDetail +
					"` to admitted pods, so they land on the nodes GKE provisioned for them and not on other nodes of the pool. Default `true`; " +
					"turn off for provisioning classes other than GKE's."},
		},
	}
}

// ImportState imports by name: terraform import mlplatform_provisioning_admission_check.x NAME.
func (r *ProvisioningAdmissionCheck) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, nil)
}
