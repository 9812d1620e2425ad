package spec

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The package states facts and leaves the configuration language to its
// callers: no string in its source writes an assignment (capacity =
// "reservation", queued_provisioning = false), names Terraform, its
// lifecycle block or HCL, or holds a brace (object syntax; in a message
// format a brace would also read as a reference to a setting). Settings go
// in as data (set, obj), and internal/diagnostics writes them.
func TestMessagesNameNoConfigurationLanguage(t *testing.T) {
	t.Parallel()
	words := regexp.MustCompile(`(?i)\bterraform\b|\blifecycle\b|\bhcl\b|\S = \S|\S = $|^= `)
	braces := regexp.MustCompile(`[{}]`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literals := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.ImportSpec); ok {
				return false // import paths name the module, not the reader's language
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
			}
			literals++
			if m := words.FindString(s); m != "" {
				t.Errorf("%s: %q names the configuration language (%q); pass settings as data (set, obj) and leave its words to internal/diagnostics", fset.Position(lit.Pos()), s, m)
			}
			if name != "settings.go" && braces.MatchString(s) {
				t.Errorf("%s: %q has a brace; pass the value as data (obj) instead", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
	if literals < 100 {
		t.Fatalf("only %d string literals found in %s: the scan is not reading the package", literals, strings.Join(files, ", "))
	}
}

func TestTextf(t *testing.T) {
	t.Parallel()
	hclish := Notation{Assign: " = ", OpenObject: "{ ", CloseObject: " }", Ref: func(r Ref) string {
		if r == ProjectNumberRef {
			return "project.number"
		}
		return ""
	}}
	inner := textf("or %v (for %q)", set("mode", "direct"), "{1}")
	cases := map[string]struct {
		t            text
		plain, other string
	}{
		"no settings": {textf("%q is %d {x}", "a{0}", 3), `"a{0}" is 3 {x}`, `"a{0}" is 3 {x}`},
		"a setting, used twice": {textf("needs %v; set %[1]v, or remove %s.", set("capacity", "reservation"), "name"),
			`needs capacity: "reservation"; set capacity: "reservation", or remove name.`,
			`needs capacity = "reservation"; set capacity = "reservation", or remove name.`},
		"values": {textf("%v, %v, %v, %v", set("a.b", false), set("n", 200), set("values", []any{"x", 1}), obj(Key("ValidUntilSeconds"), "3600", Key("a/b"), "")),
			`a.b: false, n: 200, values: ["x", 1], {ValidUntilSeconds: "3600", "a/b": ""}`,
			`a.b = false, n = 200, values = ["x", 1], { ValidUntilSeconds = "3600", "a/b" = "" }`},
		"nested": {textf("e.g. %v", obj("name", "f", "resources", []any{obj("name", "cpu")}, "empty", Object{})),
			`e.g. {name: "f", resources: [{name: "cpu"}], empty: {}}`, `e.g. { name = "f", resources = [{ name = "cpu" }], empty = {} }`},
		"ref": {textf("from %v", ProjectNumberRef), "from the Google Cloud project's number", "from project.number"},
		"user braces stay as written": {textf("%q (%s) has %v", "{0}}{{", "{}", set("k", "{0}")),
			`"{0}}{{" ({}) has k: "{0}"`, `"{0}}{{" ({}) has k = "{0}"`},
		"spliced": {textf("set %v %s, %v", set("x", 1), inner, set("y", 2)),
			`set x: 1 or mode: "direct" (for "{1}"), y: 2`, `set x = 1 or mode = "direct" (for "{1}"), y = 2`},
		"spliced without settings": {textf("%v: %s", set("x", 1), textf("%s", "{0}")), `x: 1: {0}`, `x = 1: {0}`},
		"spliced into plain":       {textf("%s!", textf("%s", "{0}")), `{0}!`, `{0}!`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := FieldError{Path: Path{"p"}, Detail: tc.t.format, Settings: tc.t.settings}
			if diff := cmp.Diff(tc.plain, e.DetailIn(Plain)); diff != "" {
				t.Errorf("plain (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff("p: "+tc.plain, e.Error()); diff != "" {
				t.Errorf("Error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.other, e.DetailIn(hclish)); diff != "" {
				t.Errorf("another notation (-want +got):\n%s", diff)
			}
		})
	}
}

// A detail made without settings (by a caller outside the package, or
// with more words appended) is the text itself, braces and all.
func TestDetailWithoutSettingsIsText(t *testing.T) {
	t.Parallel()
	e := FieldError{Path: Path{"x"}, Detail: "a {0} and {{ b }}"}
	if got := e.DetailIn(Notation{Assign: " = "}); got != e.Detail {
		t.Errorf("got %q, want %q", got, e.Detail)
	}
	var errs FieldErrors
	errs.add(Path{"x"}, "S", "set %v.", set("y", true))
	errs[0].Detail += " Or not."
	if got, want := errs.Error(), "x: set y: true. Or not."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
