package main

import (
	"runtime/debug"
	"strings"
)

// The release build sets version with -ldflags "-X main.version=<tag>" (see
// .goreleaser.yml). `go install .../cmd/mlplatform@vX.Y.Z` sets no ldflags but
// records the module version in the binary: use it then.
func init() { version = moduleVersion(version, debug.ReadBuildInfo) }

// moduleVersion is v, unless v is "dev" and the binary was built from a tagged
// module (not "(devel)", which a build inside the work tree records).
func moduleVersion(v string, info func() (*debug.BuildInfo, bool)) string {
	if v != "dev" {
		return v
	}
	if bi, ok := info(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return v
}
