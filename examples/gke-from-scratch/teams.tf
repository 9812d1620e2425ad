# --- Two teams ---------------------------------------------------------------------------
# Each is the training cluster example's team module, as it is: namespace
# team-<name>, KSA "trainer" acting as a Google service account made for the
# team (Workload Identity), default-deny networking with the holes training
# needs (Private Google Access among them), a ClusterQueue in the cohort and
# the LocalQueue "gpu". Quotas in nvidia.com/gpu per flavor; the pools above
# hold both teams' quota at once.
locals {
  teams = {
    vision = { l4 = "2", h100_flex = "8" }
    nlp    = { l4 = "2", h100_flex = "8" }
  }
}

module "team" {
  source   = "../training-cluster/modules/team"
  for_each = local.teams

  name   = each.key
  cohort = mlplatform_cohort.research.name

  # CPU and memory quota: one node's worth per GPU on that flavor's machines
  # (g2-standard-8: 8 vCPU, 32 GB; a3-highgpu-8g: 208 vCPU, 1870 GB for 8 GPUs).
  flavors = [
    { name = mlplatform_resource_flavor.l4_dev.name, cpu = "16", memory = "64Gi", gpus = each.value.l4 },
    { name = mlplatform_resource_flavor.h100_flex.name, cpu = "208", memory = "1870Gi", gpus = each.value.h100_flex },
  ]

  # Workloads on h100-flex wait until GKE has provisioned their nodes.
  admission_checks = {
    (mlplatform_provisioning_admission_check.dws.name) = [mlplatform_resource_flavor.h100_flex.name]
  }
}
