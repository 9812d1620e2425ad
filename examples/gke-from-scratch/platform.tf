# --- The platform on that cluster, by this provider ------------------------------------
# The provider finds the cluster through the GKE API (endpoint and CA) and
# authenticates with Application Default Credentials. Naming the cluster by
# reference makes Terraform configure it after the cluster exists; a plan of
# new objects makes no request, so the first plan works before it does.
provider "mlplatform" {
  project  = var.project
  location = var.region
  cluster  = google_container_cluster.this.name
}

# --- GPU node pools: both scale to zero -------------------------------------------------
# L4 on spot for development: 4 nodes x 1 GPU = 4 GPUs at most.
resource "mlplatform_gpu_pool" "l4_dev" {
  name            = "l4-dev"
  machine_type    = "g2-standard-8"
  gpu             = { type = "nvidia-l4", count = 1 }
  capacity        = "spot"
  autoscaling     = { max_nodes = 4 }
  service_account = google_service_account.nodes.email

  taints = {
    "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" }
  }
  resource_labels = { owner = "ml-platform" }

  # One node-pool operation at a time on a new cluster.
  depends_on = [google_container_node_pool.system]
}

# 8 x H100 flex-start (Dynamic Workload Scheduler) with queued provisioning:
# nodes come all at once when Kueue's admission check asks for them, and run
# at most three days. 2 nodes x 8 = 16 GPUs at most.
resource "mlplatform_gpu_pool" "h100_flex" {
  name                = "h100-flex"
  gpu                 = { type = "nvidia-h100-80gb", count = 8 }
  capacity            = "flex_start"
  queued_provisioning = true
  max_run_duration    = "72h"
  autoscaling         = { max_nodes = 2 }
  service_account     = google_service_account.nodes.email
  resource_labels     = { owner = "ml-platform" }

  depends_on = [mlplatform_gpu_pool.l4_dev]
}

# --- Kueue: a flavor per pool, the flex-start check, priorities, the cohort -----------
# Kueue's objects wait for Kueue (its CRDs and webhooks come with the chart).
resource "mlplatform_resource_flavor" "l4_dev" {
  name        = "l4-dev"
  node_labels = mlplatform_gpu_pool.l4_dev.node_selector
  tolerations = mlplatform_gpu_pool.l4_dev.workload_tolerations
  depends_on  = [helm_release.kueue]
}

resource "mlplatform_resource_flavor" "h100_flex" {
  name        = "h100-flex"
  node_labels = mlplatform_gpu_pool.h100_flex.node_selector
  tolerations = mlplatform_gpu_pool.h100_flex.workload_tolerations
  depends_on  = [helm_release.kueue]
}

resource "mlplatform_provisioning_admission_check" "dws" {
  name       = "dws-flex-start"
  depends_on = [helm_release.kueue]
}

resource "mlplatform_cohort" "research" {
  name       = "research"
  depends_on = [helm_release.kueue]
}

resource "mlplatform_workload_priority_class" "production" {
  name        = "production"
  value       = 1000
  description = "Scheduled production training runs. May preempt research work."
  depends_on  = [helm_release.kueue]
}

resource "mlplatform_workload_priority_class" "research" {
  name        = "research"
  value       = 100
  description = "Interactive and exploratory research jobs."
  depends_on  = [helm_release.kueue]
}
