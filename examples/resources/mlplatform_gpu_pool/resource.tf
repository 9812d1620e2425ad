# An L4 spot pool for development: cheap, preemptible, scales to zero.
# 1 × nvidia-l4 fits several g2-standard sizes, so machine_type is set.
resource "mlplatform_gpu_pool" "l4_dev" {
  name           = "l4-dev"
  node_locations = ["us-central1-a", "us-central1-b"]
  machine_type   = "g2-standard-8"
  gpu            = { type = "nvidia-l4", count = 1 }
  capacity       = "spot"

  autoscaling = { max_nodes = 8 } # min_nodes = 0: no nodes while idle

  # Keep non-GPU pods off the spot nodes; workload_tolerations tolerates it.
  taints = {
    "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" }
  }
  resource_labels = { team = "research", owner = "ml-platform" }
}

# An 8 × H100 flex-start pool (Dynamic Workload Scheduler): nodes are
# provisioned when Kueue's admission check asks for them, run at most three
# days, and go away again. machine_type (a3-highgpu-8g) follows from gpu.
resource "mlplatform_gpu_pool" "h100_flex" {
  name                = "h100-flex"
  gpu                 = { type = "nvidia-h100-80gb", count = 8 }
  capacity            = "flex_start"
  queued_provisioning = true
  max_run_duration    = "72h"

  autoscaling = { max_nodes = 4 }

  resource_labels = { team = "research", owner = "ml-platform" }

  timeouts {
    create = "60m"
  }
}

# Kueue flavors that admit workloads onto the pools: the node selector and
# tolerations come from the pools and are known at plan time.
resource "mlplatform_resource_flavor" "l4_dev" {
  name        = "l4-dev"
  node_labels = mlplatform_gpu_pool.l4_dev.node_selector
  tolerations = mlplatform_gpu_pool.l4_dev.workload_tolerations
}

resource "mlplatform_resource_flavor" "h100_flex" {
  name        = "h100-flex"
  node_labels = mlplatform_gpu_pool.h100_flex.node_selector
  tolerations = mlplatform_gpu_pool.h100_flex.workload_tolerations
}
