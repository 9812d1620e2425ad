package multikueuetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// TestAccMultiKueueDispatchesJobSets: a gang (a JobSet of 2 replicated jobs
// × 2 pods × 1 GPU) goes through MultiKueue like a Job, with the CLI and
// the provider binary, the manager and worker-1 and worker-2 on the real
// Kueue and JobSet controllers:
//   - submitted to the team's LocalQueue in the manager, with only the
//     queue-name label, it is given to MultiKueue (spec.managedBy), its
//     Workload is admitted by worker-2, the worker with quota (status.clusterName
//     and the check's message name it), and worker-2 holds the JobSet, whose
//     JobSet controller made its 2 Jobs; worker-1 holds none;
//   - worker-2's ClusterRole as the previous release wrote it (Jobs and
//     Workloads only) and its state as that release stored it (no
//     frameworks): a second JobSet is reserved quota in worker-2 but not
//     created there (the manager's Workload names no worker); the plan shows
//     worker_access drift "ClusterRole mlplatform-multikueue rules lack
//     JobSets (MultiKueue cannot dispatch them)" and an in-place update of frameworks and worker_access (no
//     replacement, worker-1 untouched); `mlplatform doctor
//     --multikueue-workers` on the manager exits 6 with DOC019 naming
//     JobSets in worker-2, none on worker-1; applied, doctor has nothing on worker-2, the role grants JobSets
//     again, the plan is empty, and the waiting JobSet is dispatched to
//     worker-2.
func TestAccMultiKueueDispatchesJobSets(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	createNamespaces(ctx, t, m)
	cli := acctest.NewCLI(ctx, t, filepath.Join("..", ".."))
	cfg := providers(m, "  retry_timeout = \"5s\"\n", true) + workers(m, "", both) +
		teamQueue("", 8) + teamQueue("worker1", 0) + teamQueue("worker2", 8)
	if err := os.WriteFile(filepath.Join(cli.Dir, "main.tf"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() {
		deleteJobSets(ctx, m)
		if out, code := cli.RunCode("destroy", "-auto-approve", "-input=false", "-no-color"); code != 0 {
			t.Errorf("destroy exited %d:\n%s", code, out)
		}
	}()
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("the plan after apply is not empty (exit %d):\n%s", code, out)
	}

	submitJobSet(ctx, t, m, "gang-1")
	wl, err := admittedBy(ctx, m, "JobSet", "gang-1")
	if err != nil {
		t.Fatal(err)
	}
	if got := *wl.Status.ClusterName; got != "worker-2" {
		t.Fatalf("JobSet gang-1 was admitted by %s, want worker-2 (the only worker with quota)", got)
	}
	ac := workloadCheck(wl, "multikueue")
	// Kueue v0.19 says "The workload was admitted on", v0.17 "The workload
	// got reservation on": the worker is what matters.
	if ac == nil || ac.State != kueuev1beta2.CheckStateReady || !strings.HasSuffix(ac.Message, ` on "worker-2"`) {
		t.Fatalf("the manager's Workload's MultiKueue check is %+v, want Ready, on worker-2", ac)
	}
	if err := workerHoldsJobSet(ctx, m.Workers[1], "gang-1", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := jobSets(m.Workers[0]).Get(ctx, "gang-1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("worker-1, without quota, holds JobSet gang-1 too (err %v)", err)
	}
	t.Logf("JobSet gang-1: %s", ac.Message)

	// The previous release: worker-2's role grants Jobs and Workloads only,
	// and its state has no frameworks.
	w2core, _ := clients(t, m.Workers[1])
	role, err := w2core.RbacV1().ClusterRoles().Get(ctx, spec.DefaultWorkerServiceAccount, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role.Rules = nil
	for _, r := range spec.WorkerRBAC([]string{"batch/job"}) {
		role.Rules = append(role.Rules, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs})
	}
	if _, err := w2core.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stateWithoutFrameworks(t, cli, "w2")

	// A gang submitted now gets quota in worker-2, which the manager cannot
	// create it in.
	submitJobSet(ctx, t, m, "gang-2")
	remote := reservedIn(ctx, t, m, m.Workers[1], "gang-2")
	time.Sleep(5 * time.Second) // the manager's retries, refused by the worker
	if _, err := jobSets(m.Workers[1]).Get(ctx, "gang-2", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("worker-2 holds JobSet gang-2 although its role lacks JobSets (err %v): the role change proves nothing", err)
	}
	if got, err := kueueclient.NewForConfigOrDie(m.Manager.REST).KueueV1beta2().Workloads(team).Get(ctx, remote, metav1.GetOptions{}); err != nil ||
		got.Status.ClusterName != nil {
		t.Fatalf("the manager's Workload of gang-2 names worker %v while the worker refuses JobSets (err %v)", got.Status.ClusterName, err)
	}

	// Doctor, on the manager, asking each worker as the manager: worker-2
	// refuses JobSets, worker-1 is fine; exit 6.
	if f := workerFinding(ctx, t, m, true, "worker-2"); f == nil ||
		!strings.Contains(f.Message, "may not create, delete, get, list, watch jobsets.jobset.x-k8s.io; get jobsets/status.jobset.x-k8s.io:") || !strings.Contains(f.Message, "MultiKueue cannot dispatch JobSets to it") {
		t.Fatalf("doctor --multikueue-workers: DOC019 on worker-2 is %+v, want one naming JobSets", f)
	}
	if f := workerFinding(ctx, t, m, false, "worker-1"); f != nil {
		t.Fatalf("doctor --multikueue-workers: DOC019 on worker-1, whose role is whole: %+v", f)
	}

	const w2addr = "mlplatform_multikueue_cluster.w2"
	plan := cli.PlanChecked(
		acctest.ExpectDrift(w2addr, "worker_access", "granted", "ClusterRole mlplatform-multikueue rules lack JobSets (MultiKueue cannot dispatch them)"),
		plancheck.ExpectResourceAction(w2addr, plancheck.ResourceActionUpdate),
		acctest.ExpectOnlyChanges(w2addr, "frameworks", "worker_access"),
		plancheck.ExpectResourceAction(w1, plancheck.ResourceActionNoop),
	)
	start := time.Now()
	cli.Run("apply", "-input=false", "-no-color", plan)
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("the plan after the apply that restored the role is not empty (exit %d):\n%s", code, out)
	}
	role, err = w2core.RbacV1().ClusterRoles().Get(ctx, spec.DefaultWorkerServiceAccount, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(role.Rules, func(r rbacv1.PolicyRule) bool {
		return slices.Contains(r.APIGroups, "jobset.x-k8s.io") && slices.Contains(r.Resources, "jobsets") && slices.Contains(r.Verbs, "create")
	}) {
		t.Fatalf("the applied role does not grant JobSets: %+v", role.Rules)
	}
	if f := workerFinding(ctx, t, m, false, "worker-2"); f != nil {
		t.Fatalf("doctor --multikueue-workers after the apply that restored the role: %+v", f)
	}
	wl, err = admittedBy(ctx, m, "JobSet", "gang-2")
	if err != nil {
		t.Fatal(err)
	}
	if got := *wl.Status.ClusterName; got != "worker-2" {
		t.Fatalf("JobSet gang-2 was admitted by %s, want worker-2", got)
	}
	if err := workerHoldsJobSet(ctx, m.Workers[1], "gang-2", 2); err != nil {
		t.Fatal(err)
	}
	t.Logf("JobSet gang-2 dispatched to worker-2 within %s of the apply that restored the role", time.Since(start).Round(100*time.Millisecond))
}

// workerFinding runs `mlplatform doctor --multikueue-workers` on the
// manager and returns its DOC019 finding on MultiKueueCluster worker (nil
// when there is none). failed says whether the run must exit 6 (a finding),
// else it is not checked (the manager may have other findings).
func workerFinding(ctx context.Context, t *testing.T, m *testenv.Multi, failed bool, worker string) *doctor.Finding {
	t.Helper()
	var out, errOut bytes.Buffer
	code := doctor.Command(ctx, []string{"--kubeconfig", m.Manager.Kubeconfig, "--multikueue-workers", "--format", "json"}, &out, &errOut,
		func(string) string { return "" })
	if failed && code != doctor.ExitFindings || code != doctor.ExitOK && code != doctor.ExitFindings {
		t.Fatalf("doctor exited %d:\n%s%s", code, out.String(), errOut.String())
	}
	var res doctor.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("doctor --format json: %v\n%s", err, out.String())
	}
	// A worker doctor could not ask has no finding either: that is no
	// verdict, and the test's "nothing on worker" would hold vacuously.
	for _, n := range res.Notes {
		if strings.HasPrefix(n, "MultiKueue worker "+worker+" could not be asked") || strings.Contains(n, "were not asked") {
			t.Fatalf("doctor did not ask %s: %s", worker, n)
		}
	}
	for i, f := range res.Findings {
		if f.ID == doctor.CheckMultiKueueWorker.ID && f.Object() == "MultiKueueCluster "+worker {
			t.Logf("doctor: %s", f.Message)
			return &res.Findings[i]
		}
	}
	return nil
}

func jobSets(e *testenv.Env) dynamic.ResourceInterface {
	return dynamic.NewForConfigOrDie(e.REST).Resource(acctest.JobSets).Namespace(team)
}

// submitJobSet creates a gang of 2 replicated jobs × 2 pods × 1 GPU in the
// manager's team LocalQueue "gpu"; Kueue's webhook gives it to MultiKueue.
func submitJobSet(ctx context.Context, t *testing.T, m *testenv.Multi, name string) {
	t.Helper()
	u, err := jobSets(m.Manager).Create(ctx, acctest.QueuedJobSet(team, name, "gpu", []string{"leader", "workers"}, 2, "", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := acctest.ReadJobSet(u)
	if err != nil {
		t.Fatal(err)
	}
	if js.Spec.ManagedBy == nil || *js.Spec.ManagedBy != kueuev1beta2.MultiKueueControllerName {
		t.Fatalf("JobSet %s: spec.managedBy is %v after create in the manager, want %s set by Kueue", name, js.Spec.ManagedBy, kueuev1beta2.MultiKueueControllerName)
	}
}

// workloadCheck is the state of admission check name in wl.
func workloadCheck(wl *kueuev1beta2.Workload, name string) *kueuev1beta2.AdmissionCheckState {
	for i, ac := range wl.Status.AdmissionChecks {
		if string(ac.Name) == name {
			return &wl.Status.AdmissionChecks[i]
		}
	}
	return nil
}

// workerHoldsJobSet waits until worker holds JobSet name, with the jobs
// Jobs its JobSet controller makes.
func workerHoldsJobSet(ctx context.Context, worker *testenv.Env, name string, jobs int) error {
	core := kubernetes.NewForConfigOrDie(worker.REST)
	var n int
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		if _, err := jobSets(worker).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		l, err := core.BatchV1().Jobs(team).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + name})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		n = len(l.Items)
		return n == jobs, nil
	})
	if err != nil {
		return fmt.Errorf("%s does not hold JobSet %s with its %d Jobs (%d Jobs): %w", worker.Cluster, name, jobs, n, err)
	}
	return nil
}

// reservedIn waits until the manager's Workload of JobSet name has a copy
// in worker that holds quota there, and returns the Workload's name.
func reservedIn(ctx context.Context, t *testing.T, m *testenv.Multi, worker *testenv.Env, name string) string {
	t.Helper()
	kq := kueueclient.NewForConfigOrDie(m.Manager.REST)
	wq := kueueclient.NewForConfigOrDie(worker.REST)
	var wlName string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		wls, err := kq.KueueV1beta2().Workloads(team).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		wl := ownedBy(wls.Items, "JobSet", name)
		if wl == nil {
			return false, nil
		}
		wlName = wl.Name
		rw, err := wq.KueueV1beta2().Workloads(team).Get(ctx, wlName, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		return meta.IsStatusConditionTrue(rw.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved), nil
	})
	if err != nil {
		t.Fatalf("JobSet %s: no Workload %q with quota in %s: %v", name, wlName, worker.Cluster, err)
	}
	return wlName
}

// deleteJobSets deletes the team's JobSets in every cluster, then its Jobs
// and their Workloads (deleteJobs).
func deleteJobSets(ctx context.Context, m *testenv.Multi) {
	for _, e := range m.Envs() {
		_ = jobSets(e).DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			l, err := jobSets(e).List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, nil
		})
	}
	deleteJobs(ctx, m)
}

// stateWithoutFrameworks makes the CLI's state of
// mlplatform_multikueue_cluster.NAME what releases before frameworks
// stored: the same schema version, without the attribute.
func stateWithoutFrameworks(t *testing.T, cli *acctest.CLI, name string) {
	t.Helper()
	path := filepath.Join(cli.Dir, "terraform.tfstate")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range st["resources"].([]any) {
		r := r.(map[string]any)
		if r["type"] != "mlplatform_multikueue_cluster" || r["name"] != name {
			continue
		}
		for _, inst := range r["instances"].([]any) {
			attrs := inst.(map[string]any)["attributes"].(map[string]any)
			if _, ok := attrs["frameworks"]; !ok {
				t.Fatalf("mlplatform_multikueue_cluster.%s's state has no frameworks to remove", name)
			}
			delete(attrs, "frameworks")
			found = true
		}
	}
	if !found {
		t.Fatalf("no mlplatform_multikueue_cluster.%s in the state", name)
	}
	out, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}
