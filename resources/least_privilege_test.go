package resources_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gcpperm"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rbac"
)

// leastPrivilegeConfig is one object of every kind a resource of a single
// cluster creates (MultiKueue's are proven in internal/multikueuetest), the
// namespaced ones in the team namespace the configuration creates; v
// changes something of each kind that is updated in place.
func leastPrivilegeConfig(p string, v int) string {
	return fmt.Sprintf(`
resource "mlplatform_team_namespace" "ns" {
  name = "%[1]s"
  team = "%[1]s"
}

resource "mlplatform_resource_flavor" "l4" {
  name        = "%[1]s-l4"
  node_labels = { "cloud.google.com/gke-nodepool" = "l4-v%[2]d" }
}

resource "mlplatform_cohort" "c" {
  name                = "%[1]s"
  fair_sharing_weight = "%[2]d"
}

resource "mlplatform_topology" "t" {
  name   = "%[1]s"
  levels = ["cloud.google.com/gce-topology-block", "kubernetes.io/hostname"]
}

resource "mlplatform_workload_priority_class" "p" {
  name  = "%[1]s"
  value = %[2]d0
}

resource "mlplatform_provisioning_admission_check" "dws" {
  name = "%[1]s"
}

resource "mlplatform_cluster_queue" "q" {
  name               = "%[1]s"
  cohort             = mlplatform_cohort.c.name
  namespace_selector = mlplatform_team_namespace.ns.selector
  wait_for_active    = false
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = mlplatform_resource_flavor.l4.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "%[2]d" }] }]
  }]
}

resource "mlplatform_local_queue" "lq" {
  namespace       = mlplatform_team_namespace.ns.name
  name            = "gpu"
  cluster_queue   = mlplatform_cluster_queue.q.name
  wait_for_active = false
}

resource "mlplatform_gpu_pool" "l4" {
  name         = "%[1]s"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = %[2]d }
}

resource "mlplatform_workload_identity" "w" {
  namespace                     = mlplatform_team_namespace.ns.name
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "%[1]s-trainer" }
}

resource "mlplatform_training_network_policy" "np" {
  namespace = mlplatform_team_namespace.ns.name
}
`, p, v)
}

// The provider's acceptance path for every kind of a single cluster,
// create, update in place, import and destroy, under exactly the RBAC it
// documents (internal/rbac/provider-rbac.yaml), not as the cluster's admin:
// the provider's kubeconfig impersonates a user bound only to that role, so
// the API server authorizes every request the provider makes with it.
func TestAccLeastPrivilege(t *testing.T) {
	t.Parallel()
	core, _ := acctest.Kube(t)
	const p, user = "acc-lp", "acc-lp-provider"
	acctest.ParseRBAC(t, rbac.Provider).ApplyAs(context.Background(), t, core, user)
	// A GKE/IAM fake of its own, with the environment's cluster, records the
	// RPCs of this test's provider alone.
	env := acctest.Env(t)
	gcp := fakegcp.New()
	if err := gcp.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gcp.Stop)
	gcp.Container.AddCluster(env.Project, env.Location, env.Cluster, true)
	provider := acctest.ProviderConfigAs(t, user, gcp.Addr())
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	updated := resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{}}
	for _, addr := range []string{"mlplatform_resource_flavor.l4", "mlplatform_cohort.c", "mlplatform_workload_priority_class.p",
		"mlplatform_cluster_queue.q", "mlplatform_gpu_pool.l4"} {
		updated.PreApply = append(updated.PreApply, plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate))
	}
	imports := map[string]string{
		"mlplatform_team_namespace.ns":                p,
		"mlplatform_resource_flavor.l4":               p + "-l4",
		"mlplatform_cohort.c":                         p,
		"mlplatform_topology.t":                       p,
		"mlplatform_workload_priority_class.p":        p,
		"mlplatform_provisioning_admission_check.dws": p,
		"mlplatform_cluster_queue.q":                  p,
		"mlplatform_local_queue.lq":                   p + "/gpu",
		"mlplatform_gpu_pool.l4":                      poolName(p),
		"mlplatform_workload_identity.w":              p + "/trainer",
		"mlplatform_training_network_policy.np":       p,
	}
	steps := []resource.TestStep{
		{Config: provider + leastPrivilegeConfig(p, 1), ConfigPlanChecks: empty},
		{Config: provider + leastPrivilegeConfig(p, 2), ConfigPlanChecks: updated},
	}
	for addr, id := range imports {
		step := resource.TestStep{Config: provider + leastPrivilegeConfig(p, 2), ResourceName: addr, ImportState: true, ImportStateId: id, ImportStateVerify: true}
		switch addr {
		case "mlplatform_team_namespace.ns":
			step.ImportStateVerifyIgnore = []string{"labels", "annotations"}
		case "mlplatform_workload_identity.w":
			step.ImportStateVerifyIgnore = []string{"project_number", "principal"} // not held by the cluster or IAM
		case "mlplatform_cluster_queue.q", "mlplatform_local_queue.lq":
			step.ImportStateVerifyIgnore = []string{"wait_for_active"}
		}
		steps = append(steps, step)
	}
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: acctest.Factories(), Steps: steps}) // destroy at the end, as the user

	// The IAM side: the fake does not enforce IAM, so every RPC the provider
	// made must be one the permission table lists (gcpperm.Table, from
	// Google's reference); one it does not list fails here.
	made := gcp.Requests()
	var unlisted []string
	for method := range made {
		if _, ok := gcpperm.Lookup(method); !ok {
			unlisted = append(unlisted, method)
		}
	}
	slices.Sort(unlisted)
	if diff := cmp.Diff([]string(nil), unlisted); diff != "" {
		t.Errorf("RPCs the provider made that internal/gcpperm.Table does not list (-want +got):\n%s", diff)
	}
	for _, want := range []string{"CreateNodePool", "DeleteNodePool", "CreateServiceAccount", "SetIamPolicy"} {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(made)), func(m string) bool { return strings.HasSuffix(m, "/"+want) }) {
			t.Errorf("no %s among the RPCs recorded %v: the run did not exercise what it should", want, made)
		}
	}
	t.Logf("RPCs made: %v", made)
}

// With one rule of the documented RBAC removed (create on ClusterQueues),
// the apply fails at that object, and the error says in plain words which
// permission the provider's identity lacks and where the role is written
// down, with the API server's error below.
func TestAccLeastPrivilegeMissingRule(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	core, _ := acctest.Kube(t)
	const user = "acc-lp-no-cq-create"
	acctest.ParseRBAC(t, rbac.Provider).WithoutVerb("kueue.x-k8s.io", "clusterqueues", "create").ApplyAs(context.Background(), t, core, user)
	cfg := acctest.ProviderConfigAs(t, user, "") + `
resource "mlplatform_cluster_queue" "q" {
  name               = "acc-lp-no-create"
  namespace_selector = {}
  wait_for_active    = false
}

resource "mlplatform_workload_priority_class" "p" {
  name  = "acc-lp-no-create"
  value = 1
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg,
			ExpectError: wrapped(`(?s)may not create clusterqueues\.kueue\.x-k8s\.io at the cluster scope\..*` +
				`written down in internal/rbac/provider-rbac\.yaml.*Original error:.*` +
				`User "` + user + `" cannot create resource "clusterqueues" in API group "kueue\.x-k8s\.io"`),
		}},
	})
}
