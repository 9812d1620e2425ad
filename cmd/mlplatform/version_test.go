package main

import (
	"bytes"
	"testing"
)

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
