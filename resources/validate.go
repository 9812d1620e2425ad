package resources

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// addSpecErrors reports spec problems as attribute errors, skipping those on
// attributes whose value is not known yet (they are checked again at apply).
func addSpecErrors(diags *diag.Diagnostics, errs spec.FieldErrors, known map[string]bool) {
	var keep spec.FieldErrors
	for _, e := range errs {
		if root, ok := e.Path[0].(string); ok && !known[root] {
			continue
		}
		keep = append(keep, e)
	}
	diagnostics.FieldErrors(diags, keep)
}
