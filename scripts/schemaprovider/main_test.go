package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestRecordedSchemasLoad: every recorded schema converts, names the release
// it came from, and holds at least one resource type.
func TestRecordedSchemasLoad(t *testing.T) {
	t.Parallel()
	files, err := schemas.ReadDir("schemas")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no recorded schema")
	}
	for _, f := range files {
		name := strings.TrimSuffix(f.Name(), ".json")
		s, source, err := load(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.HasSuffix(source, "/hashicorp/"+name) {
			t.Errorf("%s: provider %q", name, source)
		}
		raw, _ := schemas.ReadFile("schemas/" + f.Name())
		var meta struct {
			RecordedFrom string `json:"recorded_from"`
		}
		if json.Unmarshal(raw, &meta) != nil || !strings.HasPrefix(meta.RecordedFrom, "terraform-provider-"+name+" v") {
			t.Errorf("%s: recorded_from %q does not name the release", name, meta.RecordedFrom)
		}
		resp, _ := s.GetProviderSchema(context.Background(), &tfprotov6.GetProviderSchemaRequest{})
		if len(resp.ResourceSchemas) == 0 {
			t.Errorf("%s: no resource schema", name)
		}
	}
}

func TestCtyType(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]tftypes.Type{
		`"string"`:                    tftypes.String,
		`["list","number"]`:           tftypes.List{ElementType: tftypes.Number},
		`["set",["map","bool"]]`:      tftypes.Set{ElementType: tftypes.Map{ElementType: tftypes.Bool}},
		`["object",{"a":"string"}]`:   tftypes.Object{AttributeTypes: map[string]tftypes.Type{"a": tftypes.String}},
		`["tuple",["string","bool"]]`: tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, tftypes.Bool}},
		`["object",{"a":"string","b":"dynamic"},["b"]]`: tftypes.Object{
			AttributeTypes:     map[string]tftypes.Type{"a": tftypes.String, "b": tftypes.DynamicPseudoType},
			OptionalAttributes: map[string]struct{}{"b": {}},
		},
	} {
		got, err := ctyType(json.RawMessage(in))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if !got.Equal(want) {
			t.Errorf("%s: got %s, want %s", in, got, want)
		}
	}
	for _, bad := range []string{`"float"`, `["list"]`, `["bag","string"]`, `42`} {
		if _, err := ctyType(json.RawMessage(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
