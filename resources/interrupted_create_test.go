package resources_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// An apply cut off between the server's write and Terraform saving state
// (here: `terraform state rm` after the apply, which leaves exactly that)
// leaves objects that no state records: nothing proves they are this
// configuration's and not another's. The next apply refuses each, writing
// nothing, with the exact import command; running those imports and applying
// again gives an empty plan, with the same objects (their UIDs, the pool's
// creation id and the account's uniqueId do not change).
func TestAccInterruptedCreateIsRepaired(t *testing.T) {
	e := acctest.Env(t)
	ctx, cli := newCLI(t)
	cli.Apply(acctest.ProviderConfig(t) + `
resource "mlplatform_team_namespace" "ns" {
  name = "acc-int-team"
  team = "int"
}

resource "mlplatform_resource_flavor" "l4" {
  name        = "acc-int-l4"
  node_labels = mlplatform_gpu_pool.l4.node_selector
  tolerations = mlplatform_gpu_pool.l4.workload_tolerations
}

resource "mlplatform_cluster_queue" "cq" {
  name               = "acc-int-team"
  namespace_selector = mlplatform_team_namespace.ns.selector
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = mlplatform_resource_flavor.l4.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "4" }] }]
  }]
}

resource "mlplatform_gpu_pool" "l4" {
  name         = "acc-int-l4"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 4 }
}

resource "mlplatform_workload_identity" "trainer" {
  namespace                     = mlplatform_team_namespace.ns.name
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "acc-int-trainer", description = "Trains the int team's models" }
}
`)

	core, kq := acctest.Kube(t)
	gc := gkeClient(t, e.GCP)
	ic := iamClient(t)
	gsa := "acc-int-trainer@" + e.Project + ".iam.gserviceaccount.com"
	identities := func() map[string]string {
		t.Helper()
		ns, err := core.CoreV1().Namespaces().Get(ctx, "acc-int-team", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cq, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-int-team", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ksa, err := core.CoreV1().ServiceAccounts("acc-int-team").Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sa, found, err := ic.ServiceAccount(ctx, gsa)
		if err != nil || !found {
			t.Fatalf("the created Google service account: found=%v, err=%v", found, err)
		}
		np := getPool(t, gc, "acc-int-l4")
		if np == nil {
			t.Fatal("the node pool is gone")
		}
		return map[string]string{"namespace": string(ns.UID), "cluster queue": string(cq.UID), "ksa": string(ksa.UID),
			"gsa": sa.GetUniqueId(), "gsa description": sa.GetDescription(), "pool instance groups": strings.Join(np.GetInstanceGroupUrls(), " "),
			"pool creation": np.GetConfig().GetResourceLabels()[spec.PoolCreationLabel]}
	}
	before := identities()

	// Cut off: the objects exist, the state does not know them.
	cutOff := map[string]string{"mlplatform_team_namespace.ns": "acc-int-team", "mlplatform_cluster_queue.cq": "acc-int-team",
		"mlplatform_gpu_pool.l4": "", "mlplatform_workload_identity.trainer": "acc-int-team/trainer"}
	for addr := range cutOff {
		cli.Run("state", "rm", "-no-color", addr)
	}
	// As a user would: apply, import what it refuses as the error says, and
	// again (a resource whose dependency was refused is not tried until that
	// one is imported).
	for round := 0; len(cutOff) > 0; round++ {
		out, code := cli.RunCode("apply", "-auto-approve", "-input=false", "-no-color")
		if code == 0 || round == len(cutOff)+1 {
			t.Fatalf("apply %d after the cut-off one: exit %d with %v not imported yet:\n%s", round, code, cutOff, out)
		}
		got := oneLine(string(out))
		for addr, id := range cutOff {
			re := regexp.MustCompile(`Already Exists (│ )?with ` + regexp.QuoteMeta(addr) + `,.*an apply that created it was cut off before ` +
				`Terraform could save its state.*terraform import ADDRESS (\S+) where ADDRESS`)
			m := re.FindStringSubmatch(errorOf(got, addr, re))
			switch {
			case m == nil:
				continue // not tried yet
			case id != "" && m[2] != id:
				t.Errorf("%s: import id %q, want %q", addr, m[2], id)
			}
			cli.Run("import", "-input=false", "-no-color", addr, m[2]) // as the error says
			delete(cutOff, addr)
		}
	}
	if diff := cmp.Diff(before, identities()); diff != "" {
		t.Fatalf("the refused apply or the imports changed the objects (-before +after):\n%s", diff)
	}
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("plan after the imports and an apply exited %d (2: not empty):\n%s", code, out)
	}
	if diff := cmp.Diff(before, identities()); diff != "" {
		t.Errorf("the imports replaced objects instead of taking them (-before +after):\n%s", diff)
	}
}

// Ctrl-C while the apply waits (GKE creating a pool, Kueue activating a
// queue): Terraform saves what the provider recorded of the cut-off creates,
// so the next apply completes them with no import, and the plan after is
// empty. Not parallel: it slows the GKE fake's operations down for a while.
func TestAccInterruptedCreateSavedIsCompleted(t *testing.T) {
	e := acctest.Env(t)
	ctx, cli := newCLI(t)
	pool := `
resource "mlplatform_gpu_pool" "l4" {
  name         = "acc-cut-l4"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 2 }
}

resource "mlplatform_cluster_queue" "cq" {
  name               = "acc-cut"
  namespace_selector = {}
  active_timeout     = "5m"
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = "acc-cut-l4", resources = [{ name = "nvidia.com/gpu", nominal_quota = "4" }] }]
  }]
}
`
	cli.Write(acctest.ProviderConfig(t) + pool)
	cli.DestroyAtEnd()
	e.GCP.Container.SetOpLatency(5 * time.Minute)
	t.Cleanup(func() { e.GCP.Container.SetOpLatency(50 * time.Millisecond) })
	run := cli.Start("apply", "-auto-approve", "-input=false", "-no-color")
	gc := gkeClient(t, e.GCP)
	_, kq := acctest.Kube(t)
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-cut", metav1.GetOptions{})
		return err == nil && getPool(t, gc, "acc-cut-l4") != nil, nil
	}); err != nil {
		t.Fatalf("the pool and the queue were not being created: %v", err)
	}
	time.Sleep(2 * time.Second) // both waiting
	if err := run.Cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	out, code := run.Wait()
	if code == 0 {
		t.Fatalf("the interrupted apply succeeded:\n%s", out)
	}
	e.GCP.Container.SetOpLatency(50 * time.Millisecond)
	list := string(cli.Run("state", "list"))
	for _, addr := range []string{"mlplatform_gpu_pool.l4", "mlplatform_cluster_queue.cq"} {
		if !strings.Contains(list, addr) {
			t.Errorf("the interrupted apply did not save %s:\n%s\napply said:\n%s", addr, list, out)
		}
	}
	// The queue's flavor, now there: the next apply completes both, with no import.
	cli.Write(acctest.ProviderConfig(t) + pool + `
resource "mlplatform_resource_flavor" "l4" {
  name = "acc-cut-l4"
}
`)
	out = cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if strings.Contains(string(out), "Already Exists") {
		t.Errorf("the apply after Ctrl-C met its own objects as someone else's:\n%s", out)
	}
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("plan after the completing apply exited %d (2: not empty):\n%s", code, out)
	}
}

// newCLI is the real Terraform CLI with the provider built from this
// repository (acctest.NewCLI, env added to its environment), and a context
// that ends the test's commands after 10 minutes.
func newCLI(t *testing.T, env ...string) (context.Context, *acctest.CLI) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel) // registered first, so it runs after the CLI's own cleanups (a destroy)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return ctx, acctest.NewCLI(ctx, t, root, env...)
}
