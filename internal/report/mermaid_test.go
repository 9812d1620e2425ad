package report

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// Mermaid's own parser (mermaid.parse, the npm package mermaid that GitHub's
// renderer is built on) judges every diagram of the Markdown goldens and of
// TestDiagram: tools/mermaid/parse.mjs, with the packages scripts/mermaid.sh
// installs (`make unit` runs it). Without Node.js or those packages the
// tests skip and say what to install; when make has installed them
// (MLPLATFORM_MERMAID_DIR set) they must run.

type mermaidDiagram struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

var mermaidBlock = regexp.MustCompile("(?s)```mermaid\n(.*?)```\n")

// goldenDiagrams are the diagrams of testdata/*.md and of diagramCases.
func goldenDiagrams(t *testing.T) []mermaidDiagram {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []mermaidDiagram
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mermaidBlock.FindAllStringSubmatch(string(b), -1) {
			out = append(out, mermaidDiagram{f, m[1]})
		}
	}
	var names []string
	cases := diagramCases()
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if src := cases[name].want; src != "" {
			out = append(out, mermaidDiagram{"TestDiagram/" + name, src})
		}
	}
	return out
}

// mermaidDir is where scripts/mermaid.sh installed tools/mermaid's packages.
func mermaidDir(t *testing.T) string {
	t.Helper()
	const install = "install Node.js (>= 18.19) with npm; then make unit, or scripts/mermaid.sh, installs the npm packages"
	node, err := exec.LookPath("node")
	dir, fromMake := os.LookupEnv("MLPLATFORM_MERMAID_DIR")
	switch {
	case fromMake && dir != "" && err != nil:
		t.Fatalf("MLPLATFORM_MERMAID_DIR is set but node is not on PATH: %v", err)
	case fromMake && dir != "":
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "mermaid")); err != nil {
			t.Fatalf("MLPLATFORM_MERMAID_DIR=%s has no mermaid: %v (run scripts/mermaid.sh)", dir, err)
		}
		return dir
	case err != nil || node == "":
		t.Skip("Mermaid's parser needs Node.js, which is not on PATH: " + install)
	}
	cache := os.Getenv("MLPLATFORM_CACHE")
	if cache == "" {
		base := os.Getenv("XDG_CACHE_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				t.Skip("no cache directory for Mermaid's parser: " + install)
			}
			base = filepath.Join(home, ".cache")
		}
		cache = filepath.Join(base, "mlplatform")
	}
	// the key scripts/mermaid.sh gives the install: package.json and package-lock.json
	h := sha256.New()
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "tools", "mermaid", f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	dir = filepath.Join(cache, "mermaid-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, ".installed")); err != nil {
		t.Skip("Mermaid's parser (npm packages mermaid and jsdom) is not installed in " + dir + ": run scripts/mermaid.sh")
	}
	return dir
}

// parseMermaid runs Mermaid's parser over the diagrams: the error of each
// by name, "" when Mermaid accepts it.
func parseMermaid(t *testing.T, diagrams []mermaidDiagram) map[string]string {
	t.Helper()
	dir := mermaidDir(t)
	in, err := json.Marshal(diagrams)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("..", "..", "tools", "mermaid", "parse.mjs"), dir)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node tools/mermaid/parse.mjs: %v\n%s", err, stderr.String())
	}
	var results []struct {
		Name  string `json:"name"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("parse.mjs wrote %q: %v\n%s", out, err, stderr.String())
	}
	if len(results) != len(diagrams) {
		t.Fatalf("parse.mjs judged %d diagrams of %d", len(results), len(diagrams))
	}
	got := map[string]string{}
	for i, r := range results {
		got[diagrams[i].Name] = r.Error
	}
	return got
}

func TestMermaidAcceptsTheDiagrams(t *testing.T) {
	diagrams := goldenDiagrams(t)
	if len(diagrams) < 10 {
		t.Fatalf("only %d diagrams in the goldens", len(diagrams))
	}
	errs := parseMermaid(t, diagrams)
	for _, d := range diagrams {
		if e := errs[d.Name]; e != "" {
			t.Errorf("Mermaid rejects the diagram of %s: %s\n%s", d.Name, e, d.Source)
		}
	}
}

// The parser test can fail: the example's diagram with each of the mistakes
// a generator could make is rejected, and the diagram as it is accepted.
func TestMermaidRejectsBrokenDiagrams(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "real_training_cluster.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := mermaidBlock.FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("testdata/real_training_cluster.md has no diagram")
	}
	src := m[1]
	broken := map[string]func(string) string{
		"a quote in a label": func(s string) string {
			return strings.Replace(s, `"namespace team-nlp (new)"`, `"namespace "team-nlp" (new)"`, 1)
		},
		"a subgraph without its end": func(s string) string { return strings.Replace(s, "\n  end\n", "\n", 1) },
		"a linkStyle past the last edge": func(s string) string {
			return s + "  linkStyle 99 stroke:#d97706\n"
		},
		"a node named end": func(s string) string { return s + "  end --> ns_team_nlp\n" },
		"an edge label left open": func(s string) string {
			return strings.Replace(s, `-->|"— → 64"|`, `-->|"— → 64|`, 1)
		},
	}
	diagrams := []mermaidDiagram{{"as it is", src}}
	for name, f := range broken {
		got := f(src)
		if got == src {
			t.Fatalf("%s: the mutation changed nothing", name)
		}
		diagrams = append(diagrams, mermaidDiagram{name, got})
	}
	errs := parseMermaid(t, diagrams)
	if e := errs["as it is"]; e != "" {
		t.Fatalf("Mermaid rejects the example's diagram: %s", e)
	}
	for name := range broken {
		if errs[name] == "" {
			t.Errorf("Mermaid accepts the example's diagram with %s", name)
		}
	}
}
