output "namespace" {
  description = "The team's namespace."
  value       = mlplatform_team_namespace.this.name
}

output "local_queue" {
  description = "The queue the team's jobs submit to (label kueue.x-k8s.io/queue-name)."
  value       = mlplatform_local_queue.gpu.name
}

output "kubernetes_service_account" {
  description = "The Kubernetes service account training pods run as, as namespace/name."
  value       = "${mlplatform_workload_identity.trainer.namespace}/${mlplatform_workload_identity.trainer.kubernetes_service_account}"
}

output "google_service_account" {
  description = "The Google service account the training pods act as."
  value       = mlplatform_workload_identity.trainer.google_service_account
}
