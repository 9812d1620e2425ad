# NAMESPACE/KUBERNETES_SERVICE_ACCOUNT. The GSA is read from the KSA's
# iam.gke.io/gcp-service-account annotation (none: direct mode).
terraform import mlplatform_workload_identity.vision_trainer team-vision/trainer
