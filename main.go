// Command terraform-provider-mlplatform serves the mlplatform provider to
// Terraform over plugin protocol 6.
package main

import (
	"context"
	"flag"
	"log"
	"os"

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
	quietUnlessShown(os.Getenv, os.Setenv)
	if err := providerserver.Serve(context.Background(), provider.New(version), providerserver.ServeOpts{
		Address: Address,
		Debug:   debug,
	}); err != nil {
		log.Fatal(err)
	}
}

// quietUnlessShown turns the SDK's and the provider's logs off when
// Terraform would throw them away. terraform-plugin-go logs at TRACE unless
// told otherwise, and the framework traces every step of every request: each
// line is encoded as JSON, written to stderr and parsed by Terraform, which
// keeps it only when TF_LOG or TF_LOG_PROVIDER is set. Measured with `make
// bench` at 100 teams (511 resources): about a fifth of the provider's CPU.
// A level set explicitly (TF_LOG_SDK=DEBUG, ...) is left as it is.
func quietUnlessShown(getenv func(string) string, setenv func(string, string) error) {
	if getenv("TF_LOG") != "" || getenv("TF_LOG_PROVIDER") != "" {
		return
	}
	for _, v := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		if getenv(v) == "" {
			_ = setenv(v, "OFF")
		}
	}
}
