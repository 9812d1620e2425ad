output "teams" {
  description = "Per team: the manager namespace and LocalQueue its jobs are submitted to."
  value = {
    for name, team in module.team_manager : name => {
      namespace   = team.namespace
      local_queue = team.local_queue
    }
  }
}

output "workers" {
  description = "Per worker: the API server the manager reaches it at, and when the manager's token expires."
  value = {
    for name, w in {
      europe = mlplatform_multikueue_cluster.europe
      us     = mlplatform_multikueue_cluster.us
      } : name => {
      endpoint         = w.worker_endpoint
      token_expires_at = w.kubeconfig_secret.token_expires_at
    }
  }
}
