package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

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

// emptyString refuses "" in an optional string attribute. The spec cannot
// tell "" from unset (both read as ""), and the server never holds "" (it
// reads back as unset), so this one check is the schema's; the spec checks
// every other value. attr names the attribute in the message, advice says
// what to write instead.
type emptyString struct{ attr, advice string }

func (v emptyString) Description(context.Context) string {
	return v.attr + " must not be empty"
}

func (v emptyString) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v emptyString) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() || req.ConfigValue.ValueString() != "" {
		return
	}
	words := strings.FieldsFunc(v.attr, func(r rune) bool { return r == '_' || r == '.' })
	for i, w := range words {
		switch w {
		case "gpu":
			words[i] = "GPU"
		default:
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	resp.Diagnostics.AddAttributeError(req.Path, "Empty "+strings.Join(words, " "), fmt.Sprintf("Attribute %s: %s is set to \"\"; %s", req.Path, v.attr, v.advice))
}

// notEmpty is the emptyString check as a validator list: the one way an
// attribute refuses "" (every other value is the spec's to check).
func notEmpty(attr, advice string) []validator.String {
	return []validator.String{emptyString{attr: attr, advice: advice}}
}
