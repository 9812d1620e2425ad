package kueue

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ClusterQueue builds the apply configuration for q. Fields Kueue defaults
// are always sent (q is defaulted first), so the platform owns them and a
// server default never reads as drift.
func ClusterQueue(q spec.ClusterQueue) *kueueac.ClusterQueueApplyConfiguration {
	d := q.Defaulted()
	bwc := kueueac.BorrowWithinCohort().WithPolicy(kueuev1beta2.BorrowWithinCohortPolicy(d.Preemption.BorrowWithinCohortPolicy))
	if t := d.Preemption.BorrowMaxPriorityThreshold; t != nil {
		bwc.WithMaxPriorityThreshold(int32(*t)) //nolint:gosec // validated by the schema
	}
	ff := kueueac.FlavorFungibility().
		WithWhenCanBorrow(kueuev1beta2.FlavorFungibilityPolicy(d.FlavorFungibility.WhenCanBorrow)).
		WithWhenCanPreempt(kueuev1beta2.FlavorFungibilityPolicy(d.FlavorFungibility.WhenCanPreempt))
	if d.FlavorFungibility.Preference != "" {
		ff.WithPreference(kueuev1beta2.FlavorFungibilityPreference(d.FlavorFungibility.Preference))
	}
	s := kueueac.ClusterQueueSpec().
		WithResourceGroups(ResourceGroups(d.ResourceGroups)...).
		WithQueueingStrategy(kueuev1beta2.QueueingStrategy(d.QueueingStrategy)).
		WithPreemption(kueueac.ClusterQueuePreemption().
			WithReclaimWithinCohort(kueuev1beta2.PreemptionPolicy(d.Preemption.ReclaimWithinCohort)).
			WithWithinClusterQueue(kueuev1beta2.PreemptionPolicy(d.Preemption.WithinClusterQueue)).
			WithBorrowWithinCohort(bwc)).
		WithFlavorFungibility(ff).
		WithStopPolicy(kueuev1beta2.StopPolicy(d.StopPolicy))
	if d.Cohort != "" {
		s.WithCohortName(kueuev1beta2.CohortReference(d.Cohort))
	}
	if d.NamespaceSelector != nil {
		s.WithNamespaceSelector(labelSelectorAC(d.NamespaceSelector))
	}
	if len(d.AdmissionChecks) > 0 {
		names := slices.Sorted(maps.Keys(d.AdmissionChecks))
		rules := make([]*kueueac.AdmissionCheckStrategyRuleApplyConfiguration, 0, len(names))
		for _, n := range names {
			r := kueueac.AdmissionCheckStrategyRule().WithName(kueuev1beta2.AdmissionCheckReference(n))
			for _, f := range d.AdmissionChecks[n] {
				r.WithOnFlavors(kueuev1beta2.ResourceFlavorReference(f))
			}
			rules = append(rules, r)
		}
		s.WithAdmissionChecksStrategy(kueueac.AdmissionChecksStrategy().WithAdmissionChecks(rules...))
	}
	if d.FairSharingWeight != "" {
		s.WithFairSharing(kueueac.FairSharing().WithWeight(parsedQuantity(d.FairSharingWeight)))
	}
	return kueueac.ClusterQueue(d.Name).WithSpec(s)
}

func labelSelectorAC(s *spec.LabelSelector) *metav1ac.LabelSelectorApplyConfiguration {
	ac := metav1ac.LabelSelector()
	if len(s.MatchLabels) > 0 {
		ac.WithMatchLabels(s.MatchLabels)
	}
	for _, r := range s.MatchExpressions {
		ac.WithMatchExpressions(metav1ac.LabelSelectorRequirement().
			WithKey(r.Key).WithOperator(metav1.LabelSelectorOperator(r.Operator)).WithValues(r.Values...))
	}
	return ac
}

// ClusterQueueSpec reads the platform's view of obj.
func ClusterQueueSpec(obj *kueuev1beta2.ClusterQueue) spec.ClusterQueue {
	q := spec.ClusterQueue{
		Name:             obj.Name,
		Cohort:           string(obj.Spec.CohortName),
		ResourceGroups:   ResourceGroupsSpec(obj.Spec.ResourceGroups),
		QueueingStrategy: string(obj.Spec.QueueingStrategy),
	}
	if sel := obj.Spec.NamespaceSelector; sel != nil {
		q.NamespaceSelector = &spec.LabelSelector{}
		if len(sel.MatchLabels) > 0 {
			q.NamespaceSelector.MatchLabels = maps.Clone(sel.MatchLabels)
		}
		for _, r := range sel.MatchExpressions {
			q.NamespaceSelector.MatchExpressions = append(q.NamespaceSelector.MatchExpressions,
				spec.SelectorRequirement{Key: r.Key, Operator: string(r.Operator), Values: slices.Clone(r.Values)})
		}
	}
	if p := obj.Spec.Preemption; p != nil {
		q.Preemption.ReclaimWithinCohort = string(p.ReclaimWithinCohort)
		q.Preemption.WithinClusterQueue = string(p.WithinClusterQueue)
		if b := p.BorrowWithinCohort; b != nil {
			q.Preemption.BorrowWithinCohortPolicy = string(b.Policy)
			if b.MaxPriorityThreshold != nil {
				t := int64(*b.MaxPriorityThreshold)
				q.Preemption.BorrowMaxPriorityThreshold = &t
			}
		}
	}
	if f := obj.Spec.FlavorFungibility; f != nil {
		q.FlavorFungibility.WhenCanBorrow = string(f.WhenCanBorrow)
		q.FlavorFungibility.WhenCanPreempt = string(f.WhenCanPreempt)
		if f.Preference != nil {
			q.FlavorFungibility.Preference = string(*f.Preference)
		}
	}
	if a := obj.Spec.AdmissionChecksStrategy; a != nil && len(a.AdmissionChecks) > 0 {
		q.AdmissionChecks = map[string][]string{}
		for _, r := range a.AdmissionChecks {
			var on []string
			for _, f := range r.OnFlavors {
				on = append(on, string(f))
			}
			q.AdmissionChecks[string(r.Name)] = on
		}
	}
	if obj.Spec.StopPolicy != nil {
		q.StopPolicy = string(*obj.Spec.StopPolicy)
	}
	if fs := obj.Spec.FairSharing; fs != nil && fs.Weight != nil {
		q.FairSharingWeight = fs.Weight.String()
	}
	return q.Defaulted()
}
