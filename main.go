// Command terraform-provider-mlplatform serves the mlplatform provider to
// Terraform over plugin protocol 6.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/buildinfo"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/requestctx"
	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

// version is set by the release build (-ldflags "-X main.version=..."; see
// .goreleaser.yml); a `go install ...@vX.Y.Z` build takes the module version.
var version = "dev"

// Address is the provider's registry address.
const Address = "registry.terraform.io/mlplatform/mlplatform"

//go:generate bash scripts/docs.sh

func main() {
	var debugMode, showVersion bool
	flag.BoolVar(&debugMode, "debug", false, "run with support for debuggers like delve")
	flag.BoolVar(&showVersion, "version", false, "print the version and exit")
	flag.Parse()
	version = buildinfo.Version(version)
	if showVersion {
		fmt.Println("terraform-provider-mlplatform", version)
		return
	}
	quietUnlessShown(os.Getenv, os.Setenv)
	defer profile(os.Getenv("MLPLATFORM_PPROF_DIR"))()
	var opts []tf6server.ServeOpt
	if debugMode {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	if err := tf6server.Serve(Address, serverFactory(version), opts...); err != nil {
		log.Fatal(err)
	}
}

// serverFactory is what providerserver.Serve would serve, with each request's
// context released when the request returns (see internal/requestctx: the
// framework otherwise keeps every request's context until StopProvider).
func serverFactory(version string) func() tfprotov6.ProviderServer {
	return func() tfprotov6.ProviderServer {
		return requestctx.Wrap(providerserver.NewProtocol6(provider.New(version)())())
	}
}

// profile writes a CPU profile and, at the end, a heap profile into dir
// (for make bench investigations); nothing when dir is empty.
func profile(dir string) func() {
	if dir == "" {
		return func() {}
	}
	name := filepath.Join(dir, fmt.Sprintf("provider-%d", os.Getpid()))
	cpu, err := os.Create(name + ".cpu.pprof")
	if err != nil {
		log.Printf("profile: %v", err)
		return func() {}
	}
	_ = pprof.StartCPUProfile(cpu)
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		if g, err := os.Create(name + ".goroutine.txt"); err == nil {
			_ = pprof.Lookup("goroutine").WriteTo(g, 1)
			_ = g.Close()
		}
		runtime.GC() // the heap profile then shows what is retained, not garbage
		if heap, err := os.Create(name + ".heap.pprof"); err == nil {
			_ = pprof.Lookup("allocs").WriteTo(heap, 0)
			_ = heap.Close()
		}
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
