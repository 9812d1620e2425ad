package acctest

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// JobSets is the JobSet API (sigs.k8s.io/jobset) the environment's JobSet
// controller serves.
var JobSets = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

// JobSet is what the tests write and read of a jobset.x-k8s.io/v1alpha2
// JobSet (the JobSet module is not a dependency of the provider; the API
// is reached through the dynamic client).
type JobSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              JobSetSpec   `json:"spec"`
	Status            JobSetStatus `json:"status,omitempty"`
}

// JobSetSpec is the part of a JobSet's spec the tests use.
type JobSetSpec struct {
	Suspend        *bool           `json:"suspend,omitempty"`
	ManagedBy      *string         `json:"managedBy,omitempty"`
	ReplicatedJobs []ReplicatedJob `json:"replicatedJobs"`
}

// ReplicatedJob is a JobSet's group of identical Jobs.
type ReplicatedJob struct {
	Name     string                  `json:"name"`
	Replicas int32                   `json:"replicas"`
	Template batchv1.JobTemplateSpec `json:"template"`
}

// JobSetStatus is the part of a JobSet's status the tests use.
type JobSetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// QueuedJobSet is a training gang submitted to a LocalQueue: a JobSet of one
// replicated job per name in rjobs (one replica each), whose Job runs pods
// pods at once (parallelism and completions), each as QueuedJob's pod
// (cpu, gpus nvidia.com/gpu). It is not suspended here: Kueue's JobSet
// webhook suspends it on create, as in a real cluster.
func QueuedJobSet(ns, name, queue string, rjobs []string, pods int32, cpu, gpus string) *unstructured.Unstructured {
	js := JobSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "jobset.x-k8s.io/v1alpha2", Kind: "JobSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels: map[string]string{"kueue.x-k8s.io/queue-name": queue}},
	}
	for _, rj := range rjobs {
		js.Spec.ReplicatedJobs = append(js.Spec.ReplicatedJobs, ReplicatedJob{Name: rj, Replicas: 1, Template: batchv1.JobTemplateSpec{
			Spec: batchv1.JobSpec{Parallelism: ptr.To(pods), Completions: ptr.To(pods),
				Template: QueuedJob(ns, name, queue, cpu, gpus).Spec.Template},
		}})
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&js)
	if err != nil {
		panic(err) // a JobSet literal always converts
	}
	return &unstructured.Unstructured{Object: obj}
}

// ReadJobSet reads a JobSet from the dynamic client.
func ReadJobSet(u *unstructured.Unstructured) (JobSet, error) {
	var js JobSet
	err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &js)
	return js, err
}
