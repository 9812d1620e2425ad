package main

import "github.com/mlplatform/terraform-provider-mlplatform/internal/buildinfo"

// The release build sets version with -ldflags "-X main.version=<tag>" (see
// .goreleaser.yml); `go install .../cmd/mlplatform@vX.Y.Z` sets none, and
// buildinfo reads the module version then.
func init() { version = buildinfo.Version(version) }
