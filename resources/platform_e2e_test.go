package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// The platform end to end: what Terraform applies (GPU pools on GKE, flavors
// wired from them, a team namespace with its identity, network policy and
// queues) lets the real Kueue admit a training Job submitted to the team's
// LocalQueue onto the flavor of the pool it fits, with a node selector that
// picks that pool's nodes and tolerations for every taint they carry
// (GKE's own GPU taint included), and not onto another.
func TestAccPlatformAdmitsJobOntoItsFlavor(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	core, kq := acctest.Kube(t)
	gc := gkeClient(t, env.GCP)
	ctx := context.Background()
	cfg := acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "l4" {
  name         = "acc-e2e-l4"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 2 }
}

resource "mlplatform_gpu_pool" "h100" {
  name        = "acc-e2e-h100"
  gpu         = { type = "nvidia-h100-80gb", count = 8 }
  capacity    = "spot"
  autoscaling = { max_nodes = 2 }
  taints      = { "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" } }
}

resource "mlplatform_resource_flavor" "l4" {
  name        = "acc-e2e-l4"
  node_labels = mlplatform_gpu_pool.l4.node_selector
  tolerations = mlplatform_gpu_pool.l4.workload_tolerations
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "acc-e2e-h100"
  node_labels = mlplatform_gpu_pool.h100.node_selector
  tolerations = mlplatform_gpu_pool.h100.workload_tolerations
}

resource "mlplatform_team_namespace" "vision" {
  name = "acc-e2e-vision"
  team = "acc-e2e-vision"
}

resource "mlplatform_workload_identity" "trainer" {
  namespace                     = mlplatform_team_namespace.vision.name
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "acc-e2e-trainer" }
}

resource "mlplatform_training_network_policy" "vision" {
  namespace = mlplatform_team_namespace.vision.name
}

resource "mlplatform_cluster_queue" "vision" {
  name               = "acc-e2e-vision"
  namespace_selector = mlplatform_team_namespace.vision.selector
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
  namespace     = mlplatform_team_namespace.vision.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.vision.name
}
`
	admitted := func(*terraform.State) error {
		job := acctest.QueuedJob("acc-e2e-vision", "llm-finetune", "gpu", "8", "8")
		job.Spec.Template.Spec.ServiceAccountName = "trainer" // Workload Identity: acts as the team's GSA
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
		// The nodes of the H100 pool, as GKE describes them: a node there carries
		// the pool label GKE sets and every taint of the pool, GKE's own included.
		np, err := gc.GetNodePool(ctx, poolName("acc-e2e-h100"))
		if err != nil {
			return err
		}
		wantSelector := map[string]string{"cloud.google.com/gke-nodepool": np.GetName()}
		if diff := cmp.Diff(wantSelector, got.Spec.Template.Spec.NodeSelector); diff != "" {
			return fmt.Errorf("admitted onto the wrong nodes (-want +got node selector):\n%s", diff)
		}
		if len(np.GetConfig().GetTaints()) < 2 {
			return fmt.Errorf("pool taints %v: want the configured spot taint and GKE's nvidia.com/gpu", np.GetConfig().GetTaints())
		}
		for _, taint := range np.GetConfig().GetTaints() {
			nodeTaint := corev1.Taint{Key: taint.GetKey(), Value: taint.GetValue(), Effect: gkeTaintEffect(taint.GetEffect())}
			tolerated := false
			for _, tol := range got.Spec.Template.Spec.Tolerations {
				tolerated = tolerated || tol.ToleratesTaint(klog.Background(), &nodeTaint, false)
			}
			if !tolerated {
				return fmt.Errorf("the admitted pod cannot run on pool %s: taint %s=%s:%s is not tolerated by %v",
					np.GetName(), nodeTaint.Key, nodeTaint.Value, nodeTaint.Effect, got.Spec.Template.Spec.Tolerations)
			}
		}
		ksa, err := core.CoreV1().ServiceAccounts("acc-e2e-vision").Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if gsa := ksa.Annotations["iam.gke.io/gcp-service-account"]; gsa != "acc-e2e-trainer@"+env.Project+".iam.gserviceaccount.com" {
			return fmt.Errorf("the job's service account acts as %q, want the team's GSA", gsa)
		}
		return nil
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg, Check: admitted, // the whole platform, applied, plans empty
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{ // the team cannot go while its job has not finished: refused at plan, naming the job, before anything is deleted
				Config:      acctest.ProviderConfig(t),
				ExpectError: regexp.MustCompile(`(?s)Namespace acc-e2e-vision Holds Data.*unfinished Jobs\s+llm-finetune`),
			},
			{ // the job finished (deleted here) so Kueue releases the queue and flavors for destroy
				PreConfig: func() {
					if _, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-e2e-vision", metav1.GetOptions{}); err != nil {
						t.Fatalf("the refused destroy deleted the team's ClusterQueue: %v", err)
					}
					if _, err := kq.KueueV1beta2().LocalQueues("acc-e2e-vision").Get(ctx, "gpu", metav1.GetOptions{}); err != nil {
						t.Fatalf("the refused destroy deleted the team's LocalQueue: %v", err)
					}
					// The job's Kueue Workload goes with it, by garbage collection,
					// which a loaded machine may take seconds for; until then the
					// namespace rightly holds unfinished work and destroy is refused.
					if err := deleteJobsAndWaitForWorkloads(ctx, core, kq, "acc-e2e-vision", func(int) string { return "llm-finetune" }, 1); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
			},
		},
	})
}

// gkeTaintEffect is the Kubernetes effect of a GKE node taint.
func gkeTaintEffect(e containerpb.NodeTaint_Effect) corev1.TaintEffect {
	switch e {
	case containerpb.NodeTaint_NO_EXECUTE:
		return corev1.TaintEffectNoExecute
	case containerpb.NodeTaint_PREFER_NO_SCHEDULE:
		return corev1.TaintEffectPreferNoSchedule
	}
	return corev1.TaintEffectNoSchedule
}
