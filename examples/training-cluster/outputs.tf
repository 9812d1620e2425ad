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
