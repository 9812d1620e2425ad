package multikueuetest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// examples/multi-region, with the real CLI against a manager and two
// workers: applied, the second plan is empty, and a Job submitted to team
// vision's LocalQueue in the manager is admitted by a worker, which holds
// it; destroyed at the end. KUBECONFIG points at the manager, as the
// sandbox's env file does: no worker's provider block falls back on it.
func TestAccMultiRegionExample(t *testing.T) {
	m := envs(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cli := acctest.NewCLI(ctx, t, root,
		"KUBECONFIG="+m.Manager.Kubeconfig, "MLPLATFORM_KUBECONFIG="+m.Manager.Kubeconfig,
		"MLPLATFORM_PROJECT="+m.Manager.Project,
		"MLPLATFORM_CONTAINER_ENDPOINT="+m.Manager.GCP.Addr(), "MLPLATFORM_IAM_ENDPOINT="+m.Manager.GCP.Addr(),
		"MLPLATFORM_INSECURE_ENDPOINTS=true")
	// The example uses ../training-cluster/modules/team: copy both, side by
	// side (the example into the working directory).
	for dir, dst := range map[string]string{
		"multi-region": cli.Dir,
		filepath.Join("training-cluster", "modules"): filepath.Join(filepath.Dir(cli.Dir), "training-cluster", "modules"),
	} {
		if err := os.CopyFS(dst, os.DirFS(filepath.Join(root, "examples", dir))); err != nil {
			t.Fatal(err)
		}
	}
	cli.Run("get", "-no-color")
	t.Cleanup(func() {
		deleteJobs(context.Background(), m, "team-vision") // else the namespace refuses to go: it holds unfinished work
		if out, code := cli.RunCode("destroy", "-auto-approve", "-input=false", "-no-color"); code != 0 {
			t.Errorf("destroy exited %d:\n%s", code, out)
		}
	})
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("plan after apply exited %d (2: not empty):\n%s", code, out)
	}
	stateFromSetRelease(t, cli)
	// Each worker holds its own team queues; the manager holds none of theirs.
	for i, e := range m.Workers {
		cqs, err := kueueclient.NewForConfigOrDie(e.REST).KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
		if err != nil || len(cqs.Items) == 0 {
			t.Fatalf("worker-%d has no ClusterQueues (err %v)", i+1, err)
		}
	}

	job := acctest.QueuedJob("team-vision", "llm-finetune", "gpu", "8", "2")
	if _, err := kubernetes.NewForConfigOrDie(m.Manager.REST).BatchV1().Jobs("team-vision").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kq := kueueclient.NewForConfigOrDie(m.Manager.REST)
	var cluster, last string
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		wls, err := kq.KueueV1beta2().Workloads("team-vision").List(ctx, metav1.ListOptions{})
		if err != nil || len(wls.Items) == 0 {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		last = fmt.Sprintf("%+v", wls.Items[0].Status.Conditions)
		if c := wls.Items[0].Status.ClusterName; c != nil && *c != "" {
			cluster = *c
			return true, nil
		}
		return false, nil
	}); err != nil {
		t.Fatalf("the job was not dispatched (manager Workload %s): %v", last, err)
	}
	worker := map[string]int{"europe": 0, "us": 1}
	i, ok := worker[cluster]
	if !ok {
		t.Fatalf("the manager's Workload names %q, not one of the example's workers", cluster)
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kubernetes.NewForConfigOrDie(m.Workers[i].REST).BatchV1().Jobs("team-vision").Get(ctx, job.Name, metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatalf("the manager says %s admitted the job, but that worker does not hold it: %v", cluster, err)
	}
	t.Logf("team vision's job was admitted by %s", cluster)
}

// stateFromSetRelease turns the check's state into what releases whose
// clusters were a set wrote (schema version 0: a set of strings is stored
// as the same JSON array, sorted, so only the version differs), and shows
// that the next plan upgrades it with no change and that a refresh stores it
// at schema version 1.
func stateFromSetRelease(t *testing.T, cli *acctest.CLI) {
	t.Helper()
	path := filepath.Join(cli.Dir, "terraform.tfstate")
	setVersion := func(want, to int) {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var st map[string]any
		if err := json.Unmarshal(data, &st); err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, r := range st["resources"].([]any) {
			r := r.(map[string]any)
			if r["type"] != "mlplatform_multikueue_check" {
				continue
			}
			for _, inst := range r["instances"].([]any) {
				inst := inst.(map[string]any)
				if got := int(inst["schema_version"].(float64)); got != want {
					t.Fatalf("%s: schema_version %d, want %d", r["name"], got, want)
				}
				clusters := inst["attributes"].(map[string]any)["clusters"].([]any)
				if !slices.IsSortedFunc(clusters, func(a, b any) int { return strings.Compare(a.(string), b.(string)) }) {
					t.Fatalf("clusters %v are not sorted as a set's state is", clusters)
				}
				inst["schema_version"] = to
				found++
			}
		}
		if found == 0 {
			t.Fatal("no mlplatform_multikueue_check in the state")
		}
		if to >= 0 {
			out, err := json.MarshalIndent(st, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, out, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	setVersion(1, 0)
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("plan of state written with clusters as a set exited %d (2: not empty):\n%s", code, out)
	}
	cli.Run("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	setVersion(1, -1)
}
