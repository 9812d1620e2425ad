package bench

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The benchmark applies the real example with only its teams replaced.
func TestConfigGrowsTheExample(t *testing.T) {
	t.Parallel()
	example, err := LoadExample(filepath.Join("..", "..", Example))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Config(example, 3)
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for name, text := range got {
		if text != example[name] {
			changed = append(changed, name)
		}
	}
	if diff := cmp.Diff([]string{"teams.tf"}, changed); diff != "" {
		t.Errorf("files changed (-want +got):\n%s", diff)
	}
	if _, ok := got["modules/team/main.tf"]; !ok {
		t.Errorf("the team module is missing: %v", slices.Sorted(maps.Keys(got)))
	}
	k := got["teams.tf"]
	for _, want := range []string{`t000 = { l4 = "1"`, `t001 = { l4 = "2"`, `t002 = { l4 = "3"`} {
		if !strings.Contains(k, want) {
			t.Errorf("teams.tf lacks %q", want)
		}
	}
	if strings.Contains(k, "vision =") || strings.Contains(k, "t003") {
		t.Errorf("teams.tf keeps the example's teams or has too many:\n%s", k)
	}
}

func TestConfigNeedsOneTeamsMap(t *testing.T) {
	t.Parallel()
	for name, files := range map[string]map[string]string{
		"none": {"main.tf": "locals {}\n"},
		"two":  {"a.tf": "locals {\n  teams = {\n  }\n}\n", "b.tf": "locals {\n  teams = {\n  }\n}\n"},
	} {
		if _, err := Config(files, 1); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Resources counts the root's resource blocks once and the team module's
// once per team; other modules and non-resource blocks do not count.
func TestResourcesCountsBlocks(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"main.tf":               "resource \"a\" \"x\" {}\nresource \"a\" \"y\" {\n  z = 1\n}\ndata \"a\" \"d\" {}\n",
		"teams.tf":              "module \"team\" {\n  for_each = local.teams\n}\n",
		"modules/team/main.tf":  "resource \"b\" \"one\" {}\n",
		"modules/team/more.tf":  "resource \"b\" \"two\" {}\n# resource \"b\" \"commented\" {}\nresource \"b\" \"three\" {}\n",
		"modules/other/main.tf": "resource \"c\" \"x\" {}\n",
	}
	if got := Resources(files, 4); got != 2+4*3 {
		t.Errorf("Resources = %d, want 14", got)
	}
	example, err := LoadExample(filepath.Join("..", "..", Example))
	if err != nil {
		t.Fatal(err)
	}
	if perTeam := Resources(example, 2) - Resources(example, 1); perTeam != 5 || Resources(example, 0) != 13 {
		t.Errorf("the example counts %d shared resources and %d per team; bench/README.md says 13 and 5",
			Resources(example, 0), perTeam)
	}
}
