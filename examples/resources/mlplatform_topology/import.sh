terraform import mlplatform_topology.gke gke-default
