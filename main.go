// Command terraform-provider-mlplatform serves the mlplatform provider to
// Terraform over plugin protocol 6.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

// version is set by the release build (-ldflags "-X main.version=...").
var version = "dev"

// Address is the provider's registry address.
const Address = "registry.terraform.io/mlplatform/mlplatform"

//go:generate bash scripts/docs.sh

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run with support for debuggers like delve")
	flag.Parse()
	if err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: Address,
		Debug:   debug,
	}); err != nil {
		log.Fatal(err)
	}
}
