package provider

import "github.com/mlplatform/terraform-provider-mlplatform/internal/spec"

func platformErr(attr, summary, detail string) spec.FieldErrors {
	return spec.FieldErrors{{Path: spec.Path{attr}, Summary: summary, Detail: detail}}
}
