terraform {
  required_providers {
    mlplatform = {
      source = "mlplatform/mlplatform"
    }
  }
}

# Against a real GKE cluster. The provider finds the cluster through the GKE
# API and talks to its Kubernetes endpoint with the cluster CA and a Google
# token from Application Default Credentials (as gke-gcloud-auth-plugin
# does), so no kubeconfig is needed.
provider "mlplatform" {
  project  = "ml-training-prod"
  location = "us-central1"
  cluster  = "training"
}

# Against the local sandbox, leave the block empty instead:
#
#   provider "mlplatform" {}
#
# `mlplatform sandbox up` writes .sandbox/env; after `source .sandbox/env`
# every setting comes from the environment (MLPLATFORM_PROJECT,
# MLPLATFORM_LOCATION, MLPLATFORM_CLUSTER, MLPLATFORM_KUBECONFIG,
# MLPLATFORM_CONTAINER_ENDPOINT, MLPLATFORM_IAM_ENDPOINT,
# MLPLATFORM_INSECURE_ENDPOINTS) and TF_CLI_CONFIG_FILE points Terraform at
# the locally built provider.
