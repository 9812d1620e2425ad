package testenv

import (
	"strings"
	"testing"
)

// Terraform and OpenTofu each resolve "mlplatform/mlplatform" on their own
// registry host; both must point at the built provider.
func TestTerraformRCOverridesBothRegistries(t *testing.T) {
	t.Parallel()
	rc := TerraformRC(`/tmp/my "bin"`)
	for _, want := range []string{
		`"registry.terraform.io/mlplatform/mlplatform" = "/tmp/my \"bin\""`,
		`"registry.opentofu.org/mlplatform/mlplatform" = "/tmp/my \"bin\""`,
		"direct {}",
	} {
		if !strings.Contains(rc, want) {
			t.Errorf("TerraformRC lacks %s:\n%s", want, rc)
		}
	}
}
