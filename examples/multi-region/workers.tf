# --- The workers -------------------------------------------------------------------
# Each worker is a training cluster of its own: a GPU pool, the flavor wired to
# it, a cohort, and every team from examples/training-cluster's modules/team
# (namespace, Workload Identity, default-deny networking, ClusterQueue and the
# LocalQueue "gpu"). MultiKueue needs the same namespaces and LocalQueue names
# in the workers as in the manager; the module gives both the same names.
#
# CPU and memory quota follow the GPUs: one a3-highgpu-8g's share per H100
# (main.tf). The teams' Google service accounts get the region in their id: all
# clusters are in one project, which has one account per id.

# --- europe (europe-west4) ---------------------------------------------------------
# 2 nodes × 8 H100 = 16 GPUs: the sum of the teams' quotas here.
resource "mlplatform_gpu_pool" "europe_h100" {
  provider        = mlplatform.europe
  name            = "h100-spot"
  gpu             = { type = "nvidia-h100-80gb", count = 8 }
  capacity        = "spot"
  autoscaling     = { max_nodes = 2 }
  resource_labels = { owner = "ml-platform", region = "europe" }
}

resource "mlplatform_resource_flavor" "europe_h100" {
  provider    = mlplatform.europe
  name        = "h100-spot"
  node_labels = mlplatform_gpu_pool.europe_h100.node_selector
  tolerations = mlplatform_gpu_pool.europe_h100.workload_tolerations
}

resource "mlplatform_cohort" "europe" {
  provider = mlplatform.europe
  name     = "research"
}

module "team_europe" {
  source    = "../training-cluster/modules/team"
  for_each  = local.teams
  providers = { mlplatform = mlplatform.europe }

  name                      = each.key
  cohort                    = mlplatform_cohort.europe.name
  google_service_account_id = "${each.key}-trainer-europe"
  flavors = [
    { name = mlplatform_resource_flavor.europe_h100.name, cpu = "${local.cpu_per_gpu * each.value.europe}", memory = "${local.memory_gi_per_gpu * each.value.europe}Gi", gpus = "${each.value.europe}" },
  ]
}

# --- us (us-east4) -----------------------------------------------------------------
# 2 nodes × 8 H100 = 16 GPUs.
resource "mlplatform_gpu_pool" "us_h100" {
  provider        = mlplatform.us
  name            = "h100-spot"
  gpu             = { type = "nvidia-h100-80gb", count = 8 }
  capacity        = "spot"
  autoscaling     = { max_nodes = 2 }
  resource_labels = { owner = "ml-platform", region = "us" }
}

resource "mlplatform_resource_flavor" "us_h100" {
  provider    = mlplatform.us
  name        = "h100-spot"
  node_labels = mlplatform_gpu_pool.us_h100.node_selector
  tolerations = mlplatform_gpu_pool.us_h100.workload_tolerations
}

resource "mlplatform_cohort" "us" {
  provider = mlplatform.us
  name     = "research"
}

module "team_us" {
  source    = "../training-cluster/modules/team"
  for_each  = local.teams
  providers = { mlplatform = mlplatform.us }

  name                      = each.key
  cohort                    = mlplatform_cohort.us.name
  google_service_account_id = "${each.key}-trainer-us"
  flavors = [
    { name = mlplatform_resource_flavor.us_h100.name, cpu = "${local.cpu_per_gpu * each.value.us}", memory = "${local.memory_gi_per_gpu * each.value.us}Gi", gpus = "${each.value.us}" },
  ]
}
