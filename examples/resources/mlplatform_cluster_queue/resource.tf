# Team vision's GPU quota: L4s for development, H100 spot for training, in
# the shared "research" cohort so idle quota flows between teams.
resource "mlplatform_cluster_queue" "vision" {
  name   = "team-vision"
  cohort = "research"

  # Only the team's namespaces may use this quota (a team namespace's
  # `selector` output fits here).
  namespace_selector = {
    match_labels = { "mlplatform.dev/team" = "vision" }
  }

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    # Kueue tries flavors in this order.
    flavors = [
      {
        name = "l4-dev"
        resources = [
          { name = "cpu", nominal_quota = "48" },
          { name = "memory", nominal_quota = "192Gi" },
          { name = "nvidia.com/gpu", nominal_quota = "4", borrowing_limit = "4" },
        ]
      },
      {
        name = "h100-spot"
        resources = [
          { name = "cpu", nominal_quota = "208" },
          { name = "memory", nominal_quota = "1870Gi" },
          { name = "nvidia.com/gpu", nominal_quota = "16", lending_limit = "8" },
        ]
      },
    ]
  }]

  preemption = {
    reclaim_within_cohort = "Any"
    within_cluster_queue  = "LowerPriority"
  }
}
