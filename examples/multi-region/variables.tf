variable "project" {
  description = "Google Cloud project of the three GKE clusters. Unset: MLPLATFORM_PROJECT (then GOOGLE_PROJECT, GOOGLE_CLOUD_PROJECT), which the sandbox's env file sets."
  type        = string
  default     = null
}

# The defaults are the sandbox's clusters (`mlplatform sandbox up --workers 2`
# prints them); on real GKE set yours in terraform.tfvars.
variable "manager" {
  description = "The MultiKueue manager's GKE cluster: where jobs are submitted and queued. It runs no training pods."
  type        = object({ location = string, cluster = string })
  default     = { location = "us-central1", cluster = "training" }
}

variable "europe" {
  description = "The European worker's GKE cluster."
  type        = object({ location = string, cluster = string })
  default     = { location = "europe-west4", cluster = "worker-1" }
}

variable "us" {
  description = "The US worker's GKE cluster."
  type        = object({ location = string, cluster = string })
  default     = { location = "us-east4", cluster = "worker-2" }
}
