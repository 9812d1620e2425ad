package upgradetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/bench"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// The upgrade path users take: examples/training-cluster applied with the
// oldest supported Kueue (the CLI and the provider binary, as a user runs
// them), a team's job admitted; then Kueue replaced by the newest release
// as an operator does it (manager stopped, the new release's CRDs and
// webhooks applied over the old, the new manager started on the same etcd
// and API server). The next plan is empty, the job admitted before is still
// admitted, and a new one is admitted; doctor names each release.
func TestAccUpgradeOldestToNewestKueue(t *testing.T) {
	e := acctest.Env(t)
	core, kq := acctest.Kube(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	if got := e.KueueVersion(); got != kueue.OldestVersion {
		t.Fatalf("the environment runs Kueue %s, want the oldest supported, %s (%s)", got, kueue.OldestVersion, testenv.EnvBinsOldest)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cli := acctest.NewCLI(ctx, t, root,
		"MLPLATFORM_KUBECONFIG="+e.Kubeconfig, "MLPLATFORM_PROJECT="+e.Project, "MLPLATFORM_LOCATION="+e.Location,
		"MLPLATFORM_CLUSTER="+e.Cluster, "MLPLATFORM_CONTAINER_ENDPOINT="+e.GCP.Addr(), "MLPLATFORM_IAM_ENDPOINT="+e.GCP.Addr(),
		"MLPLATFORM_INSECURE_ENDPOINTS=true")
	example, err := bench.LoadExample(filepath.Join(root, bench.Example))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteExample(cli.Dir, example); err != nil {
		t.Fatal(err)
	}
	cli.Run("get", "-no-color")
	t.Cleanup(func() {
		if out, code := cli.RunCode("destroy", "-auto-approve", "-input=false", "-no-color"); code != 0 {
			t.Errorf("destroy exited %d:\n%s", code, out)
		}
	})
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("Kueue %s: plan after apply exited %d (2: not empty):\n%s", kueue.OldestVersion, code, out)
	}
	const ns, queue = "team-vision", "gpu"
	submit := func(name string) {
		t.Helper()
		if _, err := core.BatchV1().Jobs(ns).Create(ctx, acctest.QueuedJob(ns, name, queue, "4", "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		bg := metav1.DeletePropagationBackground
		_ = core.BatchV1().Jobs(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{PropagationPolicy: &bg}, metav1.ListOptions{})
		// destroy waits for the namespace to hold no unfinished work
		_ = wait.PollUntilContextTimeout(context.Background(), time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			l, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 0, nil
		})
	})
	submit("before-upgrade")
	admitted(ctx, t, core, kq, ns, "before-upgrade")
	doctorNames(ctx, t, e, kueue.OldestVersion)

	newest := os.Getenv(testenv.EnvBins)
	start := time.Now()
	if err := e.ReplaceKueue(ctx, newest); err != nil {
		t.Fatalf("replacing Kueue by the release in %s: %v", newest, err)
	}
	t.Logf("Kueue %s replaced by %s in %s", kueue.OldestVersion, e.KueueVersion(), time.Since(start).Round(time.Millisecond))
	if got := e.KueueVersion(); got != kueue.NewestVersion {
		t.Fatalf("after the upgrade the environment runs Kueue %s, want %s", got, kueue.NewestVersion)
	}
	// The new manager reconciles the queues it finds: wait until it has
	// (the ClusterQueues Active under it) before planning.
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		l, err := kq.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) == 0 {
			return false, nil
		}
		for _, cq := range l.Items {
			active := false
			for _, c := range cq.Status.Conditions {
				active = active || c.Type == "Active" && c.Status == metav1.ConditionTrue
			}
			if !active {
				return false, nil
			}
		}
		return true, nil
	}); err != nil {
		t.Fatalf("the ClusterQueues are not all Active under Kueue %s: %v", kueue.NewestVersion, err)
	}
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("Kueue %s: the first plan after the upgrade exited %d (2: not empty):\n%s", kueue.NewestVersion, code, out)
	}
	admitted(ctx, t, core, kq, ns, "before-upgrade")
	submit("after-upgrade")
	admitted(ctx, t, core, kq, ns, "after-upgrade")
	doctorNames(ctx, t, e, kueue.NewestVersion)
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("Kueue %s: plan with the jobs admitted exited %d (2: not empty):\n%s", kueue.NewestVersion, code, out)
	}
}

// admitted waits until Kueue has admitted the Job: its Workload's Admitted
// condition is True and the Job is unsuspended.
func admitted(ctx context.Context, t *testing.T, core kubernetes.Interface, kq kueueclient.Interface, ns, name string) {
	t.Helper()
	last := "no Workload"
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		j, err := core.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil || j.Spec.Suspend == nil || *j.Spec.Suspend {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		wls, err := kq.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		for _, wl := range wls.Items {
			for _, o := range wl.OwnerReferences {
				if o.Kind == "Job" && o.Name == name {
					last = fmt.Sprintf("Workload %s: %+v", wl.Name, wl.Status.Conditions)
					return apimeta.IsStatusConditionTrue(wl.Status.Conditions, "Admitted"), nil
				}
			}
		}
		return false, nil
	}); err != nil {
		t.Fatalf("Kueue did not admit job %s/%s within 90 s (%s): %v", ns, name, last, err)
	}
}

// doctorNames runs doctor on the environment: it names the release Kueue's
// ConfigMap says, as supported.
func doctorNames(ctx context.Context, t *testing.T, e *testenv.Env, version string) {
	t.Helper()
	args := []string{"--kubeconfig", e.Kubeconfig, "--project", e.Project, "--location", e.Location,
		"--cluster", e.Cluster, "--container-endpoint", e.GCP.Addr(), "--insecure-endpoints"}
	var out, errOut bytes.Buffer
	code := doctor.Command(ctx, args, &out, &errOut, func(string) string { return "" })
	want := fmt.Sprintf("Kueue %s (from the app.kubernetes.io/version label of ConfigMap kueue-system/kueue-manager-config): supported", version)
	if !strings.Contains(out.String(), want) {
		t.Errorf("doctor (exit %d) does not say %q:\n%s%s", code, want, out.String(), errOut.String())
	}
}
