package multikueuetest

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rbac"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// lpProviders is the manager's provider block with a kubeconfig that acts
// as user (bound there to the RBAC the provider documents).
func lpProviders(t *testing.T, user string) string {
	e := envs(t).Manager
	return acctest.ProviderBlock(e, e.GCP.Addr(), acctest.KubeconfigAs(t, e.Kubeconfig, user), "", "")
}

// bindLP binds user to the documented provider RBAC in the manager and to
// worker in worker-2.
func bindLP(t *testing.T, m *testenv.Multi, user string, worker acctest.RBAC) {
	t.Helper()
	mgr, _ := clients(t, m.Manager)
	acctest.ParseRBAC(t, rbac.Provider).ApplyAs(context.Background(), t, mgr, user)
	wcore, _ := clients(t, m.Workers[1])
	worker.ApplyAs(context.Background(), t, wcore, user)
}

// lpWorker is a worker by a kubeconfig that acts as user in it, and the
// MultiKueue check listing it, with extra attributes of the worker.
func lpWorker(kubeconfig, extra string) string {
	return fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "w" {
  name                   = "acc-lp-worker"
  worker                 = { kubeconfig = %q }
  worker_service_account = "acc-lp-multikueue"
%s}

resource "mlplatform_multikueue_check" "c" {
  name     = "acc-lp-multikueue"
  clusters = [mlplatform_multikueue_cluster.w.name]
}
`, kubeconfig, extra)
}

// The MultiKueue kinds under exactly the documented RBAC: in the manager
// the provider acts as a user bound only to internal/rbac/provider-rbac.yaml,
// in the worker as one bound only to worker-rbac.yaml (no escalate, no
// bind: it holds what the ClusterRole it writes grants). Create, update in
// place (a shorter token_validity: a new token, the former revoked), import,
// destroy; the manager's Kueue reports the check Active, so the access
// written works.
func TestAccMultiKueueLeastPrivilege(t *testing.T) {
	m := envs(t)
	const user = "acc-lp-provider"
	bindLP(t, m, user, acctest.ParseRBAC(t, rbac.Worker))
	worker := acctest.KubeconfigAs(t, m.Workers[1].Kubeconfig, user)
	provider := lpProviders(t, user)
	const w, c = "mlplatform_multikueue_cluster.w", "mlplatform_multikueue_check.c"
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: provider + lpWorker(worker, ""),
				Check:            resource.TestCheckResourceAttr(w, "worker_access", "granted"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{Config: provider + lpWorker(worker, `  token_validity         = "360h"`+"\n"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(w, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{Config: provider + lpWorker(worker, ""), ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{Config: provider + lpWorker(worker, ""), ResourceName: c, ImportState: true, ImportStateId: "acc-lp-multikueue", ImportStateVerify: true},
			{Config: provider + lpWorker(worker, ""), ResourceName: w, ImportState: true, ImportStateId: "acc-lp-worker", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"worker."}},
		},
	})
}

// Without create on clusterroles in the worker, the apply fails naming the
// permission and the worker's manifest.
func TestAccMultiKueueLeastPrivilegeMissingRule(t *testing.T) {
	m := envs(t)
	const user = "acc-lp-no-role-create"
	bindLP(t, m, user, acctest.ParseRBAC(t, rbac.Worker).WithoutVerb("rbac.authorization.k8s.io", "clusterroles", "create"))
	cfg := lpProviders(t, user) + fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "w" {
  name                   = "acc-lp-no-role"
  worker                 = { kubeconfig = %q }
  worker_service_account = "acc-lp-no-role"
}
`, acctest.KubeconfigAs(t, m.Workers[1].Kubeconfig, user))
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg,
			ExpectError: regexp.MustCompile(`(?s)in\s+MultiKueue\s+worker\s+kubeconfig\s+.*may\s+not\s+create\s+clusterroles\.rbac\.authorization\.k8s\.io\s+at\s+the\s+cluster\s+scope.*` +
				`internal/rbac/worker-rbac\.yaml.*Original\s+error:`),
		}},
	})
}
