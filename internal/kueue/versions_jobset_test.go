package kueue

import (
	"os"
	"regexp"
	"testing"
)

// TestJobSetVersion: JobSetVersion is the sigs.k8s.io/jobset go.mod
// carries, the one the pinned Kueue requires.
func TestJobSetVersion(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*sigs\.k8s\.io/jobset (v\S+)`).FindSubmatch(b)
	if m == nil || string(m[1]) != JobSetVersion {
		t.Errorf("go.mod's sigs.k8s.io/jobset is %q, JobSetVersion %q", m, JobSetVersion)
	}
}
