package resources_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// tasNode is one Node registered as GKE's kubelet registers a node of a GPU
// pool: where it is (block, subblock, host).
type tasNode struct{ name, block, subblock, host string }

// tasNodes are 2 blocks × 2 subblocks × 2 hosts, one node each.
func tasNodes(prefix string) []tasNode {
	var out []tasNode
	for b := 1; b <= 2; b++ {
		for s := 1; s <= 2; s++ {
			for h := 1; h <= 2; h++ {
				out = append(out, tasNode{
					name:     fmt.Sprintf("%s-b%d-s%d-h%d", prefix, b, s, h),
					block:    fmt.Sprintf("%s-block-%d", prefix, b),
					subblock: fmt.Sprintf("%s-block-%d-sub-%d", prefix, b, s),
					host:     fmt.Sprintf("%s-host-%d%d%d", prefix, b, s, h),
				})
			}
		}
	}
	return out
}

// registerNodes creates the nodes of a pool with 8 GPUs each, Ready, with
// the pool's labels (its flavor's node labels: the pool's node_selector),
// GKE's accelerator label, the topology labels and the pool's taints; they
// are deleted when the test ends. No kubelet runs and no node controller
// watches them, so they stay as written.
func registerNodes(t *testing.T, core kubernetes.Interface, nodes []tasNode, poolLabels map[string]string, np *containerpb.NodePool) {
	t.Helper()
	ctx := context.Background()
	var taints []corev1.Taint
	for _, tn := range np.GetConfig().GetTaints() {
		taints = append(taints, corev1.Taint{Key: tn.GetKey(), Value: tn.GetValue(), Effect: gkeTaintEffect(tn.GetEffect())})
	}
	res := corev1.ResourceList{
		"nvidia.com/gpu": k8sresource.MustParse("8"), corev1.ResourceCPU: k8sresource.MustParse("200"),
		corev1.ResourceMemory: k8sresource.MustParse("1800Gi"), corev1.ResourcePods: k8sresource.MustParse("110"),
	}
	for _, n := range nodes {
		labels := maps.Clone(poolLabels)
		labels[spec.HostnameLabel] = n.name
		labels["cloud.google.com/gke-accelerator"] = np.GetConfig().GetAccelerators()[0].GetAcceleratorType()
		labels[spec.GKETopologyBlock] = n.block
		labels[spec.GKETopologySubblock] = n.subblock
		labels[spec.GKETopologyHost] = n.host
		node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}
		created, err := core.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = core.CoreV1().Nodes().Delete(context.Background(), n.name, metav1.DeleteOptions{}) })
		created.Status = corev1.NodeStatus{Capacity: res, Allocatable: res, Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()},
		}}
		updated, err := core.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// The API server's TaintNodesByCondition admission adds
		// node.kubernetes.io/not-ready on create; a kubelet reporting Ready has
		// the node lifecycle controller take it off, which here is the test.
		updated.Spec.Taints = taints
		if _, err := core.CoreV1().Nodes().Update(ctx, updated, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// tasGang is a JobSet of one replicated job of pods pods of 8 GPUs each,
// asking for topology: annotation is kueue.x-k8s.io/podset-required-topology
// or -preferred-topology, with the block level.
func tasGang(t *testing.T, ns, name, queue string, pods int32, annotation string) *unstructured.Unstructured {
	t.Helper()
	js, err := acctest.ReadJobSet(acctest.QueuedJobSet(ns, name, queue, []string{"workers"}, pods, "1", "8"))
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &js.Spec.ReplicatedJobs[0].Template.Spec.Template
	tmpl.Annotations = map[string]string{annotation: spec.GKETopologyBlock}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&js)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: obj}
}

// gangWorkload is the Workload Kueue made for the JobSet named name.
func gangWorkload(ctx context.Context, kq kueueclient.Interface, ns, name string) (*kueuev1beta2.Workload, error) {
	wls, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for i := range wls.Items {
		for _, o := range wls.Items[i].OwnerReferences {
			if o.Kind == "JobSet" && o.Name == name {
				return &wls.Items[i], nil
			}
		}
	}
	return nil, fmt.Errorf("no Workload for JobSet %s yet", name)
}

// placement is where Kueue put an admitted gang: the blocks of the nodes its
// topology assignment names, and the pods it places.
type placement struct {
	blocks []string
	pods   int32
}

// admittedPlacement waits until the gang's Workload is admitted and reads
// its topology assignment; an admission without one is an error.
func admittedPlacement(ctx context.Context, kq kueueclient.Interface, ns, name string, byHost map[string]tasNode) (placement, error) {
	var wl *kueuev1beta2.Workload
	err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		var err error
		wl, err = gangWorkload(ctx, kq, ns, name)
		return err == nil && wl.Status.Admission != nil && meta.IsStatusConditionTrue(wl.Status.Conditions, kueuev1beta2.WorkloadAdmitted), nil
	})
	if err != nil {
		why := "no Workload"
		if wl != nil {
			if c := meta.FindStatusCondition(wl.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved); c != nil {
				why = c.Reason + ": " + c.Message
			}
		}
		return placement{}, fmt.Errorf("gang %s was not admitted within 60s (%s)", name, why)
	}
	psa := wl.Status.Admission.PodSetAssignments
	if len(psa) != 1 || psa[0].TopologyAssignment == nil {
		return placement{}, fmt.Errorf("gang %s was admitted without a topology assignment: %+v", name, psa)
	}
	ta := utiltas.InternalFrom(psa[0].TopologyAssignment)
	hostLevel := slices.Index(ta.Levels, spec.HostnameLabel)
	if hostLevel < 0 {
		return placement{}, fmt.Errorf("gang %s: topology assignment levels %v lack %s", name, ta.Levels, spec.HostnameLabel)
	}
	var p placement
	for _, d := range ta.Domains {
		n, ok := byHost[d.Values[hostLevel]]
		if !ok {
			return placement{}, fmt.Errorf("gang %s placed on %v, not a node of the pool", name, d.Values)
		}
		if !slices.Contains(p.blocks, n.block) {
			p.blocks = append(p.blocks, n.block)
		}
		p.pods += d.Count
	}
	slices.Sort(p.blocks)
	return p, nil
}

// TestAccTopologyAwareGangs: the platform applied (a GPU pool, GKE's
// Topology, a flavor naming it, a team queue) on the real Kueue's
// topology-aware scheduling, with the pool's nodes registered as GKE's
// kubelets would: 2 blocks × 2 subblocks × 2 hosts of 8 GPUs. A gang of 2 × 8
// GPUs that requires one block is admitted inside one block; a gang of 5 × 8
// (more than a block's 4 nodes) that requires one waits, with Kueue's
// reason; the same gang preferring one block is admitted across both. The
// pool is Spot and compactly placed, so its plan says its nodes carry GKE's
// topology labels (topology_labels). First, the flavor without its topology
// (the wiring broken): the required gang is not admitted, and Kueue says the
// flavor does not support topology-aware scheduling.
func TestAccTopologyAwareGangs(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	core, kq := acctest.Kube(t)
	dyn, err := dynamic.NewForConfig(env.REST)
	if err != nil {
		t.Fatal(err)
	}
	gc := gkeClient(t, env.GCP)
	ctx := context.Background()
	const (
		ns    = "acc-tas-team"
		queue = "gpu"
		pool  = "acc-tas-h100"
	)
	nodes := tasNodes("acc-tas")
	byHost := map[string]tasNode{}
	for _, n := range nodes {
		byHost[n.name] = n
	}
	cfg := func(topologyName string) string {
		return acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "h100" {
  name           = "` + pool + `"
  node_locations = ["us-central1-a"]
  gpu            = { type = "nvidia-h100-80gb", count = 8 }
  capacity       = "spot"
  placement      = "compact" # Spot A3 High nodes carry GKE's topology labels only when compactly placed
  autoscaling    = { max_nodes = 8 }
}

resource "mlplatform_topology" "gke" {
  name   = "acc-tas-gke"
  levels = ["cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock", "cloud.google.com/gce-topology-host", "kubernetes.io/hostname"]
}

resource "mlplatform_resource_flavor" "h100" {
  name          = "acc-tas-h100"
  node_labels   = mlplatform_gpu_pool.h100.node_selector
  tolerations   = mlplatform_gpu_pool.h100.workload_tolerations
  ` + topologyName + `
}

resource "mlplatform_team_namespace" "team" {
  name = "` + ns + `"
  team = "acc-tas-team"
}

resource "mlplatform_cluster_queue" "team" {
  name               = "acc-tas-team"
  namespace_selector = mlplatform_team_namespace.team.selector
  resource_groups = [{
    covered_resources = ["cpu", "nvidia.com/gpu"]
    flavors = [
      { name = mlplatform_resource_flavor.h100.name, resources = [{ name = "cpu", nominal_quota = "64" }, { name = "nvidia.com/gpu", nominal_quota = "64" }] },
    ]
  }]
}

resource "mlplatform_local_queue" "gpu" {
  namespace     = mlplatform_team_namespace.team.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.team.name
}
`
	}
	jobsets := dyn.Resource(acctest.JobSets).Namespace(ns)
	submit := func(name string, pods int32, annotation string) error {
		_, err := jobsets.Create(ctx, tasGang(t, ns, name, queue, pods, annotation), metav1.CreateOptions{})
		return err
	}
	remove := func(names ...string) error {
		for _, n := range names {
			if err := jobsets.Delete(ctx, n, metav1.DeleteOptions{PropagationPolicy: ptrTo(metav1.DeletePropagationForeground)}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
		return wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			for _, n := range names {
				if _, err := gangWorkload(ctx, kq, ns, n); err == nil {
					return false, nil
				}
				if _, err := jobsets.Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return false, nil
				}
			}
			return true, nil
		})
	}
	registered := false
	register := func() error {
		if registered {
			return nil
		}
		rf, err := kq.KueueV1beta2().ResourceFlavors().Get(ctx, "acc-tas-h100", metav1.GetOptions{})
		if err != nil {
			return err
		}
		np, err := gc.GetNodePool(ctx, poolName(pool))
		if err != nil {
			return err
		}
		registerNodes(t, core, nodes, rf.Spec.NodeLabels, np)
		registered = true
		return nil
	}

	broken := func(*terraform.State) (err error) {
		if err := register(); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, remove("acc-tas-small")) }()
		if err := submit("acc-tas-small", 2, kueuev1beta2.PodSetRequiredTopologyAnnotation); err != nil {
			return err
		}
		// Kueue says why: the flavor has no Topology to place the gang in.
		const why = `Flavor "acc-tas-h100" does not support TopologyAwareScheduling`
		var last string
		werr := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			wl, err := gangWorkload(ctx, kq, ns, "acc-tas-small")
			if err != nil {
				return false, nil //nolint:nilerr // retried until the deadline
			}
			if wl.Status.Admission != nil {
				return false, fmt.Errorf("a gang requiring a block was admitted on a flavor without a topology: %+v", wl.Status.Admission)
			}
			if c := meta.FindStatusCondition(wl.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved); c != nil {
				last = c.Message
			}
			return strings.Contains(last, why), nil
		})
		if werr != nil {
			return fmt.Errorf("the gang requiring a block on a flavor without a topology should wait with Kueue's reason %q (%v); last: %q", why, werr, last)
		}
		return nil
	}
	wired := func(*terraform.State) (err error) {
		if err := register(); err != nil {
			return err
		}
		defer func() { err = errors.Join(err, remove("acc-tas-small", "acc-tas-big", "acc-tas-spread")) }()

		// 2 × 8 GPUs, one block required: inside one block.
		if err := submit("acc-tas-small", 2, kueuev1beta2.PodSetRequiredTopologyAnnotation); err != nil {
			return err
		}
		small, err := admittedPlacement(ctx, kq, ns, "acc-tas-small", byHost)
		if err != nil {
			return err
		}
		if len(small.blocks) != 1 || small.pods != 2 {
			return fmt.Errorf("the 2-pod gang requiring one block was placed on blocks %v (%d pods)", small.blocks, small.pods)
		}

		// 5 × 8 GPUs, one block required: a block has 4 nodes, so it waits.
		if err := submit("acc-tas-big", 5, kueuev1beta2.PodSetRequiredTopologyAnnotation); err != nil {
			return err
		}
		var why string
		err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			wl, err := gangWorkload(ctx, kq, ns, "acc-tas-big")
			if err != nil {
				return false, nil //nolint:nilerr // retried until the deadline
			}
			if wl.Status.Admission != nil {
				return false, fmt.Errorf("the 5-pod gang requiring one block was admitted: %+v", wl.Status.Admission)
			}
			c := meta.FindStatusCondition(wl.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved)
			if c == nil || c.Status != metav1.ConditionFalse {
				return false, nil
			}
			why = c.Message
			return strings.Contains(why, "topology"), nil
		})
		if err != nil {
			return fmt.Errorf("the 5-pod gang requiring one block should wait with Kueue's topology reason (%v); last: %q", err, why)
		}
		for _, w := range []string{`topology "acc-tas-gke"`, "5"} {
			if !strings.Contains(why, w) {
				return fmt.Errorf("Kueue's reason for the waiting gang does not say %q: %q", w, why)
			}
		}
		t.Logf("the 5-pod gang requiring one block waits: %s", why)
		if err := remove("acc-tas-big"); err != nil {
			return err
		}

		// 5 × 8 GPUs, one block preferred: admitted, across both blocks.
		if err := submit("acc-tas-spread", 5, kueuev1beta2.PodSetPreferredTopologyAnnotation); err != nil {
			return err
		}
		spread, err := admittedPlacement(ctx, kq, ns, "acc-tas-spread", byHost)
		if err != nil {
			return err
		}
		if len(spread.blocks) != 2 || spread.pods != 5 {
			return fmt.Errorf("the 5-pod gang preferring one block was placed on blocks %v (%d pods), want both blocks", spread.blocks, spread.pods)
		}
		return nil
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg(""), Check: broken,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue("mlplatform_gpu_pool.h100", tfjsonpath.New("topology_labels"), knownvalue.Bool(true)),
				}}},
			{Config: cfg("topology_name = mlplatform_topology.gke.name"), Check: wired,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("mlplatform_resource_flavor.h100", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				}},
		},
	})
}
