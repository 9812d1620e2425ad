package report

// Where a plan's resources are declared, for the SARIF report's locations:
// the configuration's .tf and .tf.json files read with HCL's own parser
// (github.com/hashicorp/hcl/v2, the library Terraform reads them with), so
// every position is the one Terraform itself would name. A resource in a
// module is found through its module calls: a local source ("./modules/team")
// is read from the directory it names, any other from where `terraform init`
// installed it (.terraform/modules/modules.json).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// Position is a line in a file of the configuration; File is slash-separated
// and relative to the locator's source root.
type Position struct {
	File string
	Line int
}

// Declared is where a resource instance's address is declared: Resource,
// the resource block (zero when it could not be found), and Calls, the
// module blocks leading to it, outermost first.
type Declared struct {
	Resource Position
	Calls    []CallSite
}

// CallSite is a module block: its path ("module.team") and position.
type CallSite struct {
	Path string
	At   Position
}

// Locator finds the declarations of addresses in one configuration.
type Locator struct {
	root, sourceRoot string
	installed        map[string]string // module key ("team.inner") → its directory, from modules.json
	modules          map[string]*moduleDecls
	parser           *hclparse.Parser
}

type moduleDecls struct {
	resources map[string]Position // "TYPE.NAME"
	calls     map[string]callDecl
}

type callDecl struct {
	at     Position
	source string
}

// NewLocator reads the root module in dir. Positions are relative to
// sourceRoot ("" for dir itself), e.g. the repository's root so code
// scanning finds the files.
func NewLocator(dir, sourceRoot string) (*Locator, error) {
	if sourceRoot == "" {
		sourceRoot = dir
	}
	var err error
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if sourceRoot, err = filepath.Abs(sourceRoot); err != nil {
		return nil, err
	}
	l := &Locator{root: dir, sourceRoot: sourceRoot, modules: map[string]*moduleDecls{}, installed: map[string]string{}, parser: hclparse.NewParser()}
	if err := l.readInstalled(); err != nil {
		return nil, err
	}
	m, err := l.module(dir)
	if err != nil {
		return nil, err
	}
	if len(m.resources)+len(m.calls) == 0 {
		return nil, fmt.Errorf("%s holds no Terraform resource or module block: give the configuration's directory with --config-dir", dir)
	}
	return l, nil
}

// readInstalled reads the modules `terraform init` installed, if it ran.
func (l *Locator) readInstalled() error {
	b, err := os.ReadFile(filepath.Join(l.root, ".terraform", "modules", "modules.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var manifest struct {
		Modules []struct{ Key, Dir string }
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		return fmt.Errorf(".terraform/modules/modules.json: %w", err)
	}
	for _, m := range manifest.Modules {
		if m.Key != "" {
			l.installed[m.Key] = filepath.Join(l.root, filepath.FromSlash(m.Dir))
		}
	}
	return nil
}

var declSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{
	{Type: "resource", LabelNames: []string{"type", "name"}},
	{Type: "module", LabelNames: []string{"name"}},
}}

var sourceSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "source"}}}

// module reads the resource and module blocks of the module in dir.
func (l *Locator) module(dir string) (*moduleDecls, error) {
	if m, ok := l.modules[dir]; ok {
		return m, nil
	}
	m := &moduleDecls{resources: map[string]Position{}, calls: map[string]callDecl{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the configuration: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && (strings.HasSuffix(e.Name(), ".tf") || strings.HasSuffix(e.Name(), ".tf.json")) {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		path := filepath.Join(dir, n)
		var f *hcl.File
		var diags hcl.Diagnostics
		if strings.HasSuffix(n, ".json") {
			f, diags = l.parser.ParseJSONFile(path)
		} else {
			f, diags = l.parser.ParseHCLFile(path)
		}
		if diags.HasErrors() {
			return nil, fmt.Errorf("reading the configuration: %w", diags)
		}
		content, _, _ := f.Body.PartialContent(declSchema) // other blocks are not ours to judge
		for _, b := range content.Blocks {
			at := l.position(b.DefRange)
			switch b.Type {
			case "resource":
				m.resources[b.Labels[0]+"."+b.Labels[1]] = at
			case "module":
				c := callDecl{at: at}
				if attrs, _, _ := b.Body.PartialContent(sourceSchema); attrs != nil {
					if a, ok := attrs.Attributes["source"]; ok {
						if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type().FriendlyName() == "string" && v.IsKnown() && !v.IsNull() {
							c.source = v.AsString()
						}
					}
				}
				m.calls[b.Labels[0]] = c
			}
		}
	}
	l.modules[dir] = m
	return m, nil
}

func (l *Locator) position(r hcl.Range) Position {
	file := r.Filename
	if rel, err := filepath.Rel(l.sourceRoot, file); err == nil {
		file = rel
	}
	return Position{File: filepath.ToSlash(file), Line: r.Start.Line}
}

// Locate says where addr is declared; Resource is zero when its block (or
// a module on the way) could not be read, Calls then holds the calls found.
func (l *Locator) Locate(addr string) Declared {
	calls, res, ok := tfplan.Declaration(addr)
	if !ok {
		return Declared{}
	}
	var d Declared
	dir := l.root
	var key []string
	for _, name := range calls {
		m, err := l.module(dir)
		if err != nil {
			return d
		}
		c, ok := m.calls[name]
		if !ok {
			return d
		}
		key = append(key, name)
		d.Calls = append(d.Calls, CallSite{Path: "module." + strings.Join(key, ".module."), At: c.at})
		switch {
		case strings.HasPrefix(c.source, "./") || strings.HasPrefix(c.source, "../"):
			dir = filepath.Join(dir, filepath.FromSlash(c.source))
		case l.installed[strings.Join(key, ".")] != "":
			dir = l.installed[strings.Join(key, ".")]
		default:
			return d // a remote module `terraform init` did not install here
		}
	}
	if m, err := l.module(dir); err == nil {
		d.Resource = m.resources[res]
	}
	return d
}
