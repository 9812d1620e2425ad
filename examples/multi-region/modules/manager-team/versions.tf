terraform {
  required_version = ">= 1.5"
  required_providers {
    mlplatform = {
      source = "mlplatform/mlplatform"
    }
  }
}
