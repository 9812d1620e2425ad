# Team vision's training jobs run as KSA team-vision/trainer and act as a
# Google service account created for them: no key anywhere.
resource "mlplatform_workload_identity" "vision_trainer" {
  namespace                  = "team-vision"
  kubernetes_service_account = "trainer"

  create_google_service_account = {
    account_id   = "vision-trainer"
    display_name = "Training jobs of team vision"
  }
}

# An existing KSA (created by a Helm chart) acting as an existing GSA: only the
# annotation and the grant are managed, and removed on destroy.
resource "mlplatform_workload_identity" "evaluator" {
  namespace                         = "team-vision"
  kubernetes_service_account        = "evaluator"
  create_kubernetes_service_account = false
  google_service_account            = "evaluator@ml-prod.iam.gserviceaccount.com"
}

# Direct access without a GSA: grant buckets or datasets to the principal.
resource "mlplatform_workload_identity" "reader" {
  namespace                  = "team-vision"
  kubernetes_service_account = "dataset-reader"
  mode                       = "direct"
  project_number             = "123456789012"
}

output "reader_principal" {
  value = mlplatform_workload_identity.reader.principal
}
