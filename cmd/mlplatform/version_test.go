package main

import (
	"bytes"
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
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
		if got := moduleVersion(tc.linked, tc.info); got != tc.want {
			t.Errorf("%s: moduleVersion(%q) = %q, want %q", tc.name, tc.linked, got, tc.want)
		}
	}
}

func TestVersionCommandPrintsVersion(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "0.1.0-SNAPSHOT-abc1234"
	var out, errOut bytes.Buffer
	if code := run([]string{"version"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if got, want := out.String(), "mlplatform 0.1.0-SNAPSHOT-abc1234\n"; got != want {
		t.Errorf("mlplatform version printed %q, want %q", got, want)
	}
}
