package bench

import (
	"fmt"
	"strings"
)

// Baseline is the platform of Config(n) as Terraform alone sees it: the same
// module shape (modules/team once per team, for_each over a teams map), the
// same number of resources (Resources) and the same references between
// them, each resource a terraform_data holding inputs the size of the real
// resource's. terraform_data is served inside Terraform, so planning it
// costs no provider process, no gRPC and no API request: its plan time is
// Terraform's own work, the floor under any provider's. `make bench` plans it
// next to the platform to show how much of the wall-time ratio is Terraform's.
func Baseline(n int) map[string]string {
	var teams strings.Builder
	for i := range n {
		fmt.Fprintf(&teams, "    %s = { l4 = \"%d\", h100_spot = \"%d\", h100_flex = \"%d\", a100_mig = \"%d\" }\n", TeamName(i), 1+i%4, 8*(1+i%2), 8*(1+i%4), 1+i%7)
	}
	return map[string]string{
		"main.tf": `# Terraform alone: examples/training-cluster's shape with terraform_data
# (internal/bench.Baseline).

locals {
  teams = {
` + teams.String() + `  }
  flavors = ["l4-dev", "h100-spot", "h100-flex", "a100-mig"]
}

resource "terraform_data" "pool" {
  for_each = toset(local.flavors)
  input    = { name = each.key, node_selector = { "cloud.google.com/gke-nodepool" = each.key }, min_nodes = 0, max_nodes = 8 }
}

resource "terraform_data" "flavor" {
  for_each = toset(local.flavors)
  input    = { name = each.key, node_labels = terraform_data.pool[each.key].output.node_selector }
}

resource "terraform_data" "cohort" {
  input = { name = "research" }
}

resource "terraform_data" "admission_check" {
  input = { name = "dws-flex-start", provisioning_class = "queued-provisioning.gke.io" }
}

resource "terraform_data" "priority_class" {
  for_each = toset(["high", "default", "low"])
  input    = { name = each.key }
}

module "team" {
  source   = "./modules/team"
  for_each = local.teams

  name   = each.key
  cohort = terraform_data.cohort.output.name
  flavors = [for f, gpus in { "l4-dev" = each.value.l4, "h100-spot" = each.value.h100_spot, "h100-flex" = each.value.h100_flex, "a100-mig" = each.value.a100_mig } : {
    name = terraform_data.flavor[f].output.name, cpu = "48", memory = "192Gi", gpus = gpus
  }]
}

output "teams" {
  value = { for name, team in module.team : name => team.namespace }
}
`,
		"modules/team/main.tf": `variable "name" {
  type = string
}

variable "cohort" {
  type = string
}

variable "flavors" {
  type = list(object({ name = string, cpu = string, memory = string, gpus = string }))
}

resource "terraform_data" "namespace" {
  input = { name = "team-${var.name}", team = var.name, selector = { match_labels = { "mlplatform.dev/team" = var.name } } }
}

resource "terraform_data" "workload_identity" {
  input = {
    namespace                  = terraform_data.namespace.output.name
    kubernetes_service_account = "trainer"
    create_google_service_account = {
      account_id   = "${var.name}-trainer"
      display_name = "Training jobs of team ${var.name}"
    }
  }
}

resource "terraform_data" "network_policy" {
  input = { namespace = terraform_data.namespace.output.name, ingress_from_namespaces = { monitoring = { ports = [9090] } } }
}

resource "terraform_data" "cluster_queue" {
  input = {
    name               = "team-${var.name}"
    cohort             = var.cohort
    namespace_selector = terraform_data.namespace.output.selector
    resource_groups = [{
      covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
      flavors = [for f in var.flavors : {
        name = f.name
        resources = [
          { name = "cpu", nominal_quota = f.cpu },
          { name = "memory", nominal_quota = f.memory },
          { name = "nvidia.com/gpu", nominal_quota = f.gpus },
        ]
      }]
    }]
    preemption = { reclaim_within_cohort = "Any", within_cluster_queue = "LowerPriority" }
  }
}

resource "terraform_data" "local_queue" {
  input = { namespace = terraform_data.namespace.output.name, name = "gpu", cluster_queue = terraform_data.cluster_queue.output.name }
}

output "namespace" {
  value = terraform_data.namespace.output.name
}
`,
	}
}
