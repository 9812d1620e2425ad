# The manager's access to a GKE worker in europe-west4. The provider reaches
# the worker through the GKE API (endpoint and CA) with its own Google
# identity, creates the service account, ClusterRole and binding there, and
# writes the kubeconfig Secret and the MultiKueueCluster in its own cluster,
# the manager. The worker's API server must be reachable from the manager.
resource "mlplatform_multikueue_cluster" "europe" {
  name = "europe"

  worker = {
    gke_cluster = {
      location = "europe-west4"
      name     = "training-europe"
      # project defaults to the provider's.
    }
  }
}

# A worker that is not on GKE, reached with a kubeconfig. Tokens valid for 7
# days, renewed by a plan made within 2 days of expiry: run plan and apply
# at least every 5 days.
resource "mlplatform_multikueue_cluster" "onprem" {
  name = "onprem"

  worker = {
    kubeconfig   = "/etc/mlplatform/onprem-kubeconfig.yaml"
    kube_context = "gpu-lab"
  }

  token_validity = "168h"
  rotate_before  = "48h"
}
