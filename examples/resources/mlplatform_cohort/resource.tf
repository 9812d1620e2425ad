# The root of the cohort tree: team queues join "research" (or a child of
# it) and borrow each other's idle quota. The root holds a shared pool of H100
# spot GPUs on top of what the team queues own.
resource "mlplatform_cohort" "research" {
  name = "research"

  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [{
      name = "h100-spot"
      resources = [
        { name = "cpu", nominal_quota = "208" },
        { name = "memory", nominal_quota = "1870Gi" },
        { name = "nvidia.com/gpu", nominal_quota = "16" },
      ]
    }]
  }]
}

# A sub-tree for the vision teams: it may borrow at most 8 GPUs from the
# rest of research and lends at most 4 of its own pool, and it gets twice the
# share of idle quota when fair sharing is enabled in Kueue.
resource "mlplatform_cohort" "vision" {
  name                = "vision"
  parent              = mlplatform_cohort.research.name
  fair_sharing_weight = "2"

  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{
      name = "l4-dev"
      resources = [
        { name = "nvidia.com/gpu", nominal_quota = "8", borrowing_limit = "8", lending_limit = "4" },
      ]
    }]
  }]
}
