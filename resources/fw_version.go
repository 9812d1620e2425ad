// The provider's workarounds for terraform-plugin-framework's performance,
// each in a file of its own whose opening comment says what it replaces,
// what it gained, the version it targets and when to remove it:
//
//   - fw_model.go: models convert without the framework's reflection
//     (getModel, setState, setPlan, objectInto, modelObject, listOfModels,
//     mapOfModels, elementsInto, mapInto).
//   - fw_schema.go: every nested attribute's object type computed once per
//     schema (withObjectTypes), applied to every resource by All().
//   - fw_readshortcut.go: a refresh that finds no change leaves the state
//     as it came (modelUnchanged).
//   - internal/requestctx: each request's context released when the
//     request returns. It depends on the framework's protocol 6 server and
//     on terraform-plugin-go's server interfaces, and pins both versions
//     (requestctx.CheckedFrameworkVersion, CheckedPluginGoVersion).
//
// TestFrameworkVersionChecked (fw_version_test.go) fails when go.mod
// requires a terraform-plugin-framework or terraform-plugin-go other than
// the one these were checked against; its message says what to re-check.

package resources

// checkedFrameworkVersion is the terraform-plugin-framework version the
// workarounds of this package were written against and measured with.
const checkedFrameworkVersion = "v1.19.0"
