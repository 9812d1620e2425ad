package reconcile

import (
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// LocalQueues reconciles Kueue LocalQueues.
type LocalQueues = Object[spec.LocalQueue, *kueuev1beta2.LocalQueue, *kueueac.LocalQueueApplyConfiguration]

var _ Reconciler[Ref, spec.LocalQueue, spec.LocalQueue] = LocalQueues{}

// NewLocalQueues reconciles through c.
func NewLocalQueues(c *kube.Client) LocalQueues {
	return LocalQueues{
		Kind: "LocalQueue",
		List: kube.Listed(c, "LocalQueue", kube.ListFunc[*kueuev1beta2.LocalQueue](c.Kueue.KueueV1beta2().LocalQueues("").List, metav1.ListOptions{})),
		API: func(ns string) ObjectAPI[*kueuev1beta2.LocalQueue, *kueueac.LocalQueueApplyConfiguration] {
			return c.Kueue.KueueV1beta2().LocalQueues(ns)
		},
		Build:    kueue.LocalQueue,
		Read:     kueue.LocalQueueSpec,
		DiffSpec: DiffLocalQueue,
		Ready: func(q *kueuev1beta2.LocalQueue) Readiness {
			return ConditionReadiness(q.Status.Conditions, kueuev1beta2.LocalQueueActive)
		},
		Awaits:  func(q spec.LocalQueue) bool { return !held(q.StopPolicy) },
		Explain: ExplainLocalQueue,
	}
}

// held reports a stop policy that holds a queue, so it is not expected to
// become active ("" is Kueue's default, None).
func held(stopPolicy string) bool { return stopOrNone(stopPolicy) != string(kueuev1beta2.None) }

// DiffLocalQueue names the fields of actual that differ from desired.
func DiffLocalQueue(desired, actual spec.LocalQueue) []string {
	var d []string
	if desired.ClusterQueue != actual.ClusterQueue {
		d = append(d, "cluster_queue")
	}
	if stopOrNone(desired.StopPolicy) != stopOrNone(actual.StopPolicy) {
		d = append(d, "stop_policy")
	}
	return d
}

func stopOrNone(p string) string {
	if p == "" {
		return string(kueuev1beta2.None)
	}
	return p
}

// ExplainLocalQueue says in plain words why a LocalQueue is not active.
func ExplainLocalQueue(q spec.LocalQueue) func(Readiness) string {
	return func(r Readiness) string {
		switch r.Reason {
		case "ClusterQueueDoesNotExist":
			return fmt.Sprintf("its ClusterQueue %q does not exist", q.ClusterQueue)
		case "ClusterQueueIsInactive":
			return fmt.Sprintf("its ClusterQueue %q is not active; see why with kubectl describe clusterqueue %s", q.ClusterQueue, q.ClusterQueue)
		case "NoStatus":
			return "Kueue has not reported on it; check that the Kueue manager is running (kubectl -n kueue-system get pods)"
		}
		return ""
	}
}
