package testenv

import "fmt"

// TerraformRC is a Terraform CLI configuration that installs the provider
// from providerDir (a directory holding terraform-provider-mlplatform)
// through dev_overrides: no registry and no `terraform init`. Both registry
// hosts are overridden, because `source = "mlplatform/mlplatform"` means
// registry.terraform.io to Terraform and registry.opentofu.org to OpenTofu.
func TerraformRC(providerDir string) string {
	return fmt.Sprintf(`# The locally built mlplatform provider, no registry.
provider_installation {
  dev_overrides {
    "registry.terraform.io/mlplatform/mlplatform" = %[1]q
    "registry.opentofu.org/mlplatform/mlplatform" = %[1]q
  }
  direct {}
}
`, providerDir)
}
