# Team vision's namespace: restricted Pod Security, cost labels, and a
# selector for the team's ClusterQueue.
resource "mlplatform_team_namespace" "vision" {
  name  = "team-vision"
  team  = "vision"
  owner = "alice"

  labels = {
    "cost-center" = "ml-research-123"
  }
}

resource "mlplatform_cluster_queue" "vision" {
  name               = "team-vision"
  namespace_selector = mlplatform_team_namespace.vision.selector

  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{
      name      = "h100-spot"
      resources = [{ name = "nvidia.com/gpu", nominal_quota = "16" }]
    }]
  }]
}
