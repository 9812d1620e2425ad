// Package bench measures `terraform plan` of a generated platform against the
// local control plane: the configuration generator, Terraform alone's
// baseline, the request counters, and the report (tables, the provider's share,
// exit criteria) `make bench` prints and writes under bench/.
package bench

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Example is where the configuration the benchmark grows lives.
const Example = "examples/training-cluster"

// LoadExample reads the .tf files of dir (Example, from the repository
// root) and of its local modules, by slash-separated path relative to dir
// ("main.tf", "modules/team/main.tf").
func LoadExample(dir string) (map[string]string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") { // .terraform
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(p) != ".tf" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err == nil && len(files) == 0 {
		err = errors.New("none found")
	}
	if err != nil {
		return nil, fmt.Errorf("no .tf files in %s (run make bench from the repository root): %w", dir, err)
	}
	return files, nil
}

// WriteExample writes files (as LoadExample returns them) under dir.
func WriteExample(dir string, files map[string]string) error {
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// teamsRE finds the example's map of teams, `teams = { ... }` in its locals.
var teamsRE = regexp.MustCompile(`(?m)^  teams = \{\n(?:    .*\n)*  \}\n`)

// Config is examples/training-cluster (example, its files by name) grown to
// n teams: its teams map is replaced, everything else is the example as it
// is. So it declares shared 4 GPU pools, 4 flavors wired from them, a
// cohort, the flex-start admission check and 3 priority classes, and per
// team a namespace, a Workload Identity binding to a Google service account
// made for the team, a default-deny network policy, a ClusterQueue with GPU,
// CPU and memory quota on the 4 flavors, and a LocalQueue. Teams are t000,
// t001, ...; the teams of a smaller n are a prefix of those of a larger one,
// so growing n only adds resources.
func Config(example map[string]string, n int) (map[string]string, error) {
	var teams strings.Builder
	teams.WriteString("  teams = {\n")
	for i := range n {
		// Quotas vary per team, like a real platform's.
		fmt.Fprintf(&teams, "    %s = { l4 = \"%d\", h100_spot = \"%d\", h100_flex = \"%d\", a100_mig = \"%d\" }\n",
			TeamName(i), 1+i%4, 8*(1+i%2), 8*(1+i%4), 1+i%7)
	}
	teams.WriteString("  }\n")
	out := map[string]string{}
	found := 0
	for name, text := range example {
		if loc := teamsRE.FindStringIndex(text); loc != nil {
			text = text[:loc[0]] + teams.String() + text[loc[1]:]
			found++
		}
		out[name] = text
	}
	if found != 1 {
		return nil, fmt.Errorf("the example must declare its teams once as `  teams = { ... }` in a locals block; found %d", found)
	}
	return out, nil
}

// TeamName is the key of team i in Config.
func TeamName(i int) string { return fmt.Sprintf("t%03d", i) }

// Resources is the number of resource instances Config(example, n) (or
// Baseline(n), its shape) declares, counted from example: each resource
// block of the root module once, each of modules/team once per team. The
// example uses no count or for_each but the teams module's; `make bench`
// checks the count against the state after each apply.
func Resources(example map[string]string, n int) int {
	total := 0
	for name, text := range example {
		blocks := len(resourceBlockRE.FindAllString(text, -1))
		switch {
		case !strings.Contains(name, "/"):
			total += blocks
		case strings.HasPrefix(name, "modules/team/"):
			total += n * blocks
		}
	}
	return total
}

var resourceBlockRE = regexp.MustCompile(`(?m)^resource "`)
