# Kueue: three kinds of GPU capacity, a shared cohort, and per team a
# namespace, a ClusterQueue and the LocalQueue its jobs submit to.

# --- Flavors: one per GPU node pool (pools.tf) -------------------------------
# node_labels and tolerations come from the pool, known at plan time, so a
# workload admitted on a flavor lands on exactly that pool's nodes.
resource "mlplatform_resource_flavor" "l4_dev" {
  name        = "l4-dev"
  node_labels = mlplatform_gpu_pool.l4_dev.node_selector
  tolerations = mlplatform_gpu_pool.l4_dev.workload_tolerations
}

resource "mlplatform_resource_flavor" "h100_spot" {
  name        = "h100-spot"
  node_labels = mlplatform_gpu_pool.h100_spot.node_selector
  tolerations = mlplatform_gpu_pool.h100_spot.workload_tolerations
}

resource "mlplatform_resource_flavor" "h100_flex" {
  name        = "h100-flex"
  node_labels = mlplatform_gpu_pool.h100_flex.node_selector
  tolerations = mlplatform_gpu_pool.h100_flex.workload_tolerations
}

# --- Flex-start (Dynamic Workload Scheduler) admission check -------------------
# Workloads on h100-flex wait until GKE has provisioned their nodes.
resource "mlplatform_provisioning_admission_check" "dws" {
  name = "dws-flex-start"
}

# --- The shared cohort ---------------------------------------------------------
resource "mlplatform_cohort" "research" {
  name = "research"
}

# --- One ClusterQueue per team ---------------------------------------------------
locals {
  teams = {
    vision = { l4 = "4", h100_spot = "16", h100_flex = "32" }
    nlp    = { l4 = "8", h100_spot = "8", h100_flex = "64" }
  }
}

resource "mlplatform_team_namespace" "team" {
  for_each = local.teams

  name = "team-${each.key}"
  team = each.key
}

resource "mlplatform_cluster_queue" "team" {
  for_each = local.teams

  name               = "team-${each.key}"
  cohort             = mlplatform_cohort.research.name
  namespace_selector = mlplatform_team_namespace.team[each.key].selector

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [
      {
        name = mlplatform_resource_flavor.l4_dev.name
        resources = [
          { name = "cpu", nominal_quota = "48" },
          { name = "memory", nominal_quota = "192Gi" },
          { name = "nvidia.com/gpu", nominal_quota = each.value.l4 },
        ]
      },
      {
        name = mlplatform_resource_flavor.h100_spot.name
        resources = [
          { name = "cpu", nominal_quota = "416" },
          { name = "memory", nominal_quota = "3740Gi" },
          { name = "nvidia.com/gpu", nominal_quota = each.value.h100_spot, lending_limit = "8" },
        ]
      },
      {
        name = mlplatform_resource_flavor.h100_flex.name
        resources = [
          { name = "cpu", nominal_quota = "832" },
          { name = "memory", nominal_quota = "7480Gi" },
          { name = "nvidia.com/gpu", nominal_quota = each.value.h100_flex },
        ]
      },
    ]
  }]

  admission_checks = {
    (mlplatform_provisioning_admission_check.dws.name) = {
      on_flavors = [mlplatform_resource_flavor.h100_flex.name]
    }
  }

  preemption = {
    reclaim_within_cohort = "Any"
    within_cluster_queue  = "LowerPriority"
  }
}

# Jobs submit here with the label kueue.x-k8s.io/queue-name: gpu.
resource "mlplatform_local_queue" "gpu" {
  for_each = local.teams

  namespace     = mlplatform_team_namespace.team[each.key].name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.team[each.key].name
}
