package resources_test

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// A plan of new Kueue objects needs no cluster at all: no discovery, no
// OpenAPI, no connection (the kubeconfig here does not exist), and values
// that are unknown until apply (an id, each.key) do not trip validation.
func TestAccKueuePlanWithoutCluster(t *testing.T) {
	t.Parallel()
	acctest.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: acctest.PlanOnlyProvider() + `
resource "mlplatform_workload_priority_class" "p" {
  name  = "production"
  value = 1000
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "h100"
  node_labels = { "cloud.google.com/gke-nodepool" = "h100", "owner" = mlplatform_workload_priority_class.p.id }
}

resource "mlplatform_cohort" "research" {
  name = "research"
}

resource "mlplatform_provisioning_admission_check" "dws" {
  name = "dws"
}

resource "mlplatform_cluster_queue" "team" {
  for_each = toset(["vision", "nlp"])
  name     = "team-${each.key}"
  cohort   = mlplatform_cohort.research.id
  namespace_selector = {
    match_labels = { "mlplatform.dev/team" = each.key, "flavor" = mlplatform_resource_flavor.h100.id }
  }
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = mlplatform_resource_flavor.h100.name, resources = [{ name = "nvidia.com/gpu", nominal_quota = "8", borrowing_limit = "8" }] }]
  }]
  admission_checks = { (mlplatform_provisioning_admission_check.dws.name) = { on_flavors = [mlplatform_resource_flavor.h100.name] } }
}

resource "mlplatform_local_queue" "gpu" {
  namespace     = "team-vision"
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.team["vision"].id
}
`,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
