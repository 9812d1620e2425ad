# --- Network: a VPC and one subnet with Private Google Access ---------------------
# The teams' default-deny network policy (modules/team) lets training pods reach
# Google APIs only at private.googleapis.com (199.36.153.8/30, TCP 443). That
# works when the subnet has Private Google Access and *.googleapis.com resolves
# to that range inside the VPC: the private DNS zone below does both, as
# Google's "Configure Private Google Access" page describes.
resource "google_compute_network" "this" {
  project                 = var.project
  name                    = var.cluster_name
  auto_create_subnetworks = false
}

resource "google_compute_subnetwork" "this" {
  project                  = var.project
  name                     = "${var.cluster_name}-${var.region}"
  region                   = var.region
  network                  = google_compute_network.this.id
  ip_cidr_range            = "10.0.0.0/20"
  private_ip_google_access = true

  # VPC-native cluster (Dataplane V2 needs it): pods and services get ranges of their own.
  secondary_ip_range {
    range_name    = "pods"
    ip_cidr_range = "10.16.0.0/14"
  }
  secondary_ip_range {
    range_name    = "services"
    ip_cidr_range = "10.20.0.0/20"
  }
}

# *.googleapis.com -> private.googleapis.com -> 199.36.153.8/30, for this VPC only.
resource "google_dns_managed_zone" "googleapis" {
  project    = var.project
  name       = "${var.cluster_name}-googleapis"
  dns_name   = "googleapis.com."
  visibility = "private"
  private_visibility_config {
    networks {
      network_url = google_compute_network.this.id
    }
  }
}

resource "google_dns_record_set" "private_googleapis" {
  project      = var.project
  managed_zone = google_dns_managed_zone.googleapis.name
  name         = "private.googleapis.com."
  type         = "A"
  ttl          = 300
  rrdatas      = ["199.36.153.8", "199.36.153.9", "199.36.153.10", "199.36.153.11"]
}

resource "google_dns_record_set" "googleapis_cname" {
  project      = var.project
  managed_zone = google_dns_managed_zone.googleapis.name
  name         = "*.googleapis.com."
  type         = "CNAME"
  ttl          = 300
  rrdatas      = ["private.googleapis.com."]
}
