// Command schemaprovider is a stand-in for a Terraform provider that cannot
// be had offline (hashicorp/google, hashicorp/helm: the Terraform registry is
// not reachable here and the Go module proxy refuses their releases). It
// serves, for `terraform validate` only, the schemas the real provider
// reported (`terraform providers schema -json`, cut down to the types the
// examples use: schemas/*.json, with the provider version they came from)
// and accepts every configuration that fits them. Terraform checks names,
// types, required and conflicting nesting, block counts and references
// against them; the real provider's own validation functions do not run.
//
// scripts/check-examples.sh builds it once and installs it, through
// dev_overrides, as terraform-provider-google and terraform-provider-helm:
// the binary's name picks the schema. Any call other than the schema and
// validation calls fails: it cannot plan or apply.
package main

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

//go:embed schemas/*.json
var schemas embed.FS

func main() {
	name := strings.TrimPrefix(filepath.Base(os.Args[0]), "terraform-provider-")
	name = strings.SplitN(name, "_", 2)[0]
	s, source, err := load(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemaprovider:", err)
		os.Exit(1)
	}
	if err := tf6server.Serve(source, func() tfprotov6.ProviderServer { return s }); err != nil {
		fmt.Fprintln(os.Stderr, "schemaprovider:", err)
		os.Exit(1)
	}
}

// file is the format of `terraform providers schema -json`.
type file struct {
	ProviderSchemas map[string]struct {
		Provider          schemaJSON            `json:"provider"`
		ResourceSchemas   map[string]schemaJSON `json:"resource_schemas"`
		DataSourceSchemas map[string]schemaJSON `json:"data_source_schemas"`
	} `json:"provider_schemas"`
}

type schemaJSON struct {
	Version int64     `json:"version"`
	Block   blockJSON `json:"block"`
}

type blockJSON struct {
	Attributes map[string]attrJSON   `json:"attributes"`
	BlockTypes map[string]nestedJSON `json:"block_types"`
}

type attrJSON struct {
	Type       json.RawMessage `json:"type"`
	NestedType *struct {
		Attributes  map[string]attrJSON `json:"attributes"`
		NestingMode string              `json:"nesting_mode"`
	} `json:"nested_type"`
	Required   bool `json:"required"`
	Optional   bool `json:"optional"`
	Computed   bool `json:"computed"`
	Sensitive  bool `json:"sensitive"`
	Deprecated bool `json:"deprecated"`
}

type nestedJSON struct {
	NestingMode string    `json:"nesting_mode"`
	Block       blockJSON `json:"block"`
	MinItems    int64     `json:"min_items"`
	MaxItems    int64     `json:"max_items"`
}

type server struct {
	tfprotov6.ProviderServer // nil: every call not below fails
	provider                 *tfprotov6.Schema
	resources, dataSources   map[string]*tfprotov6.Schema
}

func load(name string) (*server, string, error) {
	raw, err := schemas.ReadFile("schemas/" + name + ".json")
	if err != nil {
		return nil, "", fmt.Errorf("no recorded schema for provider %q (binary %s)", name, os.Args[0])
	}
	var f file
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, "", fmt.Errorf("schemas/%s.json: %w", name, err)
	}
	if len(f.ProviderSchemas) != 1 {
		return nil, "", fmt.Errorf("schemas/%s.json holds %d providers, want 1", name, len(f.ProviderSchemas))
	}
	for source, p := range f.ProviderSchemas {
		s := &server{resources: map[string]*tfprotov6.Schema{}, dataSources: map[string]*tfprotov6.Schema{}}
		if s.provider, err = convert(p.Provider); err != nil {
			return nil, "", fmt.Errorf("provider: %w", err)
		}
		for n, r := range p.ResourceSchemas {
			if s.resources[n], err = convert(r); err != nil {
				return nil, "", fmt.Errorf("%s: %w", n, err)
			}
		}
		for n, d := range p.DataSourceSchemas {
			if s.dataSources[n], err = convert(d); err != nil {
				return nil, "", fmt.Errorf("data %s: %w", n, err)
			}
		}
		return s, source, nil
	}
	return nil, "", errors.New("unreachable")
}

func convert(s schemaJSON) (*tfprotov6.Schema, error) {
	b, err := block(s.Block)
	if err != nil {
		return nil, err
	}
	b.Version = s.Version
	return &tfprotov6.Schema{Version: s.Version, Block: b}, nil
}

func block(b blockJSON) (*tfprotov6.SchemaBlock, error) {
	out := &tfprotov6.SchemaBlock{}
	attrs, err := attributes(b.Attributes)
	if err != nil {
		return nil, err
	}
	out.Attributes = attrs
	for _, n := range sorted(b.BlockTypes) {
		nb := b.BlockTypes[n]
		inner, err := block(nb.Block)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		mode, ok := map[string]tfprotov6.SchemaNestedBlockNestingMode{
			"single": tfprotov6.SchemaNestedBlockNestingModeSingle, "group": tfprotov6.SchemaNestedBlockNestingModeGroup,
			"list": tfprotov6.SchemaNestedBlockNestingModeList, "set": tfprotov6.SchemaNestedBlockNestingModeSet,
			"map": tfprotov6.SchemaNestedBlockNestingModeMap,
		}[nb.NestingMode]
		if !ok {
			return nil, fmt.Errorf("%s: nesting mode %q", n, nb.NestingMode)
		}
		out.BlockTypes = append(out.BlockTypes, &tfprotov6.SchemaNestedBlock{
			TypeName: n, Block: inner, Nesting: mode, MinItems: nb.MinItems, MaxItems: nb.MaxItems,
		})
	}
	return out, nil
}

func attributes(m map[string]attrJSON) ([]*tfprotov6.SchemaAttribute, error) {
	var out []*tfprotov6.SchemaAttribute
	for _, n := range sorted(m) {
		a := m[n]
		sa := &tfprotov6.SchemaAttribute{Name: n, Required: a.Required, Optional: a.Optional, Computed: a.Computed,
			Sensitive: a.Sensitive, Deprecated: a.Deprecated}
		if a.NestedType != nil {
			inner, err := attributes(a.NestedType.Attributes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			mode, ok := map[string]tfprotov6.SchemaObjectNestingMode{
				"single": tfprotov6.SchemaObjectNestingModeSingle, "list": tfprotov6.SchemaObjectNestingModeList,
				"set": tfprotov6.SchemaObjectNestingModeSet, "map": tfprotov6.SchemaObjectNestingModeMap,
			}[a.NestedType.NestingMode]
			if !ok {
				return nil, fmt.Errorf("%s: nesting mode %q", n, a.NestedType.NestingMode)
			}
			sa.NestedType = &tfprotov6.SchemaObject{Attributes: inner, Nesting: mode}
		} else {
			t, err := ctyType(a.Type)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", n, err)
			}
			sa.Type = t
		}
		out = append(out, sa)
	}
	return out, nil
}

// ctyType reads a type in cty's JSON form: "string", ["list","string"],
// ["object",{"a":"number"},["a"]], ...
func ctyType(raw json.RawMessage) (tftypes.Type, error) {
	var prim string
	if json.Unmarshal(raw, &prim) == nil {
		switch prim {
		case "string":
			return tftypes.String, nil
		case "number":
			return tftypes.Number, nil
		case "bool":
			return tftypes.Bool, nil
		case "dynamic":
			return tftypes.DynamicPseudoType, nil
		}
		return nil, fmt.Errorf("type %q", prim)
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) < 2 {
		return nil, fmt.Errorf("type %s", raw)
	}
	var kind string
	if err := json.Unmarshal(parts[0], &kind); err != nil {
		return nil, fmt.Errorf("type %s", raw)
	}
	switch kind {
	case "list", "set", "map":
		elem, err := ctyType(parts[1])
		if err != nil {
			return nil, err
		}
		switch kind {
		case "list":
			return tftypes.List{ElementType: elem}, nil
		case "set":
			return tftypes.Set{ElementType: elem}, nil
		}
		return tftypes.Map{ElementType: elem}, nil
	case "object":
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(parts[1], &fields); err != nil {
			return nil, fmt.Errorf("type %s", raw)
		}
		o := tftypes.Object{AttributeTypes: map[string]tftypes.Type{}}
		for n, ft := range fields {
			t, err := ctyType(ft)
			if err != nil {
				return nil, err
			}
			o.AttributeTypes[n] = t
		}
		if len(parts) > 2 {
			var opt []string
			if err := json.Unmarshal(parts[2], &opt); err != nil {
				return nil, fmt.Errorf("type %s", raw)
			}
			o.OptionalAttributes = map[string]struct{}{}
			for _, n := range opt {
				o.OptionalAttributes[n] = struct{}{}
			}
		}
		return o, nil
	case "tuple":
		var elems []json.RawMessage
		if err := json.Unmarshal(parts[1], &elems); err != nil {
			return nil, fmt.Errorf("type %s", raw)
		}
		tu := tftypes.Tuple{}
		for _, e := range elems {
			t, err := ctyType(e)
			if err != nil {
				return nil, err
			}
			tu.ElementTypes = append(tu.ElementTypes, t)
		}
		return tu, nil
	}
	return nil, fmt.Errorf("type %s", raw)
}

func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (s *server) GetMetadata(context.Context, *tfprotov6.GetMetadataRequest) (*tfprotov6.GetMetadataResponse, error) {
	resp := &tfprotov6.GetMetadataResponse{ServerCapabilities: &tfprotov6.ServerCapabilities{}}
	for _, n := range sorted(s.resources) {
		resp.Resources = append(resp.Resources, tfprotov6.ResourceMetadata{TypeName: n})
	}
	for _, n := range sorted(s.dataSources) {
		resp.DataSources = append(resp.DataSources, tfprotov6.DataSourceMetadata{TypeName: n})
	}
	return resp, nil
}

func (s *server) GetProviderSchema(context.Context, *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	return &tfprotov6.GetProviderSchemaResponse{
		ServerCapabilities: &tfprotov6.ServerCapabilities{},
		Provider:           s.provider,
		ResourceSchemas:    s.resources,
		DataSourceSchemas:  s.dataSources,
		Functions:          map[string]*tfprotov6.Function{},
	}, nil
}

func (s *server) GetResourceIdentitySchemas(context.Context, *tfprotov6.GetResourceIdentitySchemasRequest) (*tfprotov6.GetResourceIdentitySchemasResponse, error) {
	return &tfprotov6.GetResourceIdentitySchemasResponse{IdentitySchemas: map[string]*tfprotov6.ResourceIdentitySchema{}}, nil
}

func (s *server) ValidateProviderConfig(_ context.Context, req *tfprotov6.ValidateProviderConfigRequest) (*tfprotov6.ValidateProviderConfigResponse, error) {
	return &tfprotov6.ValidateProviderConfigResponse{PreparedConfig: req.Config}, nil
}

func (s *server) ValidateResourceConfig(context.Context, *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	return &tfprotov6.ValidateResourceConfigResponse{}, nil
}

func (s *server) ValidateDataResourceConfig(context.Context, *tfprotov6.ValidateDataResourceConfigRequest) (*tfprotov6.ValidateDataResourceConfigResponse, error) {
	return &tfprotov6.ValidateDataResourceConfigResponse{}, nil
}

func (s *server) StopProvider(context.Context, *tfprotov6.StopProviderRequest) (*tfprotov6.StopProviderResponse, error) {
	return &tfprotov6.StopProviderResponse{}, nil
}
