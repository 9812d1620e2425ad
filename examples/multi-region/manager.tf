# --- The manager -------------------------------------------------------------------
# Jobs are submitted here, to team-<name>/gpu as on one cluster. The manager's
# ClusterQueues list the MultiKueue admission check, so nothing runs here:
# Kueue copies each admitted job to the workers and the first one to admit it
# runs it. The manager needs no GPU pool.

# The manager's access to each worker: a service account with MultiKueue's
# RBAC and a bounded token in the worker, the kubeconfig Secret and the
# MultiKueueCluster here. The token is never in state (only the kubeconfig's
# SHA-256); a plan within rotate_before (7 days) of its expiry (30 days) writes
# a new one, so plan and apply at least every 3 weeks (docs/guides/multikueue.md).
resource "mlplatform_multikueue_cluster" "europe" {
  provider = mlplatform.manager
  name     = "europe"
  worker = {
    gke_cluster = { project = var.project, location = var.europe.location, name = var.europe.cluster }
  }
}

resource "mlplatform_multikueue_cluster" "us" {
  provider = mlplatform.manager
  name     = "us"
  worker = {
    gke_cluster = { project = var.project, location = var.us.location, name = var.us.cluster }
  }
}

# The AdmissionCheck and MultiKueueConfig that dispatch to both workers.
# Referring to the workers' names (not writing "europe") orders the apply:
# the workers' access first, then the check, which waits until Kueue reports
# it Active with both workers connected.
resource "mlplatform_multikueue_check" "regions" {
  provider = mlplatform.manager
  name     = "multi-region"
  clusters = [mlplatform_multikueue_cluster.europe.name, mlplatform_multikueue_cluster.us.name]
}

# The manager's flavor: a plain one, without node labels or tolerations. It
# only carries the manager's quota; each worker places the job on its own
# flavor and pool.
resource "mlplatform_resource_flavor" "manager_h100" {
  provider = mlplatform.manager
  name     = "h100"
}

resource "mlplatform_cohort" "manager" {
  provider = mlplatform.manager
  name     = "research"
}

# Each team's namespace, ClusterQueue and LocalQueue "gpu" in the manager
# (modules/manager-team). Quota per team is the sum of its workers' quotas.
module "team_manager" {
  source    = "./modules/manager-team"
  for_each  = local.teams
  providers = { mlplatform = mlplatform.manager }

  name             = each.key
  cohort           = mlplatform_cohort.manager.name
  flavor           = mlplatform_resource_flavor.manager_h100.name
  gpus             = each.value.europe + each.value.us
  cpu              = local.cpu_per_gpu * (each.value.europe + each.value.us)
  memory           = "${local.memory_gi_per_gpu * (each.value.europe + each.value.us)}Gi"
  multikueue_check = mlplatform_multikueue_check.regions.name
}
