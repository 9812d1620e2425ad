package kueue

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The supported range is said once (versions.go) and built and tested from
// other files: go.mod builds the provider with the newest release,
// scripts/tools.sh builds both ends' managers, the GNUmakefile's compat
// target runs on the oldest, and the README states the range.
func TestSupportedRangeInStep(t *testing.T) {
	t.Parallel()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	find := func(name, pattern string) string {
		t.Helper()
		m := regexp.MustCompile(pattern).FindStringSubmatch(read(name))
		if m == nil {
			t.Fatalf("%s: no match for %s", name, pattern)
		}
		return m[1]
	}
	for _, c := range []struct{ name, got, want string }{
		{"go.mod sigs.k8s.io/kueue", find("go.mod", `(?m)^\s*sigs\.k8s\.io/kueue (v\S+)`), NewestVersion},
		{"scripts/tools.sh KUEUE_VERSION", "v" + find("scripts/tools.sh", `(?m)^KUEUE_VERSION=\$\{KUEUE_VERSION:-([0-9.]+)\}`), NewestVersion},
		{"scripts/tools.sh KUEUE_OLDEST_VERSION", "v" + find("scripts/tools.sh", `(?m)^KUEUE_OLDEST_VERSION=\$\{KUEUE_OLDEST_VERSION:-([0-9.]+)\}`), OldestVersion},
	} {
		if c.got != c.want {
			t.Errorf("%s is %s, want %s (internal/kueue/versions.go)", c.name, c.got, c.want)
		}
	}
	if readme := read("README.md"); !strings.Contains(readme, SupportedRange()) {
		t.Errorf("the README does not state the supported range, %q", SupportedRange())
	}
}

func TestSupported(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v                string
		supported, known bool
	}{
		{"v0.16.9", false, true}, {"v0.17.0", true, true}, {"v0.18.6", true, true}, {"v0.19.2", true, true},
		{"v0.19.99", true, true}, {"v0.20.0", false, true}, {"v0.20.0-rc.1", false, true}, {"main", false, false}, {"v0.19", false, false},
	} {
		if s, k := Supported(c.v); s != c.supported || k != c.known {
			t.Errorf("Supported(%q) = %v, %v; want %v, %v", c.v, s, k, c.supported, c.known)
		}
	}
	if got := SupportedRange(); got != "Kueue v0.17.0 to v0.19.x" {
		t.Errorf("SupportedRange() = %q", got)
	}
}
