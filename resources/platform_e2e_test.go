package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// The platform end to end: what Terraform applies lets the real Kueue admit a
// training Job submitted to the team's LocalQueue onto the flavor whose node
// selector and tolerations match its GPU pool, and not onto another.
func TestAccPlatformAdmitsJobOntoItsFlavor(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	givenNamespace(t, "acc-e2e-vision")
	core, _ := acctest.Kube(t)
	ctx := context.Background()
	cfg := acctest.ProviderConfig(t) + `
resource "mlplatform_resource_flavor" "l4" {
  name        = "acc-e2e-l4"
  node_labels = { "cloud.google.com/gke-nodepool" = "acc-l4" }
  tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "acc-e2e-h100"
  node_labels = { "cloud.google.com/gke-nodepool" = "acc-h100", "cloud.google.com/gke-spot" = "true" }
  tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
}

resource "mlplatform_cluster_queue" "vision" {
  name               = "acc-e2e-vision"
  namespace_selector = { match_labels = { "kubernetes.io/metadata.name" = "acc-e2e-vision" } }
  resource_groups = [{
    covered_resources = ["cpu", "nvidia.com/gpu"]
    flavors = [
      # The L4 flavor has no GPUs left for this team, so an 8-GPU job lands on H100.
      { name = mlplatform_resource_flavor.l4.name, resources = [{ name = "cpu", nominal_quota = "64" }, { name = "nvidia.com/gpu", nominal_quota = "0" }] },
      { name = mlplatform_resource_flavor.h100.name, resources = [{ name = "cpu", nominal_quota = "208" }, { name = "nvidia.com/gpu", nominal_quota = "16" }] },
    ]
  }]
}

resource "mlplatform_local_queue" "gpu" {
  namespace     = "acc-e2e-vision"
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.vision.name
}
`
	admitted := func(*terraform.State) error {
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "llm-finetune", Namespace: "acc-e2e-vision",
				Labels: map[string]string{"kueue.x-k8s.io/queue-name": "gpu"}},
			Spec: batchv1.JobSpec{
				Suspend: ptr.To(true), // what Kueue's job webhook would set; Kueue unsuspends on admission
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{Name: "train", Image: "trainer:latest", Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{"cpu": k8sresource.MustParse("8"), "nvidia.com/gpu": k8sresource.MustParse("8")},
						Limits:   corev1.ResourceList{"nvidia.com/gpu": k8sresource.MustParse("8")},
					}}},
				}},
			},
		}
		if _, err := core.BatchV1().Jobs("acc-e2e-vision").Create(ctx, job, metav1.CreateOptions{}); err != nil {
			return err
		}
		var got *batchv1.Job
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			j, err := core.BatchV1().Jobs("acc-e2e-vision").Get(ctx, "llm-finetune", metav1.GetOptions{})
			got = j
			return err == nil && j.Spec.Suspend != nil && !*j.Spec.Suspend, nil
		})
		if err != nil {
			return fmt.Errorf("Kueue did not admit the job within 60s (suspend=%v)", got.Spec.Suspend)
		}
		wantSelector := map[string]string{"cloud.google.com/gke-nodepool": "acc-h100", "cloud.google.com/gke-spot": "true"}
		if diff := cmp.Diff(wantSelector, got.Spec.Template.Spec.NodeSelector); diff != "" {
			return fmt.Errorf("admitted onto the wrong nodes (-want +got node selector):\n%s", diff)
		}
		wantTolerations := []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		if diff := cmp.Diff(wantTolerations, got.Spec.Template.Spec.Tolerations); diff != "" {
			return fmt.Errorf("tolerations (-want +got):\n%s", diff)
		}
		return nil
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg, Check: admitted},
			{ // the queue cannot go while Kueue holds it for the running job: refused, naming the workload
				Config:      acctest.ProviderConfig(t),
				ExpectError: regexp.MustCompile(`(?s)ClusterQueue acc-e2e-vision is still used by admitted\s+workload\s+acc-e2e-vision/job-llm-finetune-`),
			},
			{ // the job finished (deleted here) so Kueue releases the queue and flavors for destroy
				PreConfig: func() {
					_ = core.BatchV1().Jobs("acc-e2e-vision").Delete(ctx, "llm-finetune", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
				},
				Config: cfg,
			},
		},
	})
}
