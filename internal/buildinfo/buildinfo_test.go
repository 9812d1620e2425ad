package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestVersion(t *testing.T) {
	t.Parallel()
	built := func(v string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) { return &debug.BuildInfo{Main: debug.Module{Version: v}}, true }
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	tests := []struct {
		name, linked string
		info         func() (*debug.BuildInfo, bool)
		want         string
	}{
		{"ldflags win", "1.2.3", built("v0.9.0"), "1.2.3"},
		{"go install @v0.4.0", "dev", built("v0.4.0"), "0.4.0"},
		{"built in the work tree", "dev", built("(devel)"), "dev"},
		{"no build info", "dev", none, "dev"},
	}
	for _, tc := range tests {
		if got := version(tc.linked, tc.info); got != tc.want {
			t.Errorf("%s: version(%q) = %q, want %q", tc.name, tc.linked, got, tc.want)
		}
	}
}
