# --- Teams -------------------------------------------------------------------------
# One line per team: its GPU quota (nvidia.com/gpu) on each flavor. Onboarding a
# team is adding a line; `mlplatform report` on the plan shows what it adds per
# flavor and whether the pools can hold it.
locals {
  teams = {
    vision = { l4 = "4", h100_spot = "16", h100_flex = "32" }
    nlp    = { l4 = "8", h100_spot = "8", h100_flex = "64" }
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

  # CPU and memory quota is one node's worth per GPU on that flavor's machines.
  flavors = [
    { name = mlplatform_resource_flavor.l4_dev.name, cpu = "48", memory = "192Gi", gpus = each.value.l4 },
    { name = mlplatform_resource_flavor.h100_spot.name, cpu = "416", memory = "3740Gi", gpus = each.value.h100_spot, gpu_lending_limit = "8" },
    { name = mlplatform_resource_flavor.h100_flex.name, cpu = "832", memory = "7480Gi", gpus = each.value.h100_flex },
  ]

  # Workloads on h100-flex wait until GKE has provisioned their nodes.
  admission_checks = {
    (mlplatform_provisioning_admission_check.dws.name) = [mlplatform_resource_flavor.h100_flex.name]
  }
}
