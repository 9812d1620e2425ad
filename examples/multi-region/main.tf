# A MultiKueue platform: jobs are submitted to a manager cluster, which copies
# each one to the workers; the first worker that admits it runs it.
#
#   manager (us-central1)   team namespaces, ClusterQueues that list the
#                           MultiKueue admission check, LocalQueues, and the
#                           manager's access to each worker (manager.tf)
#   europe (europe-west4)   an H100 spot pool and its flavor, the teams
#   us (us-east4)           the same                     (workers.tf)
#
# One provider configuration per cluster. Each finds its cluster through the
# GKE API (endpoint and CA) and authenticates with Application Default
# Credentials, or with GOOGLE_OAUTH_ACCESS_TOKEN when set (the sandbox's env
# file sets it). A block that names its cluster never falls back on
# MLPLATFORM_KUBECONFIG or KUBECONFIG (the sandbox's env file points those at
# the manager), so a worker's configuration cannot manage the manager.
#
# Every resource names its provider; there is no default configuration.
provider "mlplatform" {
  alias    = "manager"
  project  = var.project
  location = var.manager.location
  cluster  = var.manager.cluster
}

provider "mlplatform" {
  alias    = "europe"
  project  = var.project
  location = var.europe.location
  cluster  = var.europe.cluster
}

provider "mlplatform" {
  alias    = "us"
  project  = var.project
  location = var.us.location
  cluster  = var.us.cluster
}

# Each team's nvidia.com/gpu quota in each worker. The manager's quota per
# team is the sum over the workers (manager.tf): what the manager admits is
# what the workers can run. `mlplatform report` compares the two per team.
locals {
  teams = {
    vision = { europe = 8, us = 8 }
    nlp    = { europe = 8, us = 8 }
  }

  # An a3-highgpu-8g has 208 vCPU and about 1870 GiB for its 8 H100s.
  cpu_per_gpu       = 26
  memory_gi_per_gpu = 233
}
