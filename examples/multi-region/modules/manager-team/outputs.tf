output "namespace" {
  description = "The team's namespace in the manager, where its jobs are submitted."
  value       = mlplatform_team_namespace.this.name
}

output "local_queue" {
  description = "The queue the team's jobs submit to (label kueue.x-k8s.io/queue-name)."
  value       = mlplatform_local_queue.gpu.name
}
