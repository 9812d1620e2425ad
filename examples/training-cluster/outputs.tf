output "priority_classes" {
  description = "Priority class names, for the kueue.x-k8s.io/priority-class label of training jobs."
  value = {
    for k, c in {
      production  = mlplatform_workload_priority_class.production
      research    = mlplatform_workload_priority_class.research
      preemptible = mlplatform_workload_priority_class.preemptible
    } : k => c.value
  }
}

output "teams" {
  description = "Per team: its namespace, the LocalQueue its jobs submit to, the Kubernetes service account training pods run as and the Google service account it acts as."
  value = {
    for name, team in module.team : name => {
      namespace                  = team.namespace
      local_queue                = team.local_queue
      kubernetes_service_account = team.kubernetes_service_account
      google_service_account     = team.google_service_account
    }
  }
}
