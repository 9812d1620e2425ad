# A team: namespace, Workload Identity, network policy and queues.
terraform {
  required_providers {
    mlplatform = { source = "mlplatform/mlplatform" }
  }
}

variable "prefix" { type = string }
variable "team" { type = string }
variable "flavor" { type = string }
variable "gpus" { type = string }
variable "metadata_server" {
  type    = bool
  default = true
}

resource "mlplatform_team_namespace" "this" {
  name = "${var.prefix}-team-${var.team}"
  team = var.team
}

resource "mlplatform_workload_identity" "trainer" {
  namespace                     = mlplatform_team_namespace.this.name
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "${var.prefix}-${var.team}-trainer" }
}

# metadata_server = false keeps the trainer's pods from their tokens: MLP011.
resource "mlplatform_training_network_policy" "this" {
  namespace       = mlplatform_team_namespace.this.name
  metadata_server = var.metadata_server
}

resource "mlplatform_cluster_queue" "this" {
  name               = "${var.prefix}-team-${var.team}"
  namespace_selector = mlplatform_team_namespace.this.selector
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors           = [{ name = var.flavor, resources = [{ name = "nvidia.com/gpu", nominal_quota = var.gpus }] }]
  }]
}

resource "mlplatform_local_queue" "gpu" {
  namespace     = mlplatform_team_namespace.this.name
  name          = "gpu"
  cluster_queue = mlplatform_cluster_queue.this.name
}
