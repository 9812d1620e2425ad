variable "name" {
  description = "The team's short name. Its namespace and ClusterQueue are both called team-<name>."
  type        = string
}

variable "cohort" {
  description = "The cohort the team's ClusterQueue lends to and borrows from."
  type        = string
}

variable "flavors" {
  description = <<-EOT
    The team's quota per flavor, in the order Kueue tries the flavors. gpus is the
    nominal quota of nvidia.com/gpu; gpu_lending_limit caps what the cohort may
    borrow of it while the team does not use it (unset: all of it).
  EOT
  type = list(object({
    name              = string
    cpu               = string
    memory            = string
    gpus              = string
    gpu_lending_limit = optional(string)
  }))
}

variable "admission_checks" {
  description = "Admission checks of the team's ClusterQueue: check name => the flavors it applies to."
  type        = map(list(string))
  default     = {}
}

variable "scrape_from_namespaces" {
  description = "Namespaces (e.g. Prometheus's) allowed to reach the trainers' metrics port 9090."
  type        = list(string)
  default     = ["monitoring"]
}

variable "google_service_account_id" {
  description = <<-EOT
    account_id of the Google service account made for the team's trainers
    (6 to 30 characters). Unset: <name>-trainer. Give each instance its own
    when one project holds the same team in several clusters (the MultiKueue
    workers of examples/multi-region), as a project has one account per id.
  EOT
  type        = string
  default     = null
}
