# One team of the training platform: its namespace, the identity its training
# pods run as, default-deny networking, and its Kueue queues. The root module
# instantiates it once per team (teams.tf).

resource "mlplatform_team_namespace" "this" {
  name = "team-${var.name}"
  team = var.name
}

# --- Workload Identity -------------------------------------------------------------
# Training pods run as KSA "trainer" in the team namespace and act as a Google
# service account made for the team: data reads and checkpoint writes are granted
# to that GSA, and no key exists anywhere.
resource "mlplatform_workload_identity" "trainer" {
  namespace                  = mlplatform_team_namespace.this.name
  kubernetes_service_account = "trainer"

  create_google_service_account = {
    account_id   = coalesce(var.google_service_account_id, "${var.name}-trainer")
    display_name = "Training jobs of team ${var.name}"
  }
}

# --- Default-deny networking ---------------------------------------------------------
# Everything in and out of the team's pods is denied except: the team's own
# pods (rendezvous, NCCL), DNS (kube-dns, NodeLocal DNSCache, the metadata
# resolver), the metadata server (Workload Identity) and private.googleapis.com.
# The scrapers' namespaces may reach the trainers' metrics port.
resource "mlplatform_training_network_policy" "this" {
  namespace = mlplatform_team_namespace.this.name

  ingress_from_namespaces = length(var.scrape_from_namespaces) == 0 ? null : {
    for ns in var.scrape_from_namespaces : ns => { ports = [9090] }
  }
}

# --- Kueue -------------------------------------------------------------------------
# The team's quota, shared in the cohort.
resource "mlplatform_cluster_queue" "this" {
  name               = "team-${var.name}"
  cohort             = var.cohort
  namespace_selector = mlplatform_team_namespace.this.selector

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [for f in var.flavors : {
      name = f.name
      resources = [
        { name = "cpu", nominal_quota = f.cpu },
        { name = "memory", nominal_quota = f.memory },
        { name = "nvidia.com/gpu", nominal_quota = f.gpus, lending_limit = f.gpu_lending_limit },
      ]
    }]
  }]

  admission_checks = length(var.admission_checks) == 0 ? null : {
    for check, flavors in var.admission_checks : check => { on_flavors = flavors }
  }

  preemption = {
    reclaim_within_cohort = "Any"
    within_cluster_queue  = "LowerPriority"
  }
}

# Jobs submit here with the label kueue.x-k8s.io/queue-name: gpu.
resource "mlplatform_local_queue" "gpu" {
  namespace     = mlplatform_team_namespace.this.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.this.name
}
