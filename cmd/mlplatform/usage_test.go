package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// The top-level usage names every flag each subcommand defines (as its own
// --help lists them), so it cannot fall behind one.
func TestUsageNamesEveryFlag(t *testing.T) {
	t.Parallel()
	flagLine := regexp.MustCompile(`(?m)^\s+(-{1,2}[a-z][-a-z]*(?:,\s*--[a-z][-a-z]*)*)`)
	name := regexp.MustCompile(`-{1,2}([a-z][-a-z]*)`)
	for _, args := range [][]string{{"sandbox", "up", "--help"}, {"report", "--help"}, {"doctor", "--help"}} {
		var out bytes.Buffer
		run(args, &out, &out)
		cmd := "mlplatform " + strings.Join(args[:len(args)-1], " ")
		line := usageOf(t, cmd)
		var flags []string
		for _, m := range flagLine.FindAllStringSubmatch(out.String(), -1) {
			for _, n := range name.FindAllStringSubmatch(m[1], -1) {
				flags = append(flags, n[1])
			}
		}
		if len(flags) < 3 {
			t.Fatalf("%s --help lists %d flags (%v); the test reads it wrong:\n%s", cmd, len(flags), flags, out.String())
		}
		for _, f := range flags {
			if !strings.Contains(line, "--"+f+" ") && !strings.Contains(line, "--"+f+"]") {
				t.Errorf("the usage of %s does not name --%s:\n%s", cmd, f, line)
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
