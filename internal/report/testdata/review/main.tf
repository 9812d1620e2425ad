# The configuration of the report's review fixture (TestAccReportReviewOnRealPlan):
# a pool and its flavor in the root module, a team in a module, and findings in
# both. Planned against the test control plane; the provider block is the
# test's, in a file of its own, so the lines here are what the SARIF names.
terraform {
  required_providers {
    mlplatform = { source = "mlplatform/mlplatform" }
  }
}

resource "mlplatform_gpu_pool" "h100" {
  name        = "rv-h100"
  gpu         = { type = "nvidia-h100-80gb", count = 8 }
  capacity    = "spot"
  autoscaling = { max_nodes = 2 }
  taints      = { dedicated = { value = "ml", effect = "NoSchedule" } }
}

# Tolerates the GPU taint but not the pool's dedicated one: MLP008.
resource "mlplatform_resource_flavor" "h100" {
  name        = "rv-h100"
  node_labels = mlplatform_gpu_pool.h100.node_selector
  tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
}

# 24 GPUs of quota on a flavor whose pool holds 16: MLP013 and an over-commit.
module "team_nlp" {
  source          = "./modules/team"
  prefix          = "rv"
  team            = "nlp"
  flavor          = mlplatform_resource_flavor.h100.name
  gpus            = "24"
  metadata_server = false
}
