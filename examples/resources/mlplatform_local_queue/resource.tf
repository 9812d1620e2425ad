# The queue team-vision's jobs submit to, with the label
#   kueue.x-k8s.io/queue-name: gpu
# It draws on the team's ClusterQueue; apply waits until Kueue reports it
# active and fails with the reason (e.g. a missing ClusterQueue) otherwise.
resource "mlplatform_local_queue" "vision_gpu" {
  namespace     = "team-vision"
  name          = "gpu"
  cluster_queue = "team-vision"
}
