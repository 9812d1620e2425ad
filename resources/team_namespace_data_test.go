package resources_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Destroying a team namespace that holds a checkpoint volume, a running Job
// (admitted by Kueue, which holds every job in a team namespace), a queued
// JobSet (the real JobSet CRD, suspended by Kueue's webhook, its
// Jobs made by the real JobSet controller) and a pending Kueue Workload is
// refused at plan time, naming each of them once (not the JobSet's Jobs or
// Workload), and nothing of that destroy is deleted: not the namespace, not
// the queue and the network policies in it that Terraform would delete
// first. A JobSet the JobSet controller reports Completed holds nothing.
// With force_destroy = true applied, the destroy goes, and takes them along.
func TestAccTeamNamespaceDestroyProtectsData(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	core, kq := acctest.Kube(t)
	ctx := context.Background()
	const ns = "acc-data-team"
	dyn, err := dynamic.NewForConfig(acctest.Env(t).REST)
	if err != nil {
		t.Fatal(err)
	}
	jobSets := dyn.Resource(acctest.JobSets).Namespace(ns)
	cfg := func(force string) string {
		return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_team_namespace" "team" {
  name = %q
  team = "data"
  %s
}

resource "mlplatform_local_queue" "gpu" {
  namespace       = mlplatform_team_namespace.team.name
  name            = "gpu"
  cluster_queue   = "acc-data-cq"
  wait_for_active = false
}

resource "mlplatform_training_network_policy" "team" {
  namespace = mlplatform_team_namespace.team.name
}
`, ns, force)
	}
	givenData := func() {
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "checkpoints"}, Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: k8sresource.MustParse("10Gi")}},
		}}
		if _, err := core.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// A Job runs in a team namespace once Kueue admits it (Kueue holds
		// every job there, with a queue name or not): the team's queue gets
		// a ClusterQueue that admits what asks for no GPU.
		givenClusterQueue(ctx, t, kq, "acc-data-cq")
		pod := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "train", Image: "trainer:1"}}}
		// Created suspended, as Kueue's Job webhook (not installed in the
		// single-cluster environment) leaves a queued Job: created running,
		// Kueue's reconciler would stop it for want of a Workload instead.
		if _, err := core.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "llama-finetune",
			Labels: map[string]string{"kueue.x-k8s.io/queue-name": "gpu"}},
			Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: pod}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// Admitted, Kueue resumes it; then the job controller (which the
		// environment does not run) would report its pod running.
		if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			j, err := core.BatchV1().Jobs(ns).Get(ctx, "llama-finetune", metav1.GetOptions{})
			if err != nil || ptr.Deref(j.Spec.Suspend, true) {
				return false, nil //nolint:nilerr // retried until the deadline
			}
			j.Status.Active, j.Status.StartTime = 1, ptr.To(metav1.Now())
			_, err = core.BatchV1().Jobs(ns).UpdateStatus(ctx, j, metav1.UpdateOptions{})
			return err == nil, nil // a conflict: Kueue wrote it meanwhile, read it again
		}); err != nil {
			t.Fatalf("Kueue did not admit (resume) Job llama-finetune within 60s: %v", err)
		}
		gpuPod := *acctest.QueuedJob(ns, "eval-sweep", "gpu", "", "1").Spec.Template.Spec.DeepCopy() // no quota for GPUs: pending
		wl := &kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Name: "eval-sweep"}, Spec: kueuev1beta2.WorkloadSpec{
			QueueName: "gpu",
			PodSets:   []kueuev1beta2.PodSet{{Name: "main", Count: 1, Template: corev1.PodTemplateSpec{Spec: gpuPod}}},
		}}
		if _, err := kq.KueueV1beta2().Workloads(ns).Create(ctx, wl, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		givenJobSets(ctx, t, core, jobSets)
	}
	stillThere := func() {
		if _, err := core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
			t.Fatalf("the refused destroy deleted the namespace: %v", err)
		}
		if _, err := kq.KueueV1beta2().LocalQueues(ns).Get(ctx, "gpu", metav1.GetOptions{}); err != nil {
			t.Fatalf("the refused destroy deleted the LocalQueue in the namespace: %v", err)
		}
		if _, err := core.NetworkingV1().NetworkPolicies(ns).Get(ctx, "mlplatform-default-deny", metav1.GetOptions{}); err != nil {
			t.Fatalf("the refused destroy deleted the network policies in the namespace: %v", err)
		}
		if _, err := core.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "checkpoints", metav1.GetOptions{}); err != nil {
			t.Fatalf("the refused destroy deleted the checkpoints: %v", err)
		}
		if js, err := jobSets.Get(ctx, "pretrain-gang", metav1.GetOptions{}); err != nil || js.GetDeletionTimestamp() != nil {
			t.Fatalf("the refused destroy deleted the JobSet (err=%v)", err)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			// force_destroy: the namespace and all it held are gone
			deadline := time.Now().Add(2 * time.Minute)
			for {
				_, err := core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("namespace %s still exists after a forced destroy (err=%v)", ns, err)
				}
				time.Sleep(200 * time.Millisecond)
			}
		},
		Steps: []resource.TestStep{
			{Config: cfg(""), ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				PreConfig: givenData,
				Config:    cfg(""),
				Destroy:   true,
				ExpectError: wrapped(`(?s)Namespace acc-data-team Holds Data.*force_destroy = true.*` +
					`PersistentVolumeClaims checkpoints \(10Gi\); unfinished Jobs llama-finetune \(running, 1 active pods\); ` +
					`unfinished JobSets pretrain-gang \(suspended, e\.g\. waiting in a Kueue queue\); ` +
					`unfinished Kueue Workloads eval-sweep \(pending\)`),
			},
			{ // removing the team from the configuration is refused the same way
				PreConfig:   stillThere,
				Config:      acctest.ProviderConfig(t),
				ExpectError: wrapped(`(?s)Namespace acc-data-team Holds Data.*checkpoints`),
			},
			{ // force_destroy is one attribute, changed in place
				PreConfig: stillThere,
				Config:    cfg("force_destroy = true"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction("mlplatform_team_namespace.team", plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges("mlplatform_team_namespace.team", "force_destroy"),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}

// givenJobSets submits two JobSets to the namespace behind jobSets and
// waits until the real controllers have done with them what the guard reads:
//   - pretrain-gang, labelled for LocalQueue gpu: Kueue's webhook suspends
//     it, Kueue makes its Workload, the JobSet controller its 2 Jobs
//     (suspended);
//   - eval-gang, for no queue (Kueue holds it all the same: jobs without a
//     queue name in team namespaces are managed): its one Job is completed
//     here, as the job controller (which the environment does not run) would
//     report it, and the JobSet controller marks the JobSet Completed.
func givenJobSets(ctx context.Context, t *testing.T, core kubernetes.Interface, jobSets dynamic.ResourceInterface) {
	t.Helper()
	ns := "acc-data-team"
	if _, err := jobSets.Create(ctx, acctest.QueuedJobSet(ns, "pretrain-gang", "gpu", []string{"leader", "workers"}, 2, "", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eval := acctest.QueuedJobSet(ns, "eval-gang", "", []string{"eval"}, 1, "", "1")
	eval.SetLabels(nil)
	if _, err := jobSets.Create(ctx, eval, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	children := func(ctx context.Context, owner string) ([]batchv1.Job, error) {
		jobs, err := core.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + owner})
		if err != nil {
			return nil, err
		}
		return jobs.Items, nil
	}
	// The JobSet controller makes the Jobs.
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		pretrain, err := children(ctx, "pretrain-gang")
		if err != nil || len(pretrain) != 2 {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		for _, j := range pretrain {
			if !ptr.Deref(j.Spec.Suspend, false) {
				return false, fmt.Errorf("the queued JobSet's Job %s is not suspended", j.Name)
			}
		}
		evals, err := children(ctx, "eval-gang")
		return err == nil && len(evals) == 1, nil
	})
	if err != nil {
		t.Fatalf("the JobSet controller did not make the JobSets' Jobs within 60s: %v", err)
	}
	evals, err := children(ctx, "eval-gang")
	if err != nil {
		t.Fatal(err)
	}
	job, now := evals[0], metav1.Now()
	job.Status.StartTime, job.Status.CompletionTime, job.Status.Succeeded = &now, &now, 1
	job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue, LastTransitionTime: now, LastProbeTime: now},
	}
	if _, err := core.BatchV1().Jobs(ns).UpdateStatus(ctx, &job, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("complete Job %s as the job controller would: %v", job.Name, err)
	}
	var conds []metav1.Condition
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		u, err := jobSets.Get(ctx, "eval-gang", metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		js, err := acctest.ReadJobSet(u)
		conds = js.Status.Conditions
		return err == nil && meta.IsStatusConditionTrue(conds, "Completed"), nil
	})
	if err != nil {
		t.Fatalf("the JobSet controller did not mark eval-gang Completed within 60s (conditions %v): %v", conds, err)
	}
}

// The library itself refuses to delete a team namespace that holds data,
// whoever calls it: reconcile.TeamNamespaces, called directly with no
// Terraform, refuses while the namespace holds a PersistentVolumeClaim and
// deletes nothing; with ForceDestroy the namespace goes, with the claim.
// A namespace that is not this caller's (another object than the one its
// ledger recorded) is left before the data is even looked at.
func TestAccTeamNamespacesDeleteHoldsDataLibrary(t *testing.T) {
	t.Parallel()
	c := realKube(t)
	core := c.Core
	for name, tc := range map[string]struct {
		ns       string
		force    bool
		replaced bool                      // the ledger recorded another namespace at that name
		want     *reconcile.HoldsDataError // nil: Delete succeeds
		gone     bool
	}{
		"holds a claim": {ns: "lib-data-refused", want: &reconcile.HoldsDataError{Namespace: "lib-data-refused", PVCs: []string{"checkpoints (10Gi)"}}},
		"forced":        {ns: "lib-data-forced", force: true, gone: true},
		"not its own":   {ns: "lib-data-foreign", replaced: true},
	} {
		ns := tc.ns
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			t.Cleanup(func() { _ = core.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
			ledger := reconcile.NewLedger(nil)
			r, ref := reconcile.NewTeamNamespaces(c), reconcile.Ref{Name: ns}
			desired := spec.TeamNamespace{Name: ns, Team: "lib"}
			if _, err := r.Create(reconcile.WithLedger(ctx, ledger), ref, desired); err != nil {
				t.Fatal(err)
			}
			before, err := core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "checkpoints"}, Spec: corev1.PersistentVolumeClaimSpec{
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: k8sresource.MustParse("10Gi")}},
			}}
			if _, err := core.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if tc.replaced {
				ids := ledger.IDs()
				for k := range ids {
					ids[k] = "another-namespace-uid"
				}
				ledger = reconcile.NewLedger(ids)
			}

			desired.ForceDestroy = tc.force
			err = reconcile.NewTeamNamespaces(c).Delete(reconcile.WithLedger(ctx, ledger), ref, desired)
			var held *reconcile.HoldsDataError
			switch {
			case tc.want == nil && err != nil:
				t.Fatalf("Delete: %v", err)
			case tc.want != nil && (!errors.As(err, &held) || !errors.Is(err, reconcile.ErrHoldsData)):
				t.Fatalf("Delete: %v, want a *HoldsDataError (ErrHoldsData)", err)
			case tc.want != nil:
				if d := cmp.Diff(tc.want, held); d != "" {
					t.Errorf("Delete refused (-want +got):\n%s", d)
				}
			}
			after, err := core.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			switch {
			case tc.gone && !apierrors.IsNotFound(err):
				t.Fatalf("a forced Delete returned, and namespace %s is still there (err=%v)", ns, err)
			case tc.gone:
				return
			case err != nil:
				t.Fatalf("the namespace was deleted: %v", err)
			case after.UID != before.UID || after.DeletionTimestamp != nil:
				t.Fatalf("the namespace was deleted (uid %s → %s, deletionTimestamp %v)", before.UID, after.UID, after.DeletionTimestamp)
			}
			claim, err := core.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "checkpoints", metav1.GetOptions{})
			if err != nil || claim.DeletionTimestamp != nil {
				t.Fatalf("the claim was deleted (err=%v)", err)
			}
			if tc.replaced {
				if f := ledger.Foreign(); len(f) != 1 || !f[0].Left {
					t.Errorf("ledger.Foreign() = %+v, want the namespace found and left", f)
				}
			}
		})
	}
}

// givenClusterQueue creates ClusterQueue name for every namespace, with
// quota for one CPU on a flavor of the same name and none for GPUs: it
// admits a workload that asks for no GPU, and no other. Both are deleted
// when the test ends.
func givenClusterQueue(ctx context.Context, t *testing.T, kq kueueclient.Interface, name string) {
	t.Helper()
	rf := &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := kq.KueueV1beta2().ResourceFlavors().Create(ctx, rf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cq := &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueuev1beta2.ClusterQueueSpec{
		NamespaceSelector: &metav1.LabelSelector{},
		ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"cpu"}, Flavors: []kueuev1beta2.FlavorQuotas{{
			Name: kueuev1beta2.ResourceFlavorReference(name), Resources: []kueuev1beta2.ResourceQuota{{Name: "cpu", NominalQuota: k8sresource.MustParse("1")}},
		}}}},
	}}
	if _, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = kq.KueueV1beta2().ClusterQueues().Delete(context.Background(), name, metav1.DeleteOptions{})
		_ = kq.KueueV1beta2().ResourceFlavors().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
}
