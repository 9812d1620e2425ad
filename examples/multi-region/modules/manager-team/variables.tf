variable "name" {
  description = "The team's short name, as in the workers: its namespace and ClusterQueue are both called team-<name>."
  type        = string
}

variable "cohort" {
  description = "The manager's cohort the team's ClusterQueue lends to and borrows from."
  type        = string
}

variable "flavor" {
  description = "The manager's flavor (a plain one, without node labels) the quota is on."
  type        = string
}

variable "cpu" {
  description = "Nominal cpu quota: the sum of the team's quotas in the workers."
  type        = string
}

variable "memory" {
  description = "Nominal memory quota: the sum of the team's quotas in the workers."
  type        = string
}

variable "gpus" {
  description = "Nominal nvidia.com/gpu quota: the sum of the team's quotas in the workers."
  type        = string
}

variable "multikueue_check" {
  description = "Name of the mlplatform_multikueue_check the ClusterQueue lists, on all its flavors."
  type        = string
}
