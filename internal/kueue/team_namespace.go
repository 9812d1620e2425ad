package kueue

import (
	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// TeamNamespace builds the namespace's apply configuration: only the labels
// and annotations the platform manages, so other tools' labels stay.
func TeamNamespace(n spec.TeamNamespace) *corev1ac.NamespaceApplyConfiguration {
	ac := corev1ac.Namespace(n.Name).WithLabels(n.ManagedLabels())
	if len(n.Annotations) > 0 {
		ac.WithAnnotations(n.Annotations)
	}
	return ac
}

// TeamNamespaceSpec reads a namespace back. Labels and annotations are all
// of the server's; the reconciler compares only the managed ones.
func TeamNamespaceSpec(obj *corev1.Namespace) spec.TeamNamespace {
	n := spec.TeamNamespace{Name: obj.Name, Team: obj.Labels[spec.TeamLabel], Owner: obj.Labels[spec.OwnerLabel],
		PodSecurity: obj.Labels[spec.PodSecurityKey], Labels: map[string]string{}, Annotations: map[string]string{}}
	for k, v := range obj.Labels {
		switch k {
		case spec.TeamLabel, spec.OwnerLabel, spec.ManagedByLabel, spec.PodSecurityKey:
		default:
			n.Labels[k] = v
		}
	}
	for k, v := range obj.Annotations {
		n.Annotations[k] = v
	}
	return n
}
