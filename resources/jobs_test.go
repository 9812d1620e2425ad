package resources_test

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// deleteJobsAndWaitForWorkloads deletes the n Jobs and waits (bounded) for
// garbage collection to take their Workloads, which holds up the
// ClusterQueue's deletion until then.
func deleteJobsAndWaitForWorkloads(ctx context.Context, core kubernetes.Interface, kq kueueclient.Interface, ns string, jobName func(int) string, n int) error {
	for i := 0; i < n; i++ {
		_ = core.BatchV1().Jobs(ns).Delete(ctx, jobName(i), metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	}
	var left int
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		wls, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		left = len(wls.Items)
		return left == 0, nil
	})
	if err != nil {
		return fmt.Errorf("cleanup: %d Workloads of the deleted jobs still in %s after 90s: %w", left, ns, err)
	}
	return nil
}
