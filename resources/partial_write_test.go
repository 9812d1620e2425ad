package resources_test

import (
	"context"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// A binding whose apply fails after some of its writes (the KSA and the GSA
// are made, IAM keeps refusing the grant past retry_timeout) is recorded,
// so Terraform marks it tainted and the next apply replaces it and ends with
// an empty plan; nothing it made is orphaned.
func TestAccWorkloadIdentityPartialWriteIsRecorded(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	const ns = "acc-partial"
	givenNamespace(t, ns)
	gsa := "acc-partial-gsa@" + env.Project + ".iam.gserviceaccount.com"
	var failing atomic.Bool
	failing.Store(true)
	env.GCP.Unavailable("/google.iam.admin.v1.IAM/SetIamPolicy", func(req any) bool {
		r, ok := req.(*iampb.SetIamPolicyRequest)
		return ok && failing.Load() && strings.HasSuffix(r.GetResource(), gsa)
	}, 1<<30, false)
	cfg := strings.Replace(acctest.ProviderConfig(t), "insecure_endpoints = true", "insecure_endpoints = true\n  retry_timeout      = \"2s\"", 1) + `
resource "mlplatform_workload_identity" "w" {
  namespace                        = "acc-partial"
  kubernetes_service_account       = "trainer"
  create_kubernetes_service_account = true
  create_google_service_account    = { account_id = "acc-partial-gsa" }
}
`
	addr := "mlplatform_workload_identity.w"
	core, _ := acctest.Kube(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg, ExpectError: regexp.MustCompile(`Could Not Apply Workload Identity`)},
			{
				PreConfig: func() {
					if _, err := core.CoreV1().ServiceAccounts(ns).Get(context.Background(), "trainer", metav1.GetOptions{}); err != nil {
						t.Fatalf("the failed apply should have written the KSA before the grant: %v", err)
					}
					failing.Store(false)
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					// Replaced: the partial write was recorded (tainted), not lost.
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
