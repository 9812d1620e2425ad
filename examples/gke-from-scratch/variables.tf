variable "project" {
  description = "Google Cloud project to build the platform in. Its APIs must be enabled first (README)."
  type        = string
}

variable "region" {
  description = "Region of the cluster, its subnet and its GPU pools. It must offer the GPUs of pools.tf (L4 and H100 in us-central1)."
  type        = string
  default     = "us-central1"
}

variable "cluster_name" {
  description = "Name of the GKE cluster (and prefix of its network's names)."
  type        = string
  default     = "training"
}

variable "release_channel" {
  description = "GKE release channel (RAPID, REGULAR or STABLE). Its version must be 1.33 or later (cluster.tf's postcondition): flex-start GPU pools need 1.32.2-gke.1652000, queued provisioning 1.28.3-gke.1098000."
  type        = string
  default     = "REGULAR"
}

variable "deletion_protection" {
  description = "Refuse to destroy the cluster (the google provider's default is true). Set false to tear the example down."
  type        = bool
  default     = true
}
