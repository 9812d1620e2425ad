# --- Default-deny networking per team namespace ----------------------------------
# Everything in and out of the team's pods is denied except: the team's own
# pods (rendezvous, NCCL), DNS (kube-dns, NodeLocal DNSCache, the metadata
# resolver), the metadata server (Workload Identity) and private.googleapis.com.
# Prometheus in "monitoring" may scrape the trainers' metrics port.
resource "mlplatform_training_network_policy" "team" {
  for_each = mlplatform_team_namespace.team

  namespace = each.value.name

  ingress_from_namespaces = {
    monitoring = { ports = [9090] }
  }
}
