# --- Teams -------------------------------------------------------------------------
# One line per team: its GPU quota (nvidia.com/gpu) on each flavor; on a100_mig
# that is MIG slices (7 per A100), not GPUs. Onboarding a
# team is adding a line; `mlplatform report` on the plan shows what it adds per
# flavor and whether the pools can hold it.
locals {
  teams = {
    vision = { l4 = "4", h100_spot = "16", h100_flex = "32", a100_mig = "7" }
    nlp    = { l4 = "8", h100_spot = "8", h100_flex = "64", a100_mig = "7" }
  }
}

# Each team gets, from modules/team: namespace team-<name> (restricted Pod
# Security), KSA "trainer" bound by Workload Identity to a Google service
# account made for the team, default-deny networking with the holes training
# needs, a ClusterQueue in the shared cohort and the LocalQueue "gpu".
#
# A module per team keeps a team's resources referring to each other by plain
# names. (Terraform evaluates a reference like team[each.key] by decoding every
# instance of the resource, so with one for_each per resource a plan's work
# grows with the square of the number of teams; this way it grows linearly.)
module "team" {
  source   = "./modules/team"
  for_each = local.teams

  name   = each.key
  cohort = mlplatform_cohort.research.name

  # CPU and memory quota is one node's worth per GPU on that flavor's machines
  # (on a100-mig: one a2-highgpu-1g, 12 vCPU and 85 GB, for its 7 slices).
  #
  # Kueue tries the flavors in this order and admits a workload on the first
  # one with room, so the sliced flavor comes LAST: a workload that does not
  # ask for slices is placed on whole GPUs first, and gets a 1g.5gb slice only
  # when the flavors before it have no room. (To rule that out, such a
  # workload selects its pool's node label, e.g. cloud.google.com/gke-nodepool.)
  flavors = [
    { name = mlplatform_resource_flavor.l4_dev.name, cpu = "48", memory = "192Gi", gpus = each.value.l4 },
    { name = mlplatform_resource_flavor.h100_spot.name, cpu = "416", memory = "3740Gi", gpus = each.value.h100_spot, gpu_lending_limit = "8" },
    { name = mlplatform_resource_flavor.h100_flex.name, cpu = "832", memory = "7480Gi", gpus = each.value.h100_flex },
    { name = mlplatform_resource_flavor.a100_mig.name, cpu = "12", memory = "85Gi", gpus = each.value.a100_mig },
  ]

  # Workloads on h100-flex wait until GKE has provisioned their nodes.
  admission_checks = {
    (mlplatform_provisioning_admission_check.dws.name) = [mlplatform_resource_flavor.h100_flex.name]
  }
}
