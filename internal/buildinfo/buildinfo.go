// Package buildinfo is the version both binaries (the provider and the
// mlplatform CLI) report.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is linked, the version set at link time (-ldflags "-X
// main.version=<tag>", as .goreleaser.yml and make build do), unless it is
// "dev" (nothing set) and the binary was built by `go install
// <module>@vX.Y.Z`, which records the module version: then that version.
func Version(linked string) string { return version(linked, debug.ReadBuildInfo) }

func version(linked string, info func() (*debug.BuildInfo, bool)) string {
	if linked != "dev" {
		return linked
	}
	// A build inside the work tree records "(devel)", not a version.
	if bi, ok := info(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return strings.TrimPrefix(bi.Main.Version, "v")
	}
	return linked
}
