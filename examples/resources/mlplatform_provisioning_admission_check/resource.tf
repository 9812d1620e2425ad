# GKE Dynamic Workload Scheduler (flex-start with queued provisioning): a
# ClusterQueue that lists this check admits a GPU job only once GKE has
# provisioned all of its nodes. The node pool needs queued provisioning
# enabled, autoscaling from 0, and no reservation.
resource "mlplatform_provisioning_admission_check" "dws" {
  name = "dws"
}

# The same with Kueue's retry settings changed: give up after one retry,
# retrying after 2 minutes at first.
resource "mlplatform_provisioning_admission_check" "dws_h100" {
  name              = "dws-h100"
  managed_resources = ["nvidia.com/gpu"]

  retry_strategy = {
    backoff_limit_count  = 1
    backoff_base_seconds = 120
  }
}
