# MIG: GKE splits every A100 40GB into 7 partitions of 1g.5gb, each one
# nvidia.com/gpu to pods, so a node reports 7 (allocatable_gpus_per_node).
# Changing partition_size replaces the pool.
resource "mlplatform_gpu_pool" "a100_mig" {
  name         = "a100-mig"
  machine_type = "a2-highgpu-1g"
  gpu          = { type = "nvidia-tesla-a100", count = 1, partition_size = "1g.5gb" }
  capacity     = "spot"
  autoscaling  = { max_nodes = 2 }
}

# MIG with time-sharing on top: 3 containers take turns on each partition,
# so a node reports 1 GPU × 7 partitions × 3 clients = 21 nvidia.com/gpu.
# Changing sharing is done in place.
resource "mlplatform_gpu_pool" "a100_mig_shared" {
  name         = "a100-mig-shared"
  machine_type = "a2-highgpu-1g"
  gpu = {
    type           = "nvidia-tesla-a100"
    count          = 1
    partition_size = "1g.5gb"
    sharing        = { strategy = "time_sharing", max_shared_clients_per_gpu = 3 }
  }
  autoscaling = { max_nodes = 1 }
}

# MPS on whole GPUs (the L4 has no MIG): 4 containers side by side on each
# GPU, each with a quarter of its memory and compute. A node reports 4.
resource "mlplatform_gpu_pool" "l4_mps" {
  name         = "l4-mps"
  machine_type = "g2-standard-8"
  gpu = {
    type    = "nvidia-l4"
    count   = 1
    sharing = { strategy = "mps", max_shared_clients_per_gpu = 4 }
  }
  capacity    = "spot"
  autoscaling = { max_nodes = 4 }
}

# node_selector includes GKE's cloud.google.com/gke-gpu-partition-size
# label, so a pod that selects 1g.5gb is admitted only on this flavor.
resource "mlplatform_resource_flavor" "a100_mig" {
  name        = "a100-mig"
  node_labels = mlplatform_gpu_pool.a100_mig.node_selector
  tolerations = mlplatform_gpu_pool.a100_mig.workload_tolerations
}

# A quota on a sliced flavor counts slices, not GPUs: here all the pool
# holds at max_nodes, 2 nodes × 7 = 14. The sliced flavor comes last, so
# Kueue tries whole GPUs first for workloads that do not ask for slices.
resource "mlplatform_cluster_queue" "dev" {
  name = "team-dev"

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [
      {
        name = "l4-dev" # whole GPUs
        resources = [
          { name = "cpu", nominal_quota = "32" },
          { name = "memory", nominal_quota = "128Gi" },
          { name = "nvidia.com/gpu", nominal_quota = "4" },
        ]
      },
      {
        name = mlplatform_resource_flavor.a100_mig.name # MIG slices, last
        resources = [
          { name = "cpu", nominal_quota = "24" },
          { name = "memory", nominal_quota = "170Gi" },
          {
            name          = "nvidia.com/gpu"
            nominal_quota = tostring(mlplatform_gpu_pool.a100_mig.autoscaling.max_nodes * mlplatform_gpu_pool.a100_mig.allocatable_gpus_per_node)
          },
        ]
      },
    ]
  }]
}
