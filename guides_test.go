package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"

	"github.com/mlplatform/terraform-provider-mlplatform/provider"
	"github.com/mlplatform/terraform-provider-mlplatform/resources"
)

// attrTree is a schema's attribute names: nil for an attribute whose value
// is not an object of known attributes (a string, a list, a map), else the
// attributes of its single nested object.
type attrTree map[string]attrTree

func resourceTree(attrs map[string]rschema.Attribute) attrTree {
	out := attrTree{}
	for name, a := range attrs {
		if n, ok := a.(rschema.SingleNestedAttribute); ok {
			out[name] = resourceTree(n.Attributes)
			continue
		}
		out[name] = nil
	}
	return out
}

// Terraform's own arguments, in every provider or resource block.
var (
	providerMeta = []string{"alias"}
	resourceMeta = []string{"provider", "count", "for_each", "depends_on", "lifecycle"}
)

var (
	fence      = regexp.MustCompile("(?s)```(?:terraform|hcl)\n(.*?)```")
	blockStart = regexp.MustCompile(`^(provider|resource|data|module|variable|output|locals|terraform)\b\s*(?:"([^"]+)")?`)
	openObject = regexp.MustCompile(`^([a-z_][a-z0-9_]*)\s*=\s*\{\s*$`)
	inlineObj  = regexp.MustCompile(`^([a-z_][a-z0-9_]*)\s*=\s*\{(.*)\}\s*$`)
	attrLine   = regexp.MustCompile(`^([a-z_][a-z0-9_]*)\s*=`)
	innerKey   = regexp.MustCompile(`(?:^|[{,])\s*([a-z_][a-z0-9_]*)\s*=`)
)

// unknownAttributes says which attributes the HCL in text gives a
// provider "mlplatform" block or an mlplatform resource that their schemas
// do not have. It reads the HCL the guides write (one attribute per line,
// objects opened with `= {` at the end of a line or written on one line),
// not every HCL; what it does not follow (lists, blocks, maps) it skips.
func unknownAttributes(text string, providerAttrs attrTree, resourceAttrs map[string]attrTree) []string {
	var out []string
	for _, m := range fence.FindAllStringSubmatch(text, -1) {
		type level struct {
			tree attrTree // nil: not checked
			path string
		}
		var stack []level
		for _, raw := range strings.Split(m[1], "\n") {
			line := strings.TrimSpace(raw)
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			if len(stack) == 0 {
				b := blockStart.FindStringSubmatch(line)
				if b == nil || !strings.HasSuffix(line, "{") {
					continue
				}
				switch {
				case b[1] == "provider" && b[2] == "mlplatform":
					stack = append(stack, level{withMeta(providerAttrs, providerMeta), `provider "mlplatform"`})
				case b[1] == "resource" && strings.HasPrefix(b[2], "mlplatform_"):
					tree, ok := resourceAttrs[b[2]]
					if !ok {
						out = append(out, fmt.Sprintf("resource %q: the provider has no such resource", b[2]))
					}
					stack = append(stack, level{withMeta(tree, resourceMeta), b[2]})
				default:
					stack = append(stack, level{nil, b[1]})
				}
				continue
			}
			top := stack[len(stack)-1]
			check := func(name string) (attrTree, bool) {
				if top.tree == nil {
					return nil, false
				}
				sub, ok := top.tree[name]
				if !ok {
					out = append(out, fmt.Sprintf("%s: no attribute %q", top.path, name))
				}
				return sub, ok
			}
			switch {
			case line == "}" || strings.HasPrefix(line, "}"):
				stack = stack[:len(stack)-1]
			case inlineObj.MatchString(line):
				im := inlineObj.FindStringSubmatch(line)
				if sub, ok := check(im[1]); ok && sub != nil {
					for _, k := range innerKey.FindAllStringSubmatch("{"+im[2], -1) {
						if _, ok := sub[k[1]]; !ok {
							out = append(out, fmt.Sprintf("%s.%s: no attribute %q", top.path, im[1], k[1]))
						}
					}
				}
			case openObject.MatchString(line):
				name := openObject.FindStringSubmatch(line)[1]
				sub, _ := check(name)
				stack = append(stack, level{sub, top.path + "." + name})
			case attrLine.MatchString(line):
				check(attrLine.FindStringSubmatch(line)[1])
			case strings.HasSuffix(line, "{"), strings.HasSuffix(line, "["), strings.HasSuffix(line, "({"):
				stack = append(stack, level{nil, top.path}) // a nested block, list or call: not checked
			}
		}
	}
	return out
}

func withMeta(tree attrTree, meta []string) attrTree {
	if tree == nil {
		return nil
	}
	out := attrTree{}
	for k, v := range tree {
		out[k] = v
	}
	for _, k := range meta {
		out[k] = nil
	}
	return out
}

func TestUnknownAttributes(t *testing.T) {
	t.Parallel()
	prov := attrTree{"project": nil, "cluster": nil}
	res := map[string]attrTree{"mlplatform_x": {"name": nil, "worker": {"gke_cluster": {"name": nil}, "kubeconfig": nil}}}
	block := func(hcl string) string { return "```terraform\n" + hcl + "\n```\n" }
	for name, tc := range map[string]struct {
		text string
		want []string
	}{
		"known": {text: block(`provider "mlplatform" {
  alias   = "a"
  project = "p"
}
resource "mlplatform_x" "y" {
  provider = mlplatform.a
  name     = "n"
  worker = {
    gke_cluster = { name = "c" }
  }
}`)},
		"misspelt provider attribute": {text: block(`provider "mlplatform" {
  alias     = "a"
  projectid = "p"
}`), want: []string{`provider "mlplatform": no attribute "projectid"`}},
		"nested, open and inline": {text: block(`resource "mlplatform_x" "y" {
  worker = {
    gke = {}
    kubeconfig = "k"
    gke_cluster = { name = "c", zone = "z" }
  }
}`), want: []string{`mlplatform_x.worker: no attribute "gke"`, `mlplatform_x.worker.gke_cluster: no attribute "zone"`}},
		"unknown resource": {text: block(`resource "mlplatform_z" "y" {
}`), want: []string{`resource "mlplatform_z": the provider has no such resource`}},
		"other blocks are not checked": {text: block(`module "m" {
  source = "./x"
  anything = { y = 1 }
}`)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, unknownAttributes(tc.text, prov, res)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestGuidesUseSchemaAttributes: every provider block and mlplatform
// resource in the guides' HCL uses attributes the provider's schemas have,
// e.g. the MultiKueue guide's worker provider blocks.
func TestGuidesUseSchemaAttributes(t *testing.T) {
	t.Parallel()
	var presp fwprovider.SchemaResponse
	provider.New("test")().Schema(context.Background(), fwprovider.SchemaRequest{}, &presp)
	prov := attrTree{}
	for name := range presp.Schema.Attributes {
		prov[name] = nil
	}
	res := map[string]attrTree{}
	for _, r := range resources.All() {
		var meta resource.MetadataResponse
		r().Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "mlplatform"}, &meta)
		var sresp resource.SchemaResponse
		r().Schema(context.Background(), resource.SchemaRequest{}, &sresp)
		res[meta.TypeName] = resourceTree(sresp.Schema.Attributes)
	}
	guides, err := filepath.Glob(filepath.Join("templates", "guides", "*.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	providerBlocks := 0
	for _, g := range guides {
		text := readFile(t, g)
		providerBlocks += strings.Count(text, `provider "mlplatform" {`)
		for _, p := range unknownAttributes(text, prov, res) {
			t.Errorf("%s: %s", g, p)
		}
	}
	if providerBlocks < 2 {
		t.Errorf("the guides hold %d provider blocks; the MultiKueue guide's worker provider blocks are gone", providerBlocks)
	}
}
