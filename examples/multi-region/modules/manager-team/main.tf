# One team in the MultiKueue manager: its namespace (jobs are submitted
# there), a ClusterQueue that lists the MultiKueue admission check, and the
# LocalQueue "gpu", named as in the workers (../training-cluster/modules/team).
#
# Not that module: its Workload Identity binding and network policy are for
# the cluster where the training pods run, and the manager runs none; and its
# admission_checks apply per flavor, which Kueue refuses for a MultiKueue
# check (the ClusterQueue stays inactive: MultiKueueAdmissionCheckAppliedPerFlavor).

resource "mlplatform_team_namespace" "this" {
  name = "team-${var.name}"
  team = var.name
}

resource "mlplatform_cluster_queue" "this" {
  name               = "team-${var.name}"
  cohort             = var.cohort
  namespace_selector = mlplatform_team_namespace.this.selector

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [{
      name = var.flavor
      resources = [
        { name = "cpu", nominal_quota = var.cpu },
        { name = "memory", nominal_quota = var.memory },
        { name = "nvidia.com/gpu", nominal_quota = var.gpus },
      ]
    }]
  }]

  # On every flavor (no on_flavors): the only way Kueue accepts a MultiKueue
  # check. One MultiKueue check per ClusterQueue, and not together with a
  # ProvisioningRequest check (flex-start belongs in the workers).
  admission_checks = {
    (var.multikueue_check) = {}
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
