package resources_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// GPU sharing end to end: a pool of one A100 per node split by MIG into
// 1g.5gb partitions reports 7 nvidia.com/gpu per node (known at plan), its
// flavor is wired from the pool's node_selector (which carries GKE's
// partition-size label), and the real Kueue admits exactly as many
// one-slice Jobs as the ClusterQueue's 7-slice quota allows onto it, with a
// node selector that picks the partitioned nodes and the GPU toleration; the
// eighth waits for quota.
func TestAccGPUSharingAdmitsSlices(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	core, kq := acctest.Kube(t)
	gc := gkeClient(t, env.GCP)
	ctx := context.Background()
	const (
		ns      = "acc-mig-team"
		queue   = "gpu"
		jobs    = 8
		slices  = 7 // 1 node × 1 A100 × 7 partitions of 1g.5gb
		pool    = "mlplatform_gpu_pool.a100"
		flavor  = "mlplatform_resource_flavor.a100"
		partKey = "cloud.google.com/gke-gpu-partition-size"
	)
	cfg := acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "a100" {
  name         = "acc-mig-a100"
  machine_type = "a2-highgpu-1g"
  gpu          = { type = "nvidia-tesla-a100", count = 1, partition_size = "1g.5gb" }
  autoscaling  = { max_nodes = 1 }
}

resource "mlplatform_resource_flavor" "a100" {
  name        = "acc-mig-a100-1g5gb"
  node_labels = mlplatform_gpu_pool.a100.node_selector
  tolerations = mlplatform_gpu_pool.a100.workload_tolerations
}

resource "mlplatform_team_namespace" "team" {
  name = "acc-mig-team"
  team = "acc-mig-team"
}

resource "mlplatform_cluster_queue" "team" {
  name               = "acc-mig-team"
  namespace_selector = mlplatform_team_namespace.team.selector
  resource_groups = [{
    covered_resources = ["cpu", "nvidia.com/gpu"]
    flavors = [
      # cpu is ample for 8 one-cpu jobs, so only the 7 GPU slices limit admission.
      { name = mlplatform_resource_flavor.a100.name, resources = [{ name = "cpu", nominal_quota = "64" }, { name = "nvidia.com/gpu", nominal_quota = "7" }] },
    ]
  }]
}

resource "mlplatform_local_queue" "gpu" {
  namespace     = mlplatform_team_namespace.team.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.team.name
}
`
	jobName := func(i int) string { return fmt.Sprintf("acc-mig-slice-%d", i) }

	admitted := func(s *terraform.State) (err error) {
		// Whatever this check finds, the Jobs go before destroy: Kueue keeps the
		// ClusterQueue and the team namespace holds data while Workloads exist.
		defer func() {
			if cerr := deleteJobsAndWaitForWorkloads(ctx, core, kq, ns, jobName, jobs); cerr != nil {
				err = errors.Join(err, cerr)
			}
		}()
		poolRes, ok := s.RootModule().Resources[pool]
		if !ok {
			return fmt.Errorf("%s not in state", pool)
		}
		selector := stateMap(poolRes.Primary.Attributes, "node_selector")
		// Not only what the provider says: the selector must name this pool and
		// its partition size, or matching it proves nothing.
		np, err := gc.GetNodePool(ctx, poolName("acc-mig-a100"))
		if err != nil {
			return err
		}
		if selector["cloud.google.com/gke-nodepool"] != np.GetName() || selector[partKey] != "1g.5gb" {
			return fmt.Errorf("pool node_selector %v: want gke-nodepool=%s and %s=1g.5gb", selector, np.GetName(), partKey)
		}
		if acc := np.GetConfig().GetAccelerators(); len(acc) != 1 || acc[0].GetGpuPartitionSize() != "1g.5gb" {
			return fmt.Errorf("GKE pool accelerators %v: want one A100 config partitioned at 1g.5gb", acc)
		}

		for i := 0; i < jobs; i++ {
			if _, err := core.BatchV1().Jobs(ns).Create(ctx, acctest.QueuedJob(ns, jobName(i), queue, "1", "1"), metav1.CreateOptions{}); err != nil {
				return err
			}
		}

		// Exactly 7 admitted: Workloads Admitted and their Jobs unsuspended. Kueue
		// admits one at a time, so wait for all 7 and for the 8th's Workload to be
		// found wanting (QuotaReserved=False for lack of quota).
		var st sliceState
		err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
			st, err = readSlices(ctx, core, kq, ns, jobName, jobs)
			if err != nil {
				return false, nil
			}
			if len(st.unsuspended) > slices || len(st.admittedWls) > slices {
				return false, fmt.Errorf("more than the quota's %d slices admitted", slices)
			}
			return len(st.unsuspended) >= slices && len(st.admittedWls) >= slices && len(st.pendingForQuota) >= jobs-slices, nil
		})
		if err != nil {
			return fmt.Errorf("want exactly %d of %d one-slice jobs admitted and the rest pending for quota within 90s (%v): %s", slices, jobs, err, st)
		}
		// Then it holds: for a few seconds nothing more is admitted.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if st, err = readSlices(ctx, core, kq, ns, jobName, jobs); err != nil {
				return err
			}
			if len(st.unsuspended) != slices || len(st.admittedWls) != slices || len(st.pendingForQuota) != jobs-slices {
				return fmt.Errorf("want exactly %d of %d one-slice jobs admitted on a %d-slice quota and the rest pending for quota: %s",
					slices, jobs, slices, st)
			}
			time.Sleep(500 * time.Millisecond)
		}
		for _, msg := range st.pendingForQuota {
			if !strings.Contains(msg, "insufficient unused quota for nvidia.com/gpu in flavor acc-mig-a100-1g5gb") {
				return fmt.Errorf("the pending workload waits for something other than GPU quota: %q", msg)
			}
		}

		for _, j := range st.unsuspended {
			podSpec := j.Spec.Template.Spec
			for k, v := range selector {
				if podSpec.NodeSelector[k] != v {
					return fmt.Errorf("admitted job %s: node selector %v lacks the pool's %s=%s", j.Name, podSpec.NodeSelector, k, v)
				}
			}
			gpuTolerated := false
			for _, tol := range podSpec.Tolerations {
				gpuTolerated = gpuTolerated || (tol.Key == "nvidia.com/gpu" && tol.Operator == corev1.TolerationOpExists && tol.Effect == corev1.TaintEffectNoSchedule)
			}
			if !gpuTolerated {
				return fmt.Errorf("admitted job %s: tolerations %v lack nvidia.com/gpu:Exists:NoSchedule", j.Name, podSpec.Tolerations)
			}
		}
		return nil
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check:  admitted,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PreApply: []plancheck.PlanCheck{ // known at plan, before GKE is asked
					plancheck.ExpectKnownValue(pool, tfjsonpath.New("allocatable_gpus_per_node"), knownvalue.Int64Exact(slices)),
					plancheck.ExpectKnownValue(flavor, tfjsonpath.New("node_labels").AtMapKey(partKey), knownvalue.StringExact("1g.5gb")),
				},
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// sliceState is what Kueue made of the submitted Jobs.
type sliceState struct {
	unsuspended     []batchv1.Job
	admittedWls     []string
	pendingForQuota map[string]string // workload name: its QuotaReserved=False message
	other           []string          // workloads neither admitted nor pending, with their conditions
}

func (s sliceState) String() string {
	var names []string
	for _, j := range s.unsuspended {
		names = append(names, j.Name)
	}
	var pending []string
	for wl, msg := range s.pendingForQuota {
		pending = append(pending, wl+": "+msg)
	}
	sort.Strings(pending)
	return fmt.Sprintf("%d jobs unsuspended %v; %d workloads admitted %v; %d pending for quota %v; other %v",
		len(names), names, len(s.admittedWls), s.admittedWls, len(pending), pending, s.other)
}

// readSlices reads the n Jobs and their Workloads.
func readSlices(ctx context.Context, core kubernetes.Interface, kq kueueclient.Interface, ns string, jobName func(int) string, n int) (sliceState, error) {
	st := sliceState{pendingForQuota: map[string]string{}}
	ours := map[string]bool{}
	for i := 0; i < n; i++ {
		j, err := core.BatchV1().Jobs(ns).Get(ctx, jobName(i), metav1.GetOptions{})
		if err != nil {
			return st, err
		}
		ours[string(j.UID)] = true
		if j.Spec.Suspend != nil && !*j.Spec.Suspend {
			st.unsuspended = append(st.unsuspended, *j)
		}
	}
	wls, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, err
	}
	for _, wl := range wls.Items {
		owned := false
		for _, o := range wl.OwnerReferences {
			owned = owned || ours[string(o.UID)]
		}
		if !owned {
			continue
		}
		qr := meta.FindStatusCondition(wl.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved)
		switch {
		case meta.IsStatusConditionTrue(wl.Status.Conditions, kueuev1beta2.WorkloadAdmitted):
			st.admittedWls = append(st.admittedWls, wl.Name)
		case qr != nil && qr.Status == metav1.ConditionFalse && qr.Reason == "Pending" && strings.Contains(qr.Message, "insufficient unused quota"):
			st.pendingForQuota[wl.Name] = qr.Message
		default:
			st.other = append(st.other, fmt.Sprintf("%s %v", wl.Name, wl.Status.Conditions))
		}
	}
	sort.Strings(st.admittedWls)
	return st, nil
}

// stateMap is the map attribute attr of a flatmapped resource state.
func stateMap(attrs map[string]string, attr string) map[string]string {
	out := map[string]string{}
	for k, v := range attrs {
		if key, ok := strings.CutPrefix(k, attr+"."); ok && key != "%" {
			out[key] = v
		}
	}
	return out
}
