package resources

import "github.com/hashicorp/terraform-plugin-framework/diag"

// diagsHolder lets helpers shared by Create/Read/Update/Delete add to the
// response's diagnostics whatever the response type.
type diagsHolder struct{ diags *diag.Diagnostics }
