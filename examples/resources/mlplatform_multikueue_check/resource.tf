# Dispatch to two workers, each an mlplatform_multikueue_cluster. In the
# configuration that holds those, write mlplatform_multikueue_cluster.europe.name
# (and .us.name) instead: the reference orders the apply, the workers' access
# first, then the check, which waits until Kueue reports it Active with every
# worker connected.
resource "mlplatform_multikueue_check" "regions" {
  name     = "multi-region"
  clusters = ["europe", "us"]
}

# A manager ClusterQueue that runs nothing itself: Kueue copies each admitted
# workload to the workers. The check applies to every flavor (no
# on_flavors): Kueue refuses a MultiKueue check per flavor. The manager's
# flavor is a plain one, without node labels; its quota is the sum of the
# team's quotas in the workers.
resource "mlplatform_cluster_queue" "vision" {
  name = "team-vision"

  namespace_selector = {
    match_labels = { "mlplatform.dev/team" = "vision" }
  }

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [{
      name = "h100"
      resources = [
        { name = "cpu", nominal_quota = "416" },
        { name = "memory", nominal_quota = "3740Gi" },
        { name = "nvidia.com/gpu", nominal_quota = "16" },
      ]
    }]
  }]

  admission_checks = {
    (mlplatform_multikueue_check.regions.name) = {}
  }
}
