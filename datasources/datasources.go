// Package datasources holds the mlplatform data sources: schema and the glue
// from the platform library to Terraform state, read-only. Like resources,
// no data source calls a cloud or Kubernetes client directly.
package datasources

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
)

// All lists every data source of the provider.
func All() []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewGPUCatalog,
		NewKueueConfiguration,
	}
}

// clientsFrom unpacks the provider's clients in a data source's Configure. It
// returns nil (without error) before the provider is configured.
func clientsFrom(data any, diags *diag.Diagnostics) *platform.Clients {
	if data == nil {
		return nil
	}
	c, ok := data.(*platform.Clients)
	if !ok {
		diags.AddError("Unexpected Provider Data",
			fmt.Sprintf("Expected *platform.Clients, got %T. This is a bug in the provider; please report it.", data))
		return nil
	}
	return c
}
