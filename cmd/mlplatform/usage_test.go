package main

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The top-level usage names every flag each subcommand defines (as its own
// --help lists them), and no flag it does not define, so it can neither fall
// behind a flag nor keep one that is gone.
func TestUsageNamesEveryFlag(t *testing.T) {
	t.Parallel()
	// A flag line of --help, up to its description: "  -dir string" (the
	// flag package) or "  --kubeconfig PATH, --kube-context   (...)".
	flagLine := regexp.MustCompile(`(?m)^[ \t]+(-{1,2}[a-z].*?)(?:[ \t]{2,}|$)`)
	name := regexp.MustCompile(`(?:^|[ ,])-{1,2}([a-z][-a-z]*)`)
	inUsage := regexp.MustCompile(`--([a-z][-a-z]*)`)
	for _, c := range []struct {
		args     []string
		minFlags int // fewer: the test reads --help wrong
	}{
		{[]string{"sandbox", "up", "--help"}, 5},
		{[]string{"sandbox", "down", "--help"}, 1},
		{[]string{"sandbox", "status", "--help"}, 2},
		{[]string{"report", "--help"}, 3},
		{[]string{"doctor", "--help"}, 3},
		{[]string{"permissions", "--help"}, 2},
	} {
		var out bytes.Buffer
		run(c.args, &out, &out)
		cmd := "mlplatform " + strings.Join(c.args[:len(c.args)-1], " ")
		line := usageOf(t, cmd)
		var flags []string
		for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
			for _, n := range name.FindAllStringSubmatch(m[1], -1) {
				flags = append(flags, n[1])
			}
		}
		if len(flags) < c.minFlags {
			t.Fatalf("%s --help lists %d flags (%v); the test reads it wrong:\n%s", cmd, len(flags), flags, out.String())
		}
		for _, f := range flags {
			if !strings.Contains(line, "--"+f+" ") && !strings.Contains(line, "--"+f+"]") {
				t.Errorf("the usage of %s does not name --%s:\n%s", cmd, f, line)
			}
		}
		for _, m := range inUsage.FindAllStringSubmatch(line, -1) {
			if !slices.Contains(flags, m[1]) {
				t.Errorf("the usage of %s names --%s, which %s --help does not list:\n%s", cmd, m[1], cmd, out.String())
			}
		}
	}
	if !strings.Contains(usage, "--fail-on overcommit,drift,checks") {
		t.Errorf("the usage does not name every --fail-on condition:\n%s", usage)
	}
}

// usageOf is the part of the top-level usage about one command: its line
// and the indented lines under it.
func usageOf(t *testing.T, cmd string) string {
	t.Helper()
	i := strings.Index(usage, "  "+cmd)
	if i < 0 {
		t.Fatalf("the usage has no %q", cmd)
	}
	rest := usage[i+2:]
	if j := strings.Index(rest, "\n  mlplatform "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
