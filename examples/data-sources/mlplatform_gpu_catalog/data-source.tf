# The GPUs a node pool can have and what they cost, from the provider itself
# (no request is made). Prices include the provider's prices/prices_file
# override, so this is the table GPU pool cost estimates use.
data "mlplatform_gpu_catalog" "this" {}

locals {
  h100 = data.mlplatform_gpu_catalog.this.accelerators["nvidia-h100-80gb"]

  # USD per GPU-hour, keyed "accelerator/capacity".
  gpu_hour = {
    for p in data.mlplatform_gpu_catalog.this.prices : "${p.accelerator}/${p.capacity}" => p.usd_per_gpu_hour
  }
}

output "h100_8_gpu_machine_types" {
  value = [for m in local.h100.machine_types : m.name if m.gpus_per_node == 8]
}

output "h100_spot_node_per_hour_usd" {
  description = "One 8-GPU H100 Spot node, per hour."
  value       = 8 * local.gpu_hour["nvidia-h100-80gb/spot"]
}

output "prices_taken" {
  value = "${data.mlplatform_gpu_catalog.this.prices_region} list prices of ${data.mlplatform_gpu_catalog.this.prices_date}"
}
