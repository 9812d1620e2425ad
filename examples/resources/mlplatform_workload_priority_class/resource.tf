# A job opts into a class with the label
#   kueue.x-k8s.io/priority-class: production
# next to its kueue.x-k8s.io/queue-name label. Kueue admits queued workloads
# with a higher value first and, where the ClusterQueue's preemption policy
# allows it, lets them preempt workloads with a lower value.

# Release and deadline-bound training runs.
resource "mlplatform_workload_priority_class" "production" {
  name        = "production"
  value       = 1000
  description = "Production training and evaluation runs; may preempt research and preemptible workloads."
}

# Day-to-day experiments and sweeps.
resource "mlplatform_workload_priority_class" "research" {
  name        = "research"
  value       = 100
  description = "Experiments and hyperparameter sweeps."
}

# Opportunistic work that soaks up idle GPUs and is the first to be
# preempted: jobs using it should checkpoint often.
resource "mlplatform_workload_priority_class" "preemptible" {
  name        = "preemptible"
  value       = 10
  description = "Best-effort jobs on idle capacity; preempted first."
}
