package resources_test

import (
	"fmt"
	"strings"
	"testing"

	"cloud.google.com/go/container/apiv1/containerpb"
	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// GKE and IAM answering UNAVAILABLE are waited out, including after a
// write they took before the answer was lost: the node pool create and the
// service account create are answered UNAVAILABLE after they were served,
// so their retries meet ALREADY_EXISTS, and recognise (by the marker) what
// the first attempt made. Reads answered UNAVAILABLE are retried too. The
// apply completes and the plan after is empty.
func TestAccGCPUnavailableIsWaitedOut(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	givenNamespace(t, "acc-unavail")
	const cm, ia = "/google.container.v1.ClusterManager/", "/google.iam.admin.v1.IAM/"
	gsa := "acc-unavail-gsa@" + env.Project + ".iam.gserviceaccount.com"
	pool := func(req any) bool {
		r, ok := req.(*containerpb.CreateNodePoolRequest)
		return ok && r.GetNodePool().GetName() == "acc-unavail"
	}
	account := func(req any) bool {
		switch r := req.(type) {
		case *adminpb.CreateServiceAccountRequest:
			return r.GetAccountId() == "acc-unavail-gsa"
		case *iampb.GetIamPolicyRequest:
			return strings.HasSuffix(r.GetResource(), gsa)
		case *iampb.SetIamPolicyRequest:
			return strings.HasSuffix(r.GetResource(), gsa)
		}
		return false
	}
	env.GCP.Unavailable(cm+"CreateNodePool", pool, 1, true)
	env.GCP.Unavailable(ia+"CreateServiceAccount", account, 1, true)
	env.GCP.Unavailable(ia+"GetIamPolicy", account, 2, false)
	env.GCP.Unavailable(ia+"SetIamPolicy", account, 1, false)
	before := env.GCP.Requests()
	cfg := acctest.ProviderConfig(t) + `
resource "mlplatform_gpu_pool" "p" {
  name         = "acc-unavail"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 2 }
}

resource "mlplatform_workload_identity" "w" {
  namespace                     = "acc-unavail"
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "acc-unavail-gsa" }
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: cfg,
			Check: func(*terraform.State) error {
				after := env.GCP.Requests()
				for _, m := range []string{cm + "CreateNodePool", ia + "CreateServiceAccount"} {
					if n := after[m] - before[m]; n < 2 {
						return fmt.Errorf("%s called %d times: the UNAVAILABLE answer was not retried", m, n)
					}
				}
				np := getPool(t, gkeClient(t, env.GCP), "acc-unavail")
				if np.GetConfig().GetResourceLabels()["mlplatform-managed-by"] != "mlplatform" {
					return fmt.Errorf("the pool lacks the provider's marker: %v", np.GetConfig().GetResourceLabels())
				}
				return nil
			},
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}
