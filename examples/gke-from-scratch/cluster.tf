# --- The GKE cluster ------------------------------------------------------------------
# Regional, VPC-native, with what the platform relies on and mlplatform doctor
# checks: a Workload Identity pool (the teams' trainers act as Google service
# accounts), network policy enforcement by Dataplane V2 (without it the teams'
# default-deny policies are a no-op) and a GKE version that serves flex-start
# GPU pools and queued provisioning (ProvisioningRequest).
resource "google_container_cluster" "this" {
  project    = var.project
  name       = var.cluster_name
  location   = var.region
  network    = google_compute_network.this.id
  subnetwork = google_compute_subnetwork.this.id

  workload_identity_config {
    workload_pool = "${var.project}.svc.id.goog"
  }

  # Dataplane V2 enforces NetworkPolicy; no network_policy block is needed (or allowed) with it.
  datapath_provider = "ADVANCED_DATAPATH"

  ip_allocation_policy {
    cluster_secondary_range_name  = "pods"
    services_secondary_range_name = "services"
  }

  # The channel picks the version (and upgrades it). Flex-start GPU pools need
  # 1.32.2-gke.1652000 or later, queued provisioning 1.28.3-gke.1098000: the
  # postcondition below stops the apply, before any GPU pool, on anything
  # older than 1.33.
  release_channel {
    channel = var.release_channel
  }

  # GKE creates a default pool it must have at creation; it is removed at once
  # and replaced by the small system pool below, so GPU pools are all this
  # configuration's.
  remove_default_node_pool = true
  initial_node_count       = 1

  deletion_protection = var.deletion_protection

  lifecycle {
    postcondition {
      condition     = try(tonumber(regex("^1\\.(\\d+)\\.", self.master_version)[0]) >= 33, false)
      error_message = "GKE ${self.master_version} is older than flex-start GPU pools need (1.32.2-gke.1652000; this example asks for 1.33 or later): choose a channel that offers a newer version."
    }
  }
}

# The nodes' own identity: logs and metrics only (GKE's
# roles/container.defaultNodeServiceAccount), not the Compute Engine default
# service account's Editor.
resource "google_service_account" "nodes" {
  project      = var.project
  account_id   = "${var.cluster_name}-nodes"
  display_name = "GKE nodes of ${var.cluster_name}"
}

resource "google_project_iam_member" "nodes" {
  project = var.project
  role    = "roles/container.defaultNodeServiceAccount"
  member  = google_service_account.nodes.member
}

# System pool: Kueue, JobSet, kube-dns and the other system pods. One
# e2-standard-4 per zone of the region (three), no GPUs.
resource "google_container_node_pool" "system" {
  project    = var.project
  name       = "system"
  location   = var.region
  cluster    = google_container_cluster.this.name
  node_count = 1

  node_config {
    machine_type    = "e2-standard-4"
    service_account = google_service_account.nodes.email
    oauth_scopes    = ["https://www.googleapis.com/auth/cloud-platform"]
    workload_metadata_config {
      mode = "GKE_METADATA"
    }
  }

  depends_on = [google_project_iam_member.nodes]
}
