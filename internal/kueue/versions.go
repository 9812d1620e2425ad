package kueue

import (
	"fmt"
	"strings"
)

// The Kueue releases the provider supports: every release from OldestVersion
// up to, not including, FirstUnsupportedVersion. Both ends are tested:
// NewestVersion (the sigs.k8s.io/kueue module in go.mod, and KUEUE_VERSION in
// scripts/tools.sh) runs the acceptance suite, OldestVersion
// (KUEUE_OLDEST_VERSION) the compatibility suite and the upgrade test; tests
// keep go.mod, scripts/tools.sh, the README and the docs in step with these.
const (
	OldestVersion = "v0.17.0"
	NewestVersion = "v0.19.2"
	// FirstUnsupportedVersion is the first release the provider is not
	// tested with; v0.20 also stops serving v1beta1 (Kueue's v0.16 release
	// notes announced the end of v1beta1 and the migration script).
	FirstUnsupportedVersion = "v0.20.0"
	// JobSetVersion is the JobSet release NewestVersion is built against
	// (sigs.k8s.io/jobset in its go.mod, which scripts/tools.sh installs
	// and go.mod carries; TestJobSetVersion keeps them equal).
	JobSetVersion = "v0.12.0"
)

// SupportedRange says the range in words, e.g. "Kueue v0.17.0 to v0.19.x".
func SupportedRange() string {
	return fmt.Sprintf("Kueue %s to %s", OldestVersion, minorX(NewestVersion))
}

// Supported reports whether version (vMAJOR.MINOR.PATCH, pre-release
// suffixes ignored) is in the supported range; known is false when version
// is not such a tag.
func Supported(version string) (supported, known bool) {
	if _, ok := parseVersion(version); !ok {
		return false, false
	}
	return !VersionLess(version, OldestVersion) && VersionLess(version, FirstUnsupportedVersion), true
}

// VersionLess compares vMAJOR.MINOR.PATCH tags (pre-release suffixes
// ignored); a tag that is not one sorts first.
func VersionLess(a, b string) bool {
	pa, _ := parseVersion(a)
	pb, _ := parseVersion(b)
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i]
		}
	}
	return false
}

// ParseVersion reports whether v is a vMAJOR.MINOR.PATCH tag.
func ParseVersion(v string) bool { _, ok := parseVersion(v); return ok }

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		if _, err := fmt.Sscanf(p, "%d", &out[i]); err != nil {
			return out, false
		}
	}
	return out, true
}

// minorX turns v0.19.2 into v0.19.x.
func minorX(v string) string { return v[:strings.LastIndex(v, ".")] + ".x" }
