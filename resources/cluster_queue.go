package resources

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ClusterQueue is mlplatform_cluster_queue.
type ClusterQueue struct {
	objectCRUD[clusterQueueModel, spec.ClusterQueue]
}

// NewClusterQueue is the resource constructor.
func NewClusterQueue() resource.Resource {
	return &ClusterQueue{objectCRUD: objectCRUD[clusterQueueModel, spec.ClusterQueue]{
		resourceType: "mlplatform_cluster_queue",
		kind:         "ClusterQueue",
		connect:      kubeReconciler[reconcile.Ref, spec.ClusterQueue, spec.ClusterQueue](reconcile.NewClusterQueues),
		toSpec:       clusterQueueModel.toSpec,
		validate:     spec.ClusterQueue.Validate,
		ref:          func(m clusterQueueModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		toState:      specState(clusterQueueState),
		known:        clusterQueueModel.known,
		unknownAtPlan: func(m clusterQueueModel, s *spec.ClusterQueue) {
			if m.Cohort.IsUnknown() || (!m.Cohort.IsNull() && m.Cohort.ValueString() == "") {
				// A cohort not known yet will be set, and one written as "" is
				// reported by the schema: either way the queue is meant to be in a
				// cohort, so its limits are checked as for a queue in a cohort.
				s.Cohort = unknownCohort
			}
		},
		wait: func(m clusterQueueModel) (bool, time.Duration) { return waitSettings(m.WaitForActive, m.ActiveTimeout) },
	}}
}

// enumWithDefault is an enumeration with Kueue's default. The spec checks
// the value (ClusterQueue.Validate); the schema refuses only "", which the
// spec reads as unset.
func enumWithDefault(attr, def string, values []string, desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(def),
		Validators:          notEmpty(attr, fmt.Sprintf("leave %s out for Kueue's default, %s, or write one of %s.", attr, def, strings.Join(values, ", "))),
		MarkdownDescription: desc + " Default `" + def + "`."}
}

func (r *ClusterQueue) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	borrowDefault := types.ObjectValueMust(borrowType.AttrTypes, map[string]attr.Value{
		"policy": types.StringValue("Never"), "max_priority_threshold": types.Int64Null()})
	preemptionDefault := types.ObjectValueMust(preemptionType.AttrTypes, map[string]attr.Value{
		"reclaim_within_cohort": types.StringValue("Never"), "within_cluster_queue": types.StringValue("Never"), "borrow_within_cohort": borrowDefault})
	fungibilityDefault := types.ObjectValueMust(fungibilityType.AttrTypes, map[string]attr.Value{
		"when_can_borrow": types.StringValue("MayStopSearch"), "when_can_preempt": types.StringValue("TryNextFlavor"), "preference": types.StringNull()})

	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The queue name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "ClusterQueue name, referenced by LocalQueues. Changing it replaces the queue."},
		"cohort": schema.StringAttribute{Optional: true,
			Validators: notEmpty("cohort", "leave cohort out for a queue that neither borrows nor lends, or name a cohort, e.g. \"research\"."),
			MarkdownDescription: "Cohort the queue belongs to; queues of a cohort lend unused quota to and borrow from each other. " +
				"Needed for `borrowing_limit` and `lending_limit`."},
		"namespace_selector": schema.SingleNestedAttribute{Optional: true,
			MarkdownDescription: "Namespaces whose LocalQueues may use this queue. Unset matches **no** namespace; `{}` matches all. " +
				"Use a team namespace's `selector`.",
			Attributes: map[string]schema.Attribute{
				"match_labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Labels a namespace must have."},
				"match_expressions": schema.ListNestedAttribute{Optional: true, MarkdownDescription: "Label requirements a namespace must meet.",
					NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
						"key": schema.StringAttribute{Required: true, MarkdownDescription: "Label key."},
						"operator": schema.StringAttribute{Required: true,
							MarkdownDescription: "`In`, `NotIn`, `Exists` or `DoesNotExist`."},
						"values": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Values for `In` and `NotIn`."},
					}}},
			}},
		"resource_groups": resourceGroupsAttribute("Quotas: groups of resources and, per flavor, how much of each the queue may admit. " +
			"Kueue tries a group's flavors in the order listed."),
		"queueing_strategy": enumWithDefault("queueing_strategy", "BestEffortFIFO", spec.QueueingStrategies,
			"`BestEffortFIFO` lets smaller workloads pass one that does not fit; `StrictFIFO` never does."),
		"preemption": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(preemptionDefault),
			MarkdownDescription: "When workloads of this queue may preempt others. Defaults as in Kueue: no preemption.",
			Attributes: map[string]schema.Attribute{
				"reclaim_within_cohort": enumWithDefault("reclaim_within_cohort", "Never", spec.ReclaimPolicies, "Reclaim lent quota from the cohort by preempting its workloads: `Never`, `LowerPriority` or `Any`."),
				"within_cluster_queue":  enumWithDefault("within_cluster_queue", "Never", spec.WithinQueuePolicies, "Preempt workloads of this queue: `Never`, `LowerPriority` or `LowerOrNewerEqualPriority`."),
				"borrow_within_cohort": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(borrowDefault),
					MarkdownDescription: "Preempt in the cohort while borrowing.",
					Attributes: map[string]schema.Attribute{
						"policy": enumWithDefault("policy", "Never", spec.BorrowWithinPolicies, "`Never` or `LowerPriority` (needs `reclaim_within_cohort` other than `Never`)."),
						"max_priority_threshold": schema.Int64Attribute{Optional: true,
							MarkdownDescription: "Only preempt workloads with priority at most this."},
					}},
			}},
		"flavor_fungibility": schema.SingleNestedAttribute{Optional: true, Computed: true, Default: objectdefault.StaticValue(fungibilityDefault),
			MarkdownDescription: "When Kueue moves on to the next flavor instead of borrowing or preempting on the current one.",
			Attributes: map[string]schema.Attribute{
				"when_can_borrow":  enumWithDefault("when_can_borrow", "MayStopSearch", spec.FungibilityPolicies, "`MayStopSearch` or `TryNextFlavor`."),
				"when_can_preempt": enumWithDefault("when_can_preempt", "TryNextFlavor", spec.FungibilityPolicies, "`MayStopSearch` or `TryNextFlavor`."),
				"preference": schema.StringAttribute{Optional: true,
					Validators:          notEmpty("preference", "leave preference out, or write BorrowingOverPreemption or PreemptionOverBorrowing."),
					MarkdownDescription: "`BorrowingOverPreemption` or `PreemptionOverBorrowing`; only when both policies are `TryNextFlavor`."},
			}},
		"admission_checks": schema.MapNestedAttribute{Optional: true,
			MarkdownDescription: "Admission checks by name (e.g. the flex-start `mlplatform_provisioning_admission_check`), each for the flavors listed " +
				"in `on_flavors` (all flavors when unset).",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"on_flavors": schema.ListAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Flavors the check applies to."},
			}}},
		"stop_policy": enumWithDefault("stop_policy", "None", spec.StopPolicies, "`None` (admit), `Hold` (admit nothing new) or `HoldAndDrain` (also evict what is admitted)."),
		"fair_sharing_weight": schema.StringAttribute{Optional: true,
			Validators:          notEmpty("fair_sharing_weight", "leave fair_sharing_weight out for Kueue's default weight of 1, or write a quantity, e.g. \"2\" or \"0.5\"."),
			MarkdownDescription: "Weight of this queue in fair sharing, as a quantity (`\"1\"`, `\"0.5\"`); unset uses Kueue's default of 1."},
	}
	for k, v := range waitAttributes("queue") {
		attrs[k] = v
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `ClusterQueue` (kueue.x-k8s.io/v1beta2): quota per flavor for the namespaces its selector matches, " +
			"optionally shared in a cohort. Each quota is its own attribute, so a quota change reads as one changed value in the plan, and " +
			"quantities are compared by value (`\"12\"` = `\"12000m\"`). After apply the provider waits until Kueue reports the queue " +
			"active and otherwise fails with Kueue's reason (e.g. a missing flavor).",
		Attributes: attrs,
	}
}

// unknownCohort stands in for a cohort not known at plan time (or written
// as "").
const unknownCohort = "cohort-known-after-apply"

// ImportState imports by name: terraform import mlplatform_cluster_queue.x NAME.
func (r *ClusterQueue) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	importByName(ctx, req, resp, waitDefaults())
}
