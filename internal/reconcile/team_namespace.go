package reconcile

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// TeamNamespaces reconciles team namespaces. Delete refuses, with a
// *HoldsDataError (ErrHoldsData) and nothing deleted, while the namespace
// holds data or unfinished work (NamespaceData), unless the spec it is
// given says ForceDestroy.
type TeamNamespaces = Object[spec.TeamNamespace, *corev1.Namespace, *corev1ac.NamespaceApplyConfiguration]

var _ Reconciler[Ref, spec.TeamNamespace, spec.TeamNamespace] = TeamNamespaces{}

// NewTeamNamespaces reconciles through c.
func NewTeamNamespaces(c *kube.Client) TeamNamespaces {
	o := clusterScoped(c, "Namespace", c.Core.CoreV1().Namespaces(), managedOnly, kueue.TeamNamespace, kueue.TeamNamespaceSpec, DiffTeamNamespace)
	o.Stuck = namespaceLeftovers
	o.Guard = func(ctx context.Context, ref Ref, last spec.TeamNamespace) error {
		if last.ForceDestroy {
			return nil
		}
		return NamespaceData(ctx, c, ref.Name)
	}
	return o
}

// DiffTeamNamespace compares only what the platform manages: its labels and
// annotations. Labels and annotations other tools add are theirs, neither
// drift nor removed.
func DiffTeamNamespace(desired, actual spec.TeamNamespace) []string {
	var d []string
	want, have := desired.ManagedLabels(), actual.ManagedLabels()
	for k, v := range actual.Labels {
		have[k] = v
	}
	for k, v := range want {
		if have[k] != v {
			d = append(d, "labels")
			break
		}
	}
	for k, v := range desired.Annotations {
		if w, ok := actual.Annotations[k]; !ok || w != v {
			d = append(d, "annotations")
			break
		}
	}
	return d
}

// namespaceLeftovers reads the namespace controller's own account of what
// it is still deleting.
func namespaceLeftovers(ns *corev1.Namespace) string {
	var msgs []string
	for _, c := range ns.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == corev1.NamespaceContentRemaining || c.Type == corev1.NamespaceFinalizersRemaining ||
			c.Type == corev1.NamespaceDeletionContentFailure) {
			msgs = append(msgs, c.Message)
		}
	}
	if len(msgs) == 0 {
		return "the namespace controller has not reported progress (is kube-controller-manager running?)"
	}
	return "still left: " + strings.Join(msgs, "; ")
}
