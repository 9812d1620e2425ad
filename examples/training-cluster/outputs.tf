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

output "training_identities" {
  description = "Per team: the Kubernetes service account training pods run as, and the Google service account it acts as."
  value = {
    for team, wi in mlplatform_workload_identity.trainer : team => {
      kubernetes_service_account = "${wi.namespace}/${wi.kubernetes_service_account}"
      google_service_account     = wi.google_service_account
    }
  }
}
