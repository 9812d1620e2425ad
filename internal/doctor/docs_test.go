package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every check has its section in the checks guide, under its identifier and
// short name, so a finding can be looked up.
func TestEveryCheckIsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "checks.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	live := string(doc)
	i := strings.Index(live, "## Live checks (mlplatform doctor)")
	if i < 0 {
		t.Fatal(`templates/guides/checks.md.tmpl has no "## Live checks (mlplatform doctor)" section`)
	}
	live = live[i:]
	for _, c := range Checks {
		if !strings.Contains(live, "### "+c.ID+" "+c.Slug+" (") {
			t.Errorf("the checks guide's live section has no %q", "### "+c.ID+" "+c.Slug)
		}
	}
}
