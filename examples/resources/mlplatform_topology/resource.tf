# GKE's topology, highest level first: nodes of A3 Ultra, A4 and other
# accelerator-optimized pools placed compactly (or from a reservation) carry
# these labels. A flavor naming the Topology makes its quota topology-aware.
resource "mlplatform_topology" "gke" {
  name = "gke-default"
  levels = [
    "cloud.google.com/gce-topology-block",
    "cloud.google.com/gce-topology-subblock",
    "cloud.google.com/gce-topology-host",
    "kubernetes.io/hostname",
  ]
}

# The flavor of an H200 pool, topology-aware: a JobSet whose pod template
# asks for kueue.x-k8s.io/podset-required-topology:
# cloud.google.com/gce-topology-block is admitted only with every pod in one
# block.
resource "mlplatform_resource_flavor" "h200" {
  name          = "h200-reserved"
  node_labels   = { "cloud.google.com/gke-nodepool" = "h200-reserved" }
  tolerations   = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
  topology_name = mlplatform_topology.gke.name
}
