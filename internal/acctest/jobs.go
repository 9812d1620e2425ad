package acctest

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// QueuedJob is a training Job submitted to a LocalQueue: suspended, as
// Kueue's job webhook would leave it (Kueue unsuspends it on admission), one
// pod asking for cpu (none when "") and gpus nvidia.com/gpu, and fit for a
// team namespace's restricted Pod Security.
func QueuedJob(ns, name, queue, cpu, gpus string) *batchv1.Job {
	requests := corev1.ResourceList{"nvidia.com/gpu": k8sresource.MustParse(gpus)}
	if cpu != "" {
		requests["cpu"] = k8sresource.MustParse(cpu)
	}
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
						Requests: requests,
						Limits:   corev1.ResourceList{"nvidia.com/gpu": k8sresource.MustParse(gpus)},
					}}},
			}},
		},
	}
}
