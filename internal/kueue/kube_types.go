package kueue

import (
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func taintsAC(ts []spec.Taint) []*corev1ac.TaintApplyConfiguration {
	out := make([]*corev1ac.TaintApplyConfiguration, 0, len(ts))
	for _, t := range ts {
		ac := corev1ac.Taint().WithKey(t.Key).WithEffect(corev1.TaintEffect(t.Effect))
		if t.Value != "" {
			ac.WithValue(t.Value)
		}
		out = append(out, ac)
	}
	return out
}

func tolerationsAC(ts []spec.Toleration) []*corev1ac.TolerationApplyConfiguration {
	out := make([]*corev1ac.TolerationApplyConfiguration, 0, len(ts))
	for _, t := range ts {
		ac := corev1ac.Toleration()
		if t.Key != "" {
			ac.WithKey(t.Key)
		}
		if t.Operator != "" {
			ac.WithOperator(corev1.TolerationOperator(t.Operator))
		}
		if t.Value != "" {
			ac.WithValue(t.Value)
		}
		if t.Effect != "" {
			ac.WithEffect(corev1.TaintEffect(t.Effect))
		}
		if t.TolerationSeconds != nil {
			ac.WithTolerationSeconds(*t.TolerationSeconds)
		}
		out = append(out, ac)
	}
	return out
}

func taintsSpec(ts []corev1.Taint) []spec.Taint {
	if len(ts) == 0 {
		return nil
	}
	out := make([]spec.Taint, 0, len(ts))
	for _, t := range ts {
		out = append(out, spec.Taint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
	}
	return out
}

func tolerationsSpec(ts []corev1.Toleration) []spec.Toleration {
	if len(ts) == 0 {
		return nil
	}
	out := make([]spec.Toleration, 0, len(ts))
	for _, t := range ts {
		out = append(out, spec.Toleration{Key: t.Key, Operator: string(t.Operator), Value: t.Value, Effect: string(t.Effect), TolerationSeconds: t.TolerationSeconds})
	}
	return out
}
