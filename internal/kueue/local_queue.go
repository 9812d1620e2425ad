package kueue

import (
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// LocalQueue builds the apply configuration for q. The stop policy is always
// sent (None when unset) so an out-of-band Hold is undone by apply.
func LocalQueue(q spec.LocalQueue) *kueueac.LocalQueueApplyConfiguration {
	stop := q.StopPolicy
	if stop == "" {
		stop = string(kueuev1beta2.None)
	}
	return kueueac.LocalQueue(q.Name, q.Namespace).WithSpec(kueueac.LocalQueueSpec().
		WithClusterQueue(kueuev1beta2.ClusterQueueReference(q.ClusterQueue)).
		WithStopPolicy(kueuev1beta2.StopPolicy(stop)))
}

// LocalQueueSpec reads the platform's view of obj.
func LocalQueueSpec(obj *kueuev1beta2.LocalQueue) spec.LocalQueue {
	q := spec.LocalQueue{Namespace: obj.Namespace, Name: obj.Name, ClusterQueue: string(obj.Spec.ClusterQueue), StopPolicy: string(kueuev1beta2.None)}
	if obj.Spec.StopPolicy != nil {
		q.StopPolicy = string(*obj.Spec.StopPolicy)
	}
	return q
}
