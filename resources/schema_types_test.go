package resources

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// Every nested object of every resource carries its precomputed type
// (withObjectTypes), and that type is exactly the one the framework would
// build itself, so precomputing changes the framework's speed and nothing
// else.
func TestSchemasHaveObjectTypes(t *testing.T) {
	t.Parallel()
	for _, newResource := range All() {
		r := newResource()
		var md resource.MetadataResponse
		r.Metadata(context.Background(), resource.MetadataRequest{ProviderTypeName: "mlplatform"}, &md)
		var resp resource.SchemaResponse
		r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
		nested := 0
		checkObjectTypes(t, md.TypeName, resp.Schema.Attributes, &nested)
		if md.TypeName == "mlplatform_cluster_queue" && nested == 0 {
			t.Errorf("%s: found no nested attributes; the walk is broken", md.TypeName)
		}
	}
}

func checkObjectTypes(t *testing.T, path string, attrs map[string]schema.Attribute, nested *int) {
	t.Helper()
	check := func(name string, o schema.NestedAttributeObject) {
		*nested++
		if o.CustomType == nil {
			t.Errorf("%s.%s: no precomputed object type; end the resource's Schema with withObjectTypes", path, name)
			return
		}
		framework := o
		framework.CustomType = nil
		if !o.CustomType.Equal(framework.Type()) {
			t.Errorf("%s.%s: precomputed type %s, the framework builds %s", path, name, o.CustomType, framework.Type())
		}
		checkObjectTypes(t, path+"."+name, o.Attributes, nested)
	}
	for name, a := range attrs {
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			check(name, schema.NestedAttributeObject{Attributes: a.Attributes, CustomType: a.CustomType})
		case schema.ListNestedAttribute:
			check(name, a.NestedObject)
		case schema.SetNestedAttribute:
			check(name, a.NestedObject)
		case schema.MapNestedAttribute:
			check(name, a.NestedObject)
		}
	}
}
