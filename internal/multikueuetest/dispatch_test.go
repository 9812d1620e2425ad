package multikueuetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

const team = "team-a"

// teamQueue is a team's flavor, ClusterQueue and LocalQueue "gpu" in one
// cluster (provider alias, "" for the manager), with gpus of quota; the
// manager's lists the MultiKueue check.
func teamQueue(alias string, gpus int) string {
	provider, checks, flavor := "", "", "h100"
	if alias == "" {
		alias, flavor = "manager", "default"
		checks = "  admission_checks   = { (mlplatform_multikueue_check.regions.name) = {} }\n"
	} else {
		provider = "  provider = mlplatform." + alias + "\n"
	}
	return fmt.Sprintf(`
resource "mlplatform_resource_flavor" "%[1]s" {
%[2]s  name = %[3]q
}

resource "mlplatform_cluster_queue" "%[1]s" {
%[2]s  name               = %[5]q
  namespace_selector = {}
%[4]s  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors           = [{ name = mlplatform_resource_flavor.%[1]s.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "%[6]d" }] }]
  }]
}

resource "mlplatform_local_queue" "%[1]s" {
%[2]s  namespace     = %[5]q
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.%[1]s.name
}
`, alias, provider, flavor, checks, team, gpus)
}

// dispatched submits a Job in the manager and waits until the manager's
// Workload says which worker admitted it; that worker must hold the Job.
func dispatched(ctx context.Context, m *testenv.Multi, name string) (string, error) {
	core := kubernetes.NewForConfigOrDie(m.Manager.REST)
	job, err := core.BatchV1().Jobs(team).Create(ctx, acctest.QueuedJob(team, name, "gpu", "", "1"), metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	// The team sets only the queue-name label; Kueue's webhook in the
	// manager gives the Job to MultiKueue (the MultiKueue guide says so).
	if job.Spec.ManagedBy == nil || *job.Spec.ManagedBy != "kueue.x-k8s.io/multikueue" {
		return "", fmt.Errorf("job %s: spec.managedBy is %v after create in the manager, want kueue.x-k8s.io/multikueue set by Kueue", name, job.Spec.ManagedBy)
	}
	wl, err := admittedBy(ctx, m, "Job", name)
	if err != nil {
		return "", err
	}
	cluster := *wl.Status.ClusterName
	for i, w := range m.Workers {
		if fmt.Sprintf("worker-%d", i+1) != cluster {
			continue
		}
		wcore := kubernetes.NewForConfigOrDie(w.REST)
		err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := wcore.BatchV1().Jobs(team).Get(ctx, name, metav1.GetOptions{})
			return err == nil, nil
		})
		if err != nil {
			return cluster, fmt.Errorf("job %s: admitted by %s, which does not hold the Job: %w", name, cluster, err)
		}
	}
	return cluster, nil
}

// ownedBy is the Workload in wls that Kueue made for the kind/name (its
// owner), or nil.
func ownedBy(wls []kueuev1beta2.Workload, kind, name string) *kueuev1beta2.Workload {
	for i, wl := range wls {
		if slices.ContainsFunc(wl.OwnerReferences, func(o metav1.OwnerReference) bool { return o.Kind == kind && o.Name == name }) {
			return &wls[i]
		}
	}
	return nil
}

// admittedBy waits until the manager's Workload of the kind/name in the
// team's namespace names the worker that admitted it (status.clusterName,
// which Kueue sets with the MultiKueue check's Ready state) and returns it.
func admittedBy(ctx context.Context, m *testenv.Multi, kind, name string) (*kueuev1beta2.Workload, error) {
	kq := kueueclient.NewForConfigOrDie(m.Manager.REST)
	var admitted *kueuev1beta2.Workload
	var last string
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		wls, err := kq.KueueV1beta2().Workloads(team).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		wl := ownedBy(wls.Items, kind, name)
		if wl == nil {
			return false, nil
		}
		last = fmt.Sprintf("%+v", wl.Status)
		if wl.Status.ClusterName != nil && *wl.Status.ClusterName != "" {
			admitted = wl
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		lqs, _ := kq.KueueV1beta2().LocalQueues(team).List(ctx, metav1.ListOptions{})
		var queues []string
		for _, q := range lqs.Items {
			queues = append(queues, fmt.Sprintf("%s→%s %+v", q.Name, q.Spec.ClusterQueue, q.Status.Conditions))
		}
		if os.Getenv("MLPLATFORM_TEST_DEBUG") != "" { // print what each cluster holds, and Kueue's log lines about the job
			for _, e := range m.Envs() {
				wq := kueueclient.NewForConfigOrDie(e.REST)
				lqs, _ := wq.KueueV1beta2().LocalQueues(team).List(ctx, metav1.ListOptions{})
				wls, _ := wq.KueueV1beta2().Workloads(team).List(ctx, metav1.ListOptions{})
				fmt.Println("CLUSTER", e.Cluster, "lqs", len(lqs.Items), "wls", len(wls.Items))
				for _, w := range wls.Items {
					fmt.Printf("CLUSTER %s wl %s %+v\n", e.Cluster, w.Name, w.Status.AdmissionChecks)
				}
				data, _ := os.ReadFile(filepath.Join(e.Dir, "logs", "kueue.log"))
				for _, l := range strings.Split(string(data), "\n") {
					if strings.Contains(l, strings.ToLower(kind)+"-"+name) || strings.Contains(l, "gpu") {
						fmt.Println(e.Cluster, l)
					}
				}
			}
		}
		return nil, fmt.Errorf("%s %s: the manager's Workload names no worker (last status %s; manager LocalQueues %v): %w", kind, name, last, queues, err)
	}
	return admitted, nil
}

// createNamespaces creates the team's namespace in every cluster (the
// worker mirrors the manager's namespaces and LocalQueues, as MultiKueue
// requires), labelled as mlplatform_team_namespace labels it: Kueue
// (v0.15 on) manages jobs only in the namespaces its
// managedJobsNamespaceSelector selects, queue-name label or not, and the
// platform's configuration selects the team namespaces. Unlabelled, a Job
// in the manager would never be admitted, nor one dispatched to a worker.
func createNamespaces(ctx context.Context, t *testing.T, m *testenv.Multi) {
	t.Helper()
	for _, e := range m.Envs() {
		core := kubernetes.NewForConfigOrDie(e.REST)
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: team, Labels: map[string]string{spec.TeamLabel: team}}}
		if _, err := core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
}

// deleteJobs deletes the Jobs of namespace ns (default the team's) in every
// cluster and waits for their Workloads to go, so they do not hold up the
// queues' (or the namespace's) deletion.
func deleteJobs(ctx context.Context, m *testenv.Multi, ns ...string) {
	namespace := team
	if len(ns) > 0 {
		namespace = ns[0]
	}
	for _, e := range m.Envs() {
		core := kubernetes.NewForConfigOrDie(e.REST)
		_ = core.BatchV1().Jobs(namespace).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}, metav1.ListOptions{})
		kq := kueueclient.NewForConfigOrDie(e.REST)
		_ = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
			wls, err := kq.KueueV1beta2().Workloads(namespace).List(ctx, metav1.ListOptions{})
			return err == nil && len(wls.Items) == 0, nil
		})
	}
}

// TestAccMultiKueueDispatch applies, with the Terraform CLI and the provider
// binary (one plugin process per provider alias, as in production), the
// manager's MultiKueue resources and team queue plus each worker's queue
// through its alias:
//   - a Job submitted to the team's LocalQueue in the manager runs in the
//     worker with quota for it (worker-2), as the manager's Workload says;
//     with the quotas swapped, the next Job runs in worker-1;
//   - with worker-1's API server stopped, an apply that writes to it fails
//     within its bound naming worker-1, and worker-2 keeps admitting; with
//     the API server back, the next apply repairs and the plan is empty.
func TestAccMultiKueueDispatch(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	createNamespaces(ctx, t, m)
	cli := acctest.NewCLI(ctx, t, filepath.Join("..", ".."))
	apply := func(cfg string) ([]byte, int) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(cli.Dir, "main.tf"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		return cli.RunCode("apply", "-auto-approve", "-input=false", "-no-color")
	}
	mustApply := func(cfg string) {
		t.Helper()
		if out, code := apply(cfg); code != 0 {
			t.Fatalf("apply exited %d:\n%s", code, out)
		}
		if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
			t.Fatalf("the plan after apply is not empty (exit %d):\n%s", code, out)
		}
	}
	config := func(q1, q2 int, w1Extra string) string {
		return providers(m, "  retry_timeout = \"5s\"\n", true) + workers(m, w1Extra, both) +
			teamQueue("", 8) + teamQueue("worker1", q1) + teamQueue("worker2", q2)
	}
	defer func() {
		deleteJobs(ctx, m)
		if out, code := cli.RunCode("destroy", "-auto-approve", "-input=false", "-no-color"); code != 0 {
			t.Errorf("destroy exited %d:\n%s", code, out)
		}
	}()
	expect := func(job, want string) {
		t.Helper()
		got, err := dispatched(ctx, m, job)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("job %s ran in %s, want %s", job, got, want)
		}
		t.Logf("job %s: the manager's Workload says it was admitted by %s", job, got)
	}

	mustApply(config(0, 4, ""))
	expect("first", "worker-2")
	mustApply(config(4, 0, ""))
	expect("second", "worker-1")

	// worker-1's API server stops. worker-2 gets quota again.
	mustApply(config(4, 4, ""))
	if err := m.Workers[0].StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	restarted := false
	defer func() {
		if !restarted {
			_ = m.Workers[0].RestartAPIServer(ctx)
		}
	}()
	t0 := time.Now()
	// The plan refreshes worker-1's queues through its alias too, so the
	// apply fails there first or at the MultiKueue worker: either way the
	// message must name worker-1's cluster, not only an address.
	out, code := apply(config(4, 4, "  token_validity = \"200h\"\n"))
	took := time.Since(t0)
	t.Logf("apply with worker-1 down: exit %d after %s:\n%s", code, took.Round(time.Second), out)
	if code == 0 {
		t.Fatal("the apply succeeded with worker-1's API server stopped")
	}
	// Terraform wraps the detail at 80 columns: match across white space.
	named := regexp.MustCompile(`(?s)Error: .*API\s+server\s+of\s+cluster\s+worker-1\s+\(https://127\.0\.0\.1:\d+\)\s+could\s+not\s+be\s+reached`)
	if !named.Match(out) {
		t.Errorf("the failed apply's error does not say worker-1 could not be reached:\n%s", out)
	}
	if took > 2*time.Minute {
		t.Errorf("the failed apply took %s, more than its 2m bound", took)
	}
	expect("while-down", "worker-2")

	// The guide's way on while it is down: take it out of the check, applying
	// only the check (a whole plan cannot refresh worker-1's queues).
	onlyW2 := providers(m, "  retry_timeout = \"5s\"\n", true) + workers(m, "", "mlplatform_multikueue_cluster.w2.name") +
		teamQueue("", 8) + teamQueue("worker1", 4) + teamQueue("worker2", 4)
	if err := os.WriteFile(filepath.Join(cli.Dir, "main.tf"), []byte(onlyW2), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := cli.RunCode("apply", "-auto-approve", "-input=false", "-no-color", "-refresh=false", "-target=mlplatform_multikueue_check.regions"); code != 0 {
		t.Fatalf("removing worker-1 from the check while it is down: exit %d:\n%s", code, out)
	}
	if cfg, err := kueueclient.NewForConfigOrDie(m.Manager.REST).KueueV1beta2().MultiKueueConfigs().Get(ctx, "multikueue", metav1.GetOptions{}); err != nil ||
		strings.Join(cfg.Spec.Clusters, ",") != "worker-2" {
		t.Fatalf("the check lists %v (err %v), want [worker-2]", cfg, err)
	}
	expect("after-removal", "worker-2")

	if err := m.Workers[0].RestartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	restarted = true
	mustApply(config(4, 4, ""))
	deleteJobs(ctx, m)
}
