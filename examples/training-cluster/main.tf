# A GPU training platform on one GKE cluster.
#
# The provider block is empty on purpose: project, location, cluster, the
# endpoints and the kubeconfig come from MLPLATFORM_* environment variables.
# `mlplatform sandbox up` writes them for the local sandbox; for a real
# cluster set project, location and cluster here (see README).
#
# Files: pools.tf (GPU node pools), kueue.tf (flavors wired from the pools,
# the flex-start admission check, the shared cohort), teams.tf (the teams, one
# modules/team each: namespace, Workload Identity, default-deny networking,
# ClusterQueue and LocalQueue). Run `terraform init` (or, offline against the
# sandbox, `terraform get`) once to install modules/team.
provider "mlplatform" {}

# Priorities jobs choose with the label kueue.x-k8s.io/priority-class.
# Kueue admits higher classes first and lets them preempt lower ones.
resource "mlplatform_workload_priority_class" "production" {
  name        = "production"
  value       = 1000
  description = "Scheduled production training and evaluation runs. May preempt research and preemptible work."
}

resource "mlplatform_workload_priority_class" "research" {
  name        = "research"
  value       = 100
  description = "Interactive and exploratory research jobs."
}

resource "mlplatform_workload_priority_class" "preemptible" {
  name        = "preemptible"
  value       = 10
  description = "Sweeps and backfill that may be preempted at any time."
}
