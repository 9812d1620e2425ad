# --- GPU node pools ----------------------------------------------------------------
# All four scale to zero (min_nodes defaults to 0) and carry cost labels
# (mlplatform-pool, mlplatform-gpu, mlplatform-capacity, plus owner) on every
# VM, so each GPU-hour can be traced. max_nodes is sized so the pools can hold
# every team's nominal quota at once: `mlplatform report` flags a plan where
# they cannot.

# L4 spot for development: cheap, preemptible. 12 nodes × 1 GPU = 12 GPUs.
resource "mlplatform_gpu_pool" "l4_dev" {
  name         = "l4-dev"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 12 }

  # Keep non-GPU pods off the spot nodes; workload_tolerations tolerates it.
  taints = {
    "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" }
  }
  resource_labels = { owner = "ml-platform" }
}

# 8 × H100 on spot: 3 nodes × 8 = 24 GPUs. machine_type (a3-highgpu-8g)
# follows from the GPU type and count.
resource "mlplatform_gpu_pool" "h100_spot" {
  name            = "h100-spot"
  gpu             = { type = "nvidia-h100-80gb", count = 8 }
  capacity        = "spot"
  autoscaling     = { max_nodes = 3 }
  resource_labels = { owner = "ml-platform" }
}

# 8 × H100 flex-start (Dynamic Workload Scheduler): nodes are provisioned when
# the dws-flex-start admission check asks for them, run at most three days,
# and go away again. 12 nodes × 8 = 96 GPUs.
resource "mlplatform_gpu_pool" "h100_flex" {
  name                = "h100-flex"
  gpu                 = { type = "nvidia-h100-80gb", count = 8 }
  capacity            = "flex_start"
  queued_provisioning = true
  max_run_duration    = "72h"
  autoscaling         = { max_nodes = 12 }
  resource_labels     = { owner = "ml-platform" }
}

# A100 40GB at MIG 1g.5gb on spot, for development and smoke tests: GKE splits
# every GPU into 7 partitions of 5 GB, each one nvidia.com/gpu to pods, so a
# node reports 7 (allocatable_gpus_per_node) and a Kueue quota on its flavor
# counts slices, not GPUs. 2 nodes × 1 GPU × 7 = 14 slices. machine_type is
# the only one 1 × nvidia-tesla-a100 fits, spelled out. node_selector carries
# GKE's cloud.google.com/gke-gpu-partition-size label, so only pods that ask
# for 1g.5gb slices (or that Kueue admits on this flavor) land here. Changing
# partition_size replaces the pool.
resource "mlplatform_gpu_pool" "a100_mig" {
  name         = "a100-mig"
  machine_type = "a2-highgpu-1g"
  gpu          = { type = "nvidia-tesla-a100", count = 1, partition_size = "1g.5gb" }
  capacity     = "spot"
  autoscaling  = { max_nodes = 2 }

  taints = {
    "cloud.google.com/gke-spot" = { value = "true", effect = "NoSchedule" }
  }
  resource_labels = { owner = "ml-platform" }
}
