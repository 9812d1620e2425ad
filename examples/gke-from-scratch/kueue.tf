# --- JobSet and Kueue, by their Helm charts -------------------------------------------
# Helm talks to the new cluster with its endpoint, its CA and the applier's
# Google access token (Application Default Credentials).
data "google_client_config" "current" {}

provider "helm" {
  kubernetes = {
    host                   = "https://${google_container_cluster.this.endpoint}"
    token                  = data.google_client_config.current.access_token
    cluster_ca_certificate = base64decode(google_container_cluster.this.master_auth[0].cluster_ca_certificate)
  }
}

# JobSet v0.12.0, the release Kueue v0.19.2 is built against. Chart location
# and version as JobSet's chart README gives them
# (helm install jobset oci://registry.k8s.io/jobset/charts/jobset --version 0.12.0).
resource "helm_release" "jobset" {
  name             = "jobset"
  namespace        = "jobset-system"
  create_namespace = true
  repository       = "oci://registry.k8s.io/jobset/charts"
  chart            = "jobset"
  version          = "0.12.0"

  depends_on = [google_container_node_pool.system]
}

# Kueue's own configuration (which kinds it manages, gangs evicted and requeued
# when their pods cannot all start, jobs without a queue held in team
# namespaces), validated at plan by Kueue's rules. The defaults suit this
# platform; see the "Kueue's own configuration" guide.
data "mlplatform_kueue_configuration" "this" {
  kueue_version = "v0.19.2"
}

# Kueue v0.19.2, the newest release the provider supports. Chart location and
# version as Kueue's chart README gives them
# (helm install kueue oci://registry.k8s.io/kueue/charts/kueue --version="0.19.2").
resource "helm_release" "kueue" {
  name             = "kueue"
  namespace        = "kueue-system"
  create_namespace = true
  repository       = "oci://registry.k8s.io/kueue/charts"
  chart            = "kueue"
  version          = "0.19.2"
  values           = [data.mlplatform_kueue_configuration.this.helm_values]

  # Kueue manages JobSets once their CRD is served; installing JobSet first
  # makes that true from Kueue's first start.
  depends_on = [helm_release.jobset]
}
