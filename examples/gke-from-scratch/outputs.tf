output "doctor" {
  description = "The first command to run once the apply is done: checks the cluster's prerequisites, Kueue and every queue."
  value       = "mlplatform doctor --project ${var.project} --location ${var.region} --cluster ${google_container_cluster.this.name}"
}

output "get_credentials" {
  description = "Writes a kubeconfig entry for kubectl."
  value       = "gcloud container clusters get-credentials ${google_container_cluster.this.name} --region ${var.region} --project ${var.project}"
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
