package resources_test

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// queuedJob is a training Job submitted to a LocalQueue: suspended, as
// Kueue's job webhook would leave it (Kueue unsuspends it on admission), one
// pod asking for cpu and gpus nvidia.com/gpu, and fit for a team namespace's
// restricted Pod Security.
func queuedJob(ns, name, queue, cpu, gpus string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels: map[string]string{"kueue.x-k8s.io/queue-name": queue}},
		Spec: batchv1.JobSpec{
			Suspend: ptr.To(true),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				SecurityContext: &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
					SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}},
				Containers: []corev1.Container{{Name: "train", Image: "trainer:latest",
					SecurityContext: &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{"cpu": k8sresource.MustParse(cpu), "nvidia.com/gpu": k8sresource.MustParse(gpus)},
						Limits:   corev1.ResourceList{"nvidia.com/gpu": k8sresource.MustParse(gpus)},
					}}},
			}},
		},
	}
}

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
