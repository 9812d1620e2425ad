package resources_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// Seed lab G3 with JobSets, on the real Kueue and the real JobSet
// controller: a team queue of 8 GPUs on an H100 pool's flavor gets three
// gangs, each a JobSet of 2 replicated jobs × 2 pods × 1 GPU (4 GPUs).
// Exactly two are admitted whole and resumed, every pod template of both
// (and every Job the JobSet controller made of them) with the pool's node
// selector and a toleration of each of the pool's taints; the third waits,
// suspended, for GPU quota, as its Workload says; no gang is admitted in
// part. Then the flavor is wired by hand to a pool name GKE does not have
// (the wiring broken): Kueue still admits two gangs, onto no node of the
// pool, and the placement check says so.
func TestAccPlatformAdmitsJobSetGangsWhole(t *testing.T) {
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
		ns     = "acc-g3-team"
		queue  = "gpu"
		flavor = "acc-g3-h100"
		gangs  = 3
		fit    = 2 // 8 GPUs of quota / 4 GPUs a gang
	)
	cfg := func(nodeLabels string) string {
		return acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "h100" {
  name        = "acc-g3-h100"
  gpu         = { type = "nvidia-h100-80gb", count = 8 }
  capacity    = "spot"
  autoscaling = { max_nodes = 1 }
  taints      = { "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" } }
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "acc-g3-h100"
  node_labels = ` + nodeLabels + `
  tolerations = mlplatform_gpu_pool.h100.workload_tolerations
}

resource "mlplatform_team_namespace" "team" {
  name = "acc-g3-team"
  team = "acc-g3-team"
}

resource "mlplatform_cluster_queue" "team" {
  name               = "acc-g3-team"
  namespace_selector = mlplatform_team_namespace.team.selector
  resource_groups = [{
    covered_resources = ["cpu", "nvidia.com/gpu"]
    flavors = [
      # cpu is ample: only the 8 GPUs limit admission, to two 4-GPU gangs.
      { name = mlplatform_resource_flavor.h100.name, resources = [{ name = "cpu", nominal_quota = "64" }, { name = "nvidia.com/gpu", nominal_quota = "8" }] },
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
	gangName := func(i int) string { return fmt.Sprintf("acc-g3-gang-%d", i) }

	// admitTwo submits the gangs and waits until Kueue has settled on them:
	// exactly two admitted whole and resumed, the third pending for GPU
	// quota with its Jobs suspended, and so for a few seconds. It returns
	// the admitted gangs.
	admitTwo := func() ([]gang, error) {
		for i := 0; i < gangs; i++ {
			js := acctest.QueuedJobSet(ns, gangName(i), queue, []string{"leader", "workers"}, 2, "1", "1")
			created, err := dyn.Resource(acctest.JobSets).Namespace(ns).Create(ctx, js, metav1.CreateOptions{})
			if err != nil {
				return nil, err
			}
			if s, err := acctest.ReadJobSet(created); err != nil || !ptr.Deref(s.Spec.Suspend, false) {
				return nil, fmt.Errorf("JobSet %s was created unsuspended (err %v): Kueue's JobSet webhook did not hold it for the queue", gangName(i), err)
			}
		}
		var st gangState
		settled := func() bool {
			return len(st.resumed) == fit && len(st.admitted) == fit && len(st.pendingForQuota) == gangs-fit && len(st.other) == 0
		}
		err := wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
			var err error
			if st, err = readGangs(ctx, dyn, core, kq, ns, gangName, gangs); err != nil {
				return false, nil //nolint:nilerr // retried until the deadline
			}
			if len(st.partial) > 0 {
				return false, fmt.Errorf("gangs admitted in part: %v", st.partial)
			}
			if len(st.resumed) > fit || len(st.admitted) > fit {
				return false, fmt.Errorf("more than %d gangs admitted on 8 GPUs", fit)
			}
			return settled(), nil
		})
		if err != nil {
			return nil, fmt.Errorf("want exactly %d of %d 4-GPU gangs admitted whole on an 8-GPU queue and the other pending for quota within 90s (%v): %s",
				fit, gangs, err, st)
		}
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
			if st, err = readGangs(ctx, dyn, core, kq, ns, gangName, gangs); err != nil {
				return nil, err
			}
			if !settled() || len(st.partial) > 0 {
				return nil, fmt.Errorf("want exactly %d of %d gangs admitted whole and the other pending for quota, and so it stays: %s", fit, gangs, st)
			}
		}
		for wl, msg := range st.pendingForQuota {
			if !strings.Contains(msg, "insufficient unused quota for nvidia.com/gpu in flavor "+flavor) {
				return nil, fmt.Errorf("workload %s waits for something other than GPU quota: %q", wl, msg)
			}
		}
		return st.resumed, nil
	}
	cleanUp := func(err *error) {
		if cerr := deleteJobSetsAndWait(ctx, dyn, core, kq, ns, gangName, gangs); cerr != nil {
			*err = errors.Join(*err, cerr)
		}
	}
	pool := func() (*containerpb.NodePool, error) { return gc.GetNodePool(ctx, poolName("acc-g3-h100")) }

	wired := func(*terraform.State) (err error) {
		defer cleanUp(&err) // whatever is found, the gangs go before the next step and destroy
		admitted, err := admitTwo()
		if err != nil {
			return err
		}
		np, err := pool()
		if err != nil {
			return err
		}
		if len(np.GetConfig().GetTaints()) < 2 {
			return fmt.Errorf("pool taints %v: want the configured spot taint and GKE's nvidia.com/gpu", np.GetConfig().GetTaints())
		}
		return gangPlacement(podsOf(admitted), np)
	}
	broken := func(*terraform.State) (err error) {
		defer cleanUp(&err)
		admitted, err := admitTwo()
		if err != nil {
			return err
		}
		np, err := pool()
		if err != nil {
			return err
		}
		perr := gangPlacement(podsOf(admitted), np)
		if perr == nil {
			return errors.New("the placement check passed gangs admitted onto a flavor whose node labels name no pool")
		}
		if !strings.Contains(perr.Error(), "pick no node of pool acc-g3-h100") {
			return fmt.Errorf("the placement check failed for another reason than the broken wiring: %w", perr)
		}
		return nil
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg("mlplatform_gpu_pool.h100.node_selector"), Check: wired,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{ // the flavor wired by hand to the pool's former name: in place, and wrong
				Config: cfg(`{ "cloud.google.com/gke-nodepool" = "acc-g3-h100-retired" }`), Check: broken,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("mlplatform_resource_flavor.h100", plancheck.ResourceActionUpdate),
				}},
			},
		},
	})
}

// placedPod is a pod template of an admitted gang: a JobSet's replicated
// job's, or that of a Job the JobSet controller made of it.
type placedPod struct {
	what string // "JobSet x, replicated job y" or "Job z of JobSet x"
	spec corev1.PodSpec
}

// podsOf lists the pod templates of the gangs and their Jobs.
func podsOf(gangs []gang) []placedPod {
	var out []placedPod
	for _, g := range gangs {
		for _, rj := range g.set.Spec.ReplicatedJobs {
			out = append(out, placedPod{"JobSet " + g.set.Name + ", replicated job " + rj.Name, rj.Template.Spec.Template.Spec})
		}
		for _, j := range g.jobs {
			out = append(out, placedPod{"Job " + j.Name + " of JobSet " + g.set.Name, j.Spec.Template.Spec})
		}
	}
	return out
}

// gangPlacement says whether the pods can run on the nodes of pool np, and
// only there, as GKE describes them: each node selector must be the pool's
// (GKE's node pool label), and the tolerations must tolerate each of the
// pool's taints (GKE's own GPU taint included).
func gangPlacement(pods []placedPod, np *containerpb.NodePool) error {
	want := map[string]string{"cloud.google.com/gke-nodepool": np.GetName()}
	var errs []error
	for _, p := range pods {
		if diff := cmp.Diff(want, p.spec.NodeSelector); diff != "" {
			errs = append(errs, fmt.Errorf("%s: its pods pick no node of pool %s (-want +got node selector):\n%s", p.what, np.GetName(), diff))
		}
		for _, taint := range np.GetConfig().GetTaints() {
			nodeTaint := corev1.Taint{Key: taint.GetKey(), Value: taint.GetValue(), Effect: gkeTaintEffect(taint.GetEffect())}
			tolerated := false
			for _, tol := range p.spec.Tolerations {
				tolerated = tolerated || tol.ToleratesTaint(klog.Background(), &nodeTaint, false)
			}
			if !tolerated {
				errs = append(errs, fmt.Errorf("%s: its pods cannot run on pool %s: taint %s=%s:%s is not tolerated by %v",
					p.what, np.GetName(), nodeTaint.Key, nodeTaint.Value, nodeTaint.Effect, p.spec.Tolerations))
			}
		}
	}
	return errors.Join(errs...)
}

// The placement check fails on each way a gang can be placed off its pool,
// on a node pool as GKE describes it.
func TestGangPlacement(t *testing.T) {
	t.Parallel()
	np := &containerpb.NodePool{Name: "h100", Config: &containerpb.NodeConfig{Taints: []*containerpb.NodeTaint{
		{Key: "cloud.google.com/gke-spot", Value: "true", Effect: containerpb.NodeTaint_NO_SCHEDULE},
		{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE},
	}}}
	spot := corev1.Toleration{Key: "cloud.google.com/gke-spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}
	gpu := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	pods := func(selector map[string]string, tolerations ...corev1.Toleration) []placedPod {
		spec := corev1.PodSpec{NodeSelector: selector, Tolerations: tolerations}
		return []placedPod{{"JobSet gang, replicated job leader", spec}, {"Job gang-leader-0 of JobSet gang", spec}}
	}
	onPool := map[string]string{"cloud.google.com/gke-nodepool": "h100"}
	for name, tc := range map[string]struct {
		pods []placedPod
		want []string // in the error; none: no error
	}{
		"on the pool": {pods: pods(onPool, spot, gpu)},
		"another pool": {pods: pods(map[string]string{"cloud.google.com/gke-nodepool": "h100-retired"}, spot, gpu),
			want: []string{"JobSet gang, replicated job leader: its pods pick no node of pool h100", "Job gang-leader-0 of JobSet gang: its pods pick no node of pool h100"}},
		"no selector":      {pods: pods(nil, spot, gpu), want: []string{"leader: its pods pick no node of pool h100"}},
		"more selected":    {pods: pods(map[string]string{"cloud.google.com/gke-nodepool": "h100", "zone": "a"}, spot, gpu), want: []string{"pick no node"}},
		"spot untolerated": {pods: pods(onPool, gpu), want: []string{"taint cloud.google.com/gke-spot=true:NoSchedule is not tolerated"}},
		"gpu untolerated":  {pods: pods(onPool, spot), want: []string{"taint nvidia.com/gpu=present:NoSchedule is not tolerated"}},
		"toleration of another effect": {pods: pods(onPool, spot, corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}),
			want: []string{"taint nvidia.com/gpu=present:NoSchedule is not tolerated"}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := gangPlacement(tc.pods, np)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("gangPlacement: %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("gangPlacement passed; want an error saying %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("gangPlacement error %q does not say %q", err, w)
				}
			}
		})
	}
}

// gang is a JobSet and the Jobs the JobSet controller made of it.
type gang struct {
	set  acctest.JobSet
	jobs []batchv1.Job
}

// gangState is what Kueue and the JobSet controller made of the gangs.
type gangState struct {
	resumed         []gang            // admitted, unsuspended, and their Jobs made and resumed
	admitted        []string          // Workloads admitted whole
	pendingForQuota map[string]string // Workload: its QuotaReserved=False message (JobSet suspended, its Jobs too)
	partial         []string          // Workloads or JobSets admitted in part
	other           []string          // anything else, with its state
}

func (s gangState) String() string {
	var resumed []string
	for _, g := range s.resumed {
		resumed = append(resumed, g.set.Name)
	}
	var pending []string
	for wl, msg := range s.pendingForQuota {
		pending = append(pending, wl+": "+msg)
	}
	sort.Strings(pending)
	return fmt.Sprintf("%d JobSets resumed %v; %d Workloads admitted %v; %d pending for quota %v; partial %v; other %v",
		len(resumed), resumed, len(s.admitted), s.admitted, len(pending), pending, s.partial, s.other)
}

// readGangs reads the n JobSets, their Workloads and their Jobs. A gang is
// whole when its Workload's admission assigns both pod sets with all their
// pods (count 2 each), or nothing; resumed when that JobSet and both its
// Jobs are unsuspended.
func readGangs(ctx context.Context, dyn dynamic.Interface, core kubernetes.Interface, kq kueueclient.Interface,
	ns string, name func(int) string, n int,
) (gangState, error) {
	st := gangState{pendingForQuota: map[string]string{}}
	sets := map[string]acctest.JobSet{} // by UID
	for i := 0; i < n; i++ {
		u, err := dyn.Resource(acctest.JobSets).Namespace(ns).Get(ctx, name(i), metav1.GetOptions{})
		if err != nil {
			return st, err
		}
		js, err := acctest.ReadJobSet(u)
		if err != nil {
			return st, err
		}
		sets[string(js.UID)] = js
	}
	jobs, err := core.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, err
	}
	children := map[string][]batchv1.Job{} // JobSet UID: its Jobs
	resumedJobs := map[string]int{}        // JobSet UID: its unsuspended Jobs
	for _, j := range jobs.Items {
		for _, o := range j.OwnerReferences {
			if _, ok := sets[string(o.UID)]; ok {
				children[string(o.UID)] = append(children[string(o.UID)], j)
				if !ptr.Deref(j.Spec.Suspend, false) {
					resumedJobs[string(o.UID)]++
				}
			}
		}
	}
	wls, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return st, err
	}
	for _, wl := range wls.Items {
		var js acctest.JobSet
		owned := false
		for _, o := range wl.OwnerReferences {
			if s, ok := sets[string(o.UID)]; ok {
				js, owned = s, true
			}
		}
		if !owned {
			continue
		}
		whole := wl.Status.Admission == nil || wholeAdmission(wl.Status.Admission)
		qr := meta.FindStatusCondition(wl.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved)
		suspended := ptr.Deref(js.Spec.Suspend, false)
		switch {
		case !whole:
			st.partial = append(st.partial, fmt.Sprintf("Workload %s: %+v", wl.Name, wl.Status.Admission.PodSetAssignments))
		case meta.IsStatusConditionTrue(wl.Status.Conditions, kueuev1beta2.WorkloadAdmitted) && wl.Status.Admission != nil:
			st.admitted = append(st.admitted, wl.Name)
			if !suspended && resumedJobs[string(js.UID)] == len(js.Spec.ReplicatedJobs) {
				st.resumed = append(st.resumed, gang{set: js, jobs: children[string(js.UID)]})
			}
		case qr != nil && qr.Status == metav1.ConditionFalse && qr.Reason == "Pending" && strings.Contains(qr.Message, "insufficient unused quota"):
			if !suspended || resumedJobs[string(js.UID)] > 0 {
				st.partial = append(st.partial, fmt.Sprintf("JobSet %s runs (suspend=%v, %d Jobs resumed) while its Workload %s waits for quota",
					js.Name, js.Spec.Suspend, resumedJobs[string(js.UID)], wl.Name))
				continue
			}
			st.pendingForQuota[wl.Name] = qr.Message
		default:
			st.other = append(st.other, fmt.Sprintf("Workload %s %v", wl.Name, wl.Status.Conditions))
		}
	}
	sort.Strings(st.admitted)
	sort.Slice(st.resumed, func(i, j int) bool { return st.resumed[i].set.Name < st.resumed[j].set.Name })
	return st, nil
}

// wholeAdmission: both pod sets of a gang assigned, each with all its 2 pods.
func wholeAdmission(a *kueuev1beta2.Admission) bool {
	if len(a.PodSetAssignments) != 2 {
		return false
	}
	for _, p := range a.PodSetAssignments {
		if ptr.Deref(p.Count, 0) != 2 {
			return false
		}
	}
	return true
}

// deleteJobSetsAndWait deletes the n JobSets and waits (bounded) until they,
// the Jobs the JobSet controller made of them, and their Workloads are gone,
// so the team namespace holds nothing unfinished for its destroy.
func deleteJobSetsAndWait(ctx context.Context, dyn dynamic.Interface, core kubernetes.Interface, kq kueueclient.Interface,
	ns string, name func(int) string, n int,
) error {
	for i := 0; i < n; i++ {
		_ = dyn.Resource(acctest.JobSets).Namespace(ns).Delete(ctx, name(i), metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationForeground)})
	}
	var left string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		sets, err := dyn.Resource(acctest.JobSets).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		jobs, err := core.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		wls, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		left = fmt.Sprintf("%d JobSets, %d Jobs, %d Workloads", len(sets.Items), len(jobs.Items), len(wls.Items))
		return len(sets.Items)+len(jobs.Items)+len(wls.Items) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("cleanup: %s still in %s 90s after the JobSets were deleted: %w", left, ns, err)
	}
	return nil
}
