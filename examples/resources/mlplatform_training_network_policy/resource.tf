# Default-deny networking for team-vision's training pods, with the holes
# they need: ranks reach each other, DNS, the metadata server (Workload
# Identity), private.googleapis.com; plus a model hub over HTTPS, a
# feature store, and Prometheus scraping from the monitoring namespace.
resource "mlplatform_training_network_policy" "vision" {
  namespace = "team-vision"

  # defaults, spelled out
  allow_same_namespace = true
  dns                  = true
  metadata_server      = true
  google_apis          = "private"

  public_https_egress = true # opted in: 0.0.0.0/0 on 443, private ranges excluded

  extra_egress = [
    { cidrs = ["10.20.0.0/16"], ports = [5432], protocol = "TCP" },
  ]

  ingress_from_namespaces = {
    monitoring = { ports = [9090] }
  }
}
