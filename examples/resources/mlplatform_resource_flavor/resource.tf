# An H100 spot flavor: quotas granted on it admit workloads onto the
# h100-spot node pool. With GPU pools managed by this provider, wire the two
# lists from the pool instead of writing them out:
#
#   node_labels = mlplatform_gpu_pool.h100_spot.node_selector
#   tolerations = mlplatform_gpu_pool.h100_spot.workload_tolerations
resource "mlplatform_resource_flavor" "h100_spot" {
  name = "h100-spot"

  node_labels = {
    "cloud.google.com/gke-nodepool" = "h100-spot"
    "cloud.google.com/gke-spot"     = "true"
  }

  # GKE taints every GPU node with nvidia.com/gpu=present:NoSchedule.
  tolerations = [
    { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" },
  ]
}

# A CPU flavor for data loaders and evaluation, on the default pool.
resource "mlplatform_resource_flavor" "cpu" {
  name = "cpu"
  node_labels = {
    "cloud.google.com/gke-nodepool" = "default-pool"
  }
}
