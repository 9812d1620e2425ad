package kueue

import (
	corev1 "k8s.io/api/core/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// AdmissionCheck builds the apply configuration for c.
func AdmissionCheck(c spec.AdmissionCheck) *kueueac.AdmissionCheckApplyConfiguration {
	s := kueueac.AdmissionCheckSpec().WithControllerName(c.ControllerName)
	if p := c.Parameters; p != nil {
		s.WithParameters(kueueac.AdmissionCheckParametersReference().WithAPIGroup(p.APIGroup).WithKind(p.Kind).WithName(p.Name))
	}
	return kueueac.AdmissionCheck(c.Name).WithSpec(s)
}

// AdmissionCheckSpec reads the platform's view of obj.
func AdmissionCheckSpec(obj *kueuev1beta2.AdmissionCheck) spec.AdmissionCheck {
	c := spec.AdmissionCheck{Name: obj.Name, ControllerName: obj.Spec.ControllerName}
	if p := obj.Spec.Parameters; p != nil {
		c.Parameters = &spec.AdmissionCheckParameters{APIGroup: p.APIGroup, Kind: p.Kind, Name: p.Name}
	}
	return c
}

// ProvisioningRequestConfig builds the apply configuration of the
// ProvisioningRequestConfig of p. The retry strategy is always sent, so the
// server's defaults never differ from what the platform owns.
func ProvisioningRequestConfig(p spec.ProvisioningAdmissionCheck) *kueueac.ProvisioningRequestConfigApplyConfiguration {
	s := kueueac.ProvisioningRequestConfigSpec().WithProvisioningClassName(p.ProvisioningClass)
	if len(p.ManagedResources) > 0 {
		rs := make([]corev1.ResourceName, 0, len(p.ManagedResources))
		for _, r := range p.ManagedResources {
			rs = append(rs, corev1.ResourceName(r))
		}
		s.WithManagedResources(rs...)
	}
	if len(p.Parameters) > 0 {
		ps := make(map[string]kueuev1beta2.Parameter, len(p.Parameters))
		for k, v := range p.Parameters {
			ps[k] = kueuev1beta2.Parameter(v)
		}
		s.WithParameters(ps)
	}
	r := p.RetryStrategy
	s.WithRetryStrategy(kueueac.ProvisioningRequestRetryStrategy().
		WithBackoffLimitCount(int32(r.BackoffLimitCount)).
		WithBackoffBaseSeconds(int32(r.BackoffBaseSeconds)).
		WithBackoffMaxSeconds(int32(r.BackoffMaxSeconds)))
	if len(p.PodSetNodeSelectors) > 0 {
		u := kueueac.ProvisioningRequestPodSetUpdates()
		for _, ns := range p.PodSetNodeSelectors {
			u.WithNodeSelector(kueueac.ProvisioningRequestPodSetUpdatesNodeSelector().
				WithKey(ns.Key).WithValueFromProvisioningClassDetail(ns.ValueFromProvisioningClassDetail))
		}
		s.WithPodSetUpdates(u)
	}
	return kueueac.ProvisioningRequestConfig(p.Name).WithSpec(s)
}

// ProvisioningRequestConfigSpec reads the platform's view of obj. A retry
// strategy field the server left unset reads as Kueue's default.
func ProvisioningRequestConfigSpec(obj *kueuev1beta2.ProvisioningRequestConfig) spec.ProvisioningAdmissionCheck {
	p := spec.ProvisioningAdmissionCheck{
		Name:              obj.Name,
		ProvisioningClass: obj.Spec.ProvisioningClassName,
		RetryStrategy:     spec.DefaultRetryStrategy,
	}
	for _, r := range obj.Spec.ManagedResources {
		p.ManagedResources = append(p.ManagedResources, string(r))
	}
	if len(obj.Spec.Parameters) > 0 {
		p.Parameters = make(map[string]string, len(obj.Spec.Parameters))
		for k, v := range obj.Spec.Parameters {
			p.Parameters[k] = string(v)
		}
	}
	if rs := obj.Spec.RetryStrategy; rs != nil {
		setInt(&p.RetryStrategy.BackoffLimitCount, rs.BackoffLimitCount)
		setInt(&p.RetryStrategy.BackoffBaseSeconds, rs.BackoffBaseSeconds)
		setInt(&p.RetryStrategy.BackoffMaxSeconds, rs.BackoffMaxSeconds)
	}
	if u := obj.Spec.PodSetUpdates; u != nil {
		for _, ns := range u.NodeSelector {
			p.PodSetNodeSelectors = append(p.PodSetNodeSelectors, spec.PodSetNodeSelector{Key: ns.Key, ValueFromProvisioningClassDetail: ns.ValueFromProvisioningClassDetail})
		}
	}
	return p
}

func setInt(dst *int64, v *int32) {
	if v != nil {
		*dst = int64(*v)
	}
}
