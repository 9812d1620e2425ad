package resources_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// An apply cut off between the server's write and Terraform saving state
// (here: `terraform state rm` after the apply, which leaves exactly that) is
// completed by the next apply, without an import: the objects carry the
// provider's marker, so the creates recognise them as their own and adopt
// them (the same objects: their UIDs and the pool's and account's names do
// not change), and the plan after is empty. Destroy then deletes them, since
// they are in state again.
func TestAccInterruptedCreateIsRepaired(t *testing.T) {
	e := acctest.Env(t)
	ctx, cli := newCLI(t)
	cfg := acctest.ProviderConfig(t) + `
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
`
	cli.Apply(cfg)

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
			"gsa": sa.GetUniqueId(), "gsa description": sa.GetDescription(), "pool instance groups": strings.Join(np.GetInstanceGroupUrls(), " ")}
	}
	before := identities()

	// Cut off: the objects exist, the state does not know them.
	for _, addr := range []string{"mlplatform_team_namespace.ns", "mlplatform_cluster_queue.cq", "mlplatform_gpu_pool.l4",
		"mlplatform_workload_identity.trainer"} {
		cli.Run("state", "rm", "-no-color", addr)
	}
	out := cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(string(out), "4 added, 0 changed, 0 destroyed") {
		t.Errorf("the repairing apply did not create exactly the four forgotten resources:\n%s", out)
	}
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("plan after the repairing apply exited %d (2: not empty):\n%s", code, out)
	}
	if diff := cmp.Diff(before, identities()); diff != "" {
		t.Errorf("the repairing apply replaced objects instead of adopting them (-before +after):\n%s", diff)
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
