package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type clusterQueueModel struct {
	ID                types.String `tfsdk:"id"`
	Name              types.String `tfsdk:"name"`
	Cohort            types.String `tfsdk:"cohort"`
	NamespaceSelector types.Object `tfsdk:"namespace_selector"`
	ResourceGroups    types.List   `tfsdk:"resource_groups"`
	QueueingStrategy  types.String `tfsdk:"queueing_strategy"`
	Preemption        types.Object `tfsdk:"preemption"`
	FlavorFungibility types.Object `tfsdk:"flavor_fungibility"`
	AdmissionChecks   types.Map    `tfsdk:"admission_checks"`
	StopPolicy        types.String `tfsdk:"stop_policy"`
	FairSharingWeight types.String `tfsdk:"fair_sharing_weight"`
	WaitForActive     types.Bool   `tfsdk:"wait_for_active"`
	ActiveTimeout     types.String `tfsdk:"active_timeout"`
}

type selectorModel struct {
	MatchLabels      types.Map  `tfsdk:"match_labels"`
	MatchExpressions types.List `tfsdk:"match_expressions"`
}

type selectorRequirementModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   types.List   `tfsdk:"values"`
}

type preemptionModel struct {
	ReclaimWithinCohort types.String `tfsdk:"reclaim_within_cohort"`
	WithinClusterQueue  types.String `tfsdk:"within_cluster_queue"`
	BorrowWithinCohort  types.Object `tfsdk:"borrow_within_cohort"`
}

type borrowWithinCohortModel struct {
	Policy               types.String `tfsdk:"policy"`
	MaxPriorityThreshold types.Int64  `tfsdk:"max_priority_threshold"`
}

type fungibilityModel struct {
	WhenCanBorrow  types.String `tfsdk:"when_can_borrow"`
	WhenCanPreempt types.String `tfsdk:"when_can_preempt"`
	Preference     types.String `tfsdk:"preference"`
}

type admissionCheckModel struct {
	OnFlavors types.List `tfsdk:"on_flavors"`
}

var (
	selectorRequirementType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"key": types.StringType, "operator": types.StringType, "values": types.ListType{ElemType: types.StringType}}}
	selectorType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"match_labels": types.MapType{ElemType: types.StringType}, "match_expressions": types.ListType{ElemType: selectorRequirementType}}}
	borrowType     = types.ObjectType{AttrTypes: map[string]attr.Type{"policy": types.StringType, "max_priority_threshold": types.Int64Type}}
	preemptionType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"reclaim_within_cohort": types.StringType, "within_cluster_queue": types.StringType, "borrow_within_cohort": borrowType}}
	fungibilityType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"when_can_borrow": types.StringType, "when_can_preempt": types.StringType, "preference": types.StringType}}
	admissionCheckType = types.ObjectType{AttrTypes: map[string]attr.Type{"on_flavors": types.ListType{ElemType: types.StringType}}}
)

func (m clusterQueueModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.ClusterQueue {
	q := spec.ClusterQueue{
		Name:              m.Name.ValueString(),
		Cohort:            m.Cohort.ValueString(),
		ResourceGroups:    resourceGroupsFromList(ctx, m.ResourceGroups, diags),
		QueueingStrategy:  m.QueueingStrategy.ValueString(),
		StopPolicy:        m.StopPolicy.ValueString(),
		FairSharingWeight: m.FairSharingWeight.ValueString(),
	}
	var sel selectorModel
	if objectAs(ctx, m.NamespaceSelector, &sel, diags) {
		q.NamespaceSelector = &spec.LabelSelector{MatchLabels: stringMap(ctx, sel.MatchLabels, diags)}
		var reqs []selectorRequirementModel
		if !sel.MatchExpressions.IsNull() && !sel.MatchExpressions.IsUnknown() {
			diags.Append(elementsInto(sel.MatchExpressions.Elements(), &reqs)...)
		}
		for _, r := range reqs {
			q.NamespaceSelector.MatchExpressions = append(q.NamespaceSelector.MatchExpressions, spec.SelectorRequirement{
				Key: r.Key.ValueString(), Operator: r.Operator.ValueString(), Values: stringList(ctx, r.Values, diags)})
		}
	}
	var p preemptionModel
	if objectAs(ctx, m.Preemption, &p, diags) {
		q.Preemption.ReclaimWithinCohort = p.ReclaimWithinCohort.ValueString()
		q.Preemption.WithinClusterQueue = p.WithinClusterQueue.ValueString()
		var b borrowWithinCohortModel
		if objectAs(ctx, p.BorrowWithinCohort, &b, diags) {
			q.Preemption.BorrowWithinCohortPolicy = b.Policy.ValueString()
			q.Preemption.BorrowMaxPriorityThreshold = b.MaxPriorityThreshold.ValueInt64Pointer()
		}
	}
	var f fungibilityModel
	if objectAs(ctx, m.FlavorFungibility, &f, diags) {
		q.FlavorFungibility = spec.FlavorFungibility{WhenCanBorrow: f.WhenCanBorrow.ValueString(),
			WhenCanPreempt: f.WhenCanPreempt.ValueString(), Preference: f.Preference.ValueString()}
	}
	if !m.AdmissionChecks.IsNull() && !m.AdmissionChecks.IsUnknown() {
		checks := map[string]admissionCheckModel{}
		diags.Append(mapInto(m.AdmissionChecks, &checks)...)
		q.AdmissionChecks = map[string][]string{}
		for name, c := range checks {
			q.AdmissionChecks[name] = stringList(ctx, c.OnFlavors, diags)
		}
	}
	return q
}

// known says which attributes are fully known, for plan-time validation
// (knownWith). Rules that span attributes need all of them known. Borrowing
// and lending limits need a cohort: ValidateConfig puts a placeholder in for
// an unknown one, so resource_groups are still checked. on_flavors must name
// flavors of resource_groups.
func (m clusterQueueModel) known(ctx context.Context) map[string]bool {
	return knownWith(knownAttrs(ctx, m), map[string][]string{
		"admission_checks": {"resource_groups"},
	})
}

func clusterQueueState(ctx context.Context, s spec.ClusterQueue, prior clusterQueueModel, diags *diag.Diagnostics) clusterQueueModel {
	s = s.Defaulted()
	m := clusterQueueModel{
		ID:                types.StringValue(s.Name),
		Name:              types.StringValue(s.Name),
		Cohort:            optString(s.Cohort),
		ResourceGroups:    resourceGroupsToList(ctx, s.ResourceGroups, prior.ResourceGroups, diags),
		QueueingStrategy:  types.StringValue(s.QueueingStrategy),
		StopPolicy:        types.StringValue(s.StopPolicy),
		FairSharingWeight: optString(spec.KeepSpelling(s.FairSharingWeight, prior.FairSharingWeight.ValueString())),
		WaitForActive:     prior.WaitForActive,
		ActiveTimeout:     prior.ActiveTimeout,
		NamespaceSelector: types.ObjectNull(selectorType.AttrTypes),
		AdmissionChecks:   types.MapNull(admissionCheckType),
	}
	if sel := s.NamespaceSelector; sel != nil {
		var priorSel selectorModel
		objectAs(ctx, prior.NamespaceSelector, &priorSel, diags)
		reqs := make([]selectorRequirementModel, 0, len(sel.MatchExpressions))
		for _, r := range sel.MatchExpressions {
			vals := types.ListNull(types.StringType)
			if len(r.Values) > 0 {
				vals = stringListValue(r.Values)
			}
			reqs = append(reqs, selectorRequirementModel{Key: types.StringValue(r.Key), Operator: types.StringValue(r.Operator), Values: vals})
		}
		exprs := types.ListNull(selectorRequirementType)
		if len(reqs) > 0 {
			var d diag.Diagnostics
			exprs, d = listOfModels(selectorRequirementType, reqs)
			diags.Append(d...)
		} else if !priorSel.MatchExpressions.IsNull() && !priorSel.MatchExpressions.IsUnknown() && len(priorSel.MatchExpressions.Elements()) == 0 {
			exprs = types.ListValueMust(selectorRequirementType, nil)
		}
		obj, d := modelObject(selectorType.AttrTypes, selectorModel{
			MatchLabels: stringMapState(ctx, sel.MatchLabels, priorSel.MatchLabels, diags), MatchExpressions: exprs})
		diags.Append(d...)
		m.NamespaceSelector = obj
	}
	borrow, d := modelObject(borrowType.AttrTypes, borrowWithinCohortModel{
		Policy: types.StringValue(s.Preemption.BorrowWithinCohortPolicy), MaxPriorityThreshold: types.Int64PointerValue(s.Preemption.BorrowMaxPriorityThreshold)})
	diags.Append(d...)
	m.Preemption, d = modelObject(preemptionType.AttrTypes, preemptionModel{
		ReclaimWithinCohort: types.StringValue(s.Preemption.ReclaimWithinCohort), WithinClusterQueue: types.StringValue(s.Preemption.WithinClusterQueue),
		BorrowWithinCohort: borrow})
	diags.Append(d...)
	m.FlavorFungibility, d = modelObject(fungibilityType.AttrTypes, fungibilityModel{
		WhenCanBorrow: types.StringValue(s.FlavorFungibility.WhenCanBorrow), WhenCanPreempt: types.StringValue(s.FlavorFungibility.WhenCanPreempt),
		Preference: optString(s.FlavorFungibility.Preference)})
	diags.Append(d...)
	if len(s.AdmissionChecks) > 0 {
		checks := map[string]admissionCheckModel{}
		for name := range s.AdmissionChecks {
			on := types.ListNull(types.StringType)
			if len(s.AdmissionChecks[name]) > 0 {
				on = stringListValue(s.AdmissionChecks[name])
			}
			checks[name] = admissionCheckModel{OnFlavors: on}
		}
		m.AdmissionChecks, d = mapOfModels(admissionCheckType, checks)
		diags.Append(d...)
	}
	return m
}
