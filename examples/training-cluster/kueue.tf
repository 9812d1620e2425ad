# Kueue: four kinds of GPU capacity and the cohort the teams share. Each
# team's ClusterQueue and LocalQueue are in modules/team (teams.tf).

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

# MIG slices (A100 1g.5gb): its nvidia.com/gpu are slices. node_labels include
# cloud.google.com/gke-gpu-partition-size = "1g.5gb", so a pod that selects
# that label is admitted only here. Teams list it last (teams.tf).
resource "mlplatform_resource_flavor" "a100_mig" {
  name        = "a100-mig"
  node_labels = mlplatform_gpu_pool.a100_mig.node_selector
  tolerations = mlplatform_gpu_pool.a100_mig.workload_tolerations
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
