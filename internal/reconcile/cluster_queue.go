package reconcile

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ClusterQueues reconciles Kueue ClusterQueues.
type ClusterQueues = Object[spec.ClusterQueue, *kueuev1beta2.ClusterQueue, *kueueac.ClusterQueueApplyConfiguration]

var _ Reconciler[Ref, spec.ClusterQueue, spec.ClusterQueue] = ClusterQueues{}

// NewClusterQueues reconciles through c.
func NewClusterQueues(c *kube.Client) ClusterQueues {
	return ClusterQueues{
		Kind: "ClusterQueue",
		List: kube.Listed(c, "ClusterQueue", kube.ListFunc[*kueuev1beta2.ClusterQueue](c.Kueue.KueueV1beta2().ClusterQueues().List, metav1.ListOptions{})),
		API: func(string) ObjectAPI[*kueuev1beta2.ClusterQueue, *kueueac.ClusterQueueApplyConfiguration] {
			return c.Kueue.KueueV1beta2().ClusterQueues()
		},
		Build:    kueue.ClusterQueue,
		Read:     kueue.ClusterQueueSpec,
		DiffSpec: DiffClusterQueue,
		Ready: func(q *kueuev1beta2.ClusterQueue) Readiness {
			return ConditionReadiness(q.Status.Conditions, kueuev1beta2.ClusterQueueActive)
		},
		Awaits:  func(q spec.ClusterQueue) bool { return !held(q.StopPolicy) },
		Explain: ExplainClusterQueue,
		Blockers: func(ctx context.Context, ref Ref) ([]string, error) {
			return queueWorkloads(ctx, c, ref.Name)
		},
	}
}

// queueWorkloads lists the workloads holding quota in the ClusterQueue:
// Kueue keeps the queue (finalizer kueue.x-k8s.io/resource-in-use) until they
// finish or are evicted.
func queueWorkloads(ctx context.Context, c *kube.Client, queue string) ([]string, error) {
	wls, err := c.Kueue.KueueV1beta2().Workloads("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var users []string
	for _, w := range wls.Items {
		if a := w.Status.Admission; a != nil && string(a.ClusterQueue) == queue && w.DeletionTimestamp == nil {
			users = append(users, "admitted workload "+w.Namespace+"/"+w.Name)
		}
	}
	if len(users) > 5 {
		users = append(users[:5], fmt.Sprintf("%d more", len(users)-5))
	}
	return users, nil
}

// DiffClusterQueue names the fields of actual that differ from desired,
// after Kueue's defaults, comparing quantities by value (12 = 12000m).
func DiffClusterQueue(desired, actual spec.ClusterQueue) []string {
	d, a := desired.Defaulted(), actual.Defaulted()
	var out []string
	add := func(name string, same bool) {
		if !same {
			out = append(out, name)
		}
	}
	add("cohort", d.Cohort == a.Cohort)
	add("namespace_selector", sameSelector(d.NamespaceSelector, a.NamespaceSelector))
	add("resource_groups", spec.ResourceGroupsEqual(d.ResourceGroups, a.ResourceGroups))
	add("queueing_strategy", d.QueueingStrategy == a.QueueingStrategy)
	add("preemption", reflect.DeepEqual(d.Preemption, a.Preemption))
	add("flavor_fungibility", d.FlavorFungibility == a.FlavorFungibility)
	add("admission_checks", sameChecks(d.AdmissionChecks, a.AdmissionChecks))
	add("stop_policy", d.StopPolicy == a.StopPolicy)
	add("fair_sharing_weight", spec.QuantityEqual(d.FairSharingWeight, a.FairSharingWeight))
	return out
}

func sameSelector(a, b *spec.LabelSelector) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	return sameMap(a.MatchLabels, b.MatchLabels) && sameList(a.MatchExpressions, b.MatchExpressions)
}

func sameChecks(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// ExplainClusterQueue says in plain words why a ClusterQueue is not active.
func ExplainClusterQueue(q spec.ClusterQueue) func(Readiness) string {
	return func(r Readiness) string {
		switch r.Reason {
		case "FlavorNotFound":
			return "it references a ResourceFlavor that does not exist"
		case "AdmissionCheckNotFound":
			return "it references an AdmissionCheck that does not exist"
		case "AdmissionCheckInactive":
			return "one of its admission checks is not active; check its controller and parameters"
		case "Stopped":
			return fmt.Sprintf("stop_policy is %s", q.StopPolicy)
		case "NoStatus":
			return "Kueue has not reported on it; check that the Kueue manager is running (kubectl -n kueue-system get pods)"
		}
		return ""
	}
}
