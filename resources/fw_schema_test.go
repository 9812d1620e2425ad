package resources

import (
	"context"
	"reflect"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// unwrapped is the resource typedSchema wrapped, or nil when r is not one of
// its wrappers.
func unwrapped(r resource.Resource) resource.Resource {
	switch r := r.(type) {
	case typedWithUpgradeState:
		return r.withUpgradeState
	case typedWithModifyPlan:
		return r.withModifyPlan
	case typedWithoutModifyPlan:
		return r.withoutModifyPlan
	}
	return nil
}

func methodNames(t reflect.Type) []string {
	names := make([]string, t.NumMethod())
	for i := range names {
		names[i] = t.Method(i).Name
	}
	return names
}

// Every resource of All() is wrapped, so none needs withObjectTypes in its
// own Schema, and its wrapper has exactly the resource's methods: the
// framework finds optional features by type assertion, so a method the
// wrapper lacked would switch one off, and one it added would switch one on.
func TestTypedSchemaKeepsEveryMethod(t *testing.T) {
	t.Parallel()
	for _, newResource := range All() {
		r := newResource()
		inner := unwrapped(r)
		if inner == nil {
			t.Errorf("%T: not wrapped by typedSchema; give fw_schema.go a wrapper type for the interfaces it implements", r)
			continue
		}
		want, got := methodNames(reflect.TypeOf(inner)), methodNames(reflect.TypeOf(r))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: wrapper %T has methods %v, the resource %v; give fw_schema.go a wrapper type that forwards exactly the resource's",
				inner, r, got, want)
		}
	}
}

// bareResource has a nested attribute and a Schema that does not call
// withObjectTypes.
type bareResource struct{ resource.ResourceWithConfigure }

func (bareResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"rules": schema.ListNestedAttribute{Optional: true, NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Required: true},
		}}},
	}}
}

func (bareResource) ImportState(context.Context, resource.ImportStateRequest, *resource.ImportStateResponse) {
}

func (bareResource) ValidateConfig(context.Context, resource.ValidateConfigRequest, *resource.ValidateConfigResponse) {
}

// The wrapper types a schema whose resource does not, and typing a typed
// schema again changes nothing, so the resources' own calls are redundant
// and harmless.
func TestTypedSchemaTypesEverySchemaOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var resp resource.SchemaResponse
	typedSchema(func() resource.Resource { return bareResource{} })().Schema(ctx, resource.SchemaRequest{}, &resp)
	nested := 0
	checkObjectTypes(t, "bare", resp.Schema.Attributes, &nested)
	if nested != 1 {
		t.Errorf("found %d nested objects, want 1", nested)
	}
	rules := resp.Schema.Attributes["rules"].(schema.ListNestedAttribute)
	if want := (types.ObjectType{AttrTypes: map[string]attr.Type{"name": types.StringType}}); !rules.NestedObject.CustomType.Equal(want) {
		t.Errorf("rules: %v, want %v", rules.NestedObject.CustomType, want)
	}

	for _, newResource := range All() {
		var once resource.SchemaResponse
		newResource().Schema(ctx, resource.SchemaRequest{}, &once)
		twice := withObjectTypes(once.Schema)
		if !twice.Type().Equal(once.Schema.Type()) || !reflect.DeepEqual(nestedTypes(twice.Attributes), nestedTypes(once.Schema.Attributes)) {
			t.Errorf("%T: withObjectTypes applied again changes the schema", newResource())
		}
	}
}

// nestedTypes is the CustomType of every nested object in attrs, by path.
func nestedTypes(attrs map[string]schema.Attribute) map[string]any {
	out := map[string]any{}
	var walk func(string, map[string]schema.Attribute)
	walk = func(at string, attrs map[string]schema.Attribute) {
		for name, a := range attrs {
			var o schema.NestedAttributeObject
			switch a := a.(type) {
			case schema.SingleNestedAttribute:
				o = schema.NestedAttributeObject{Attributes: a.Attributes, CustomType: a.CustomType}
			case schema.ListNestedAttribute:
				o = a.NestedObject
			case schema.SetNestedAttribute:
				o = a.NestedObject
			case schema.MapNestedAttribute:
				o = a.NestedObject
			default:
				continue
			}
			out[at+"."+name] = o.CustomType
			walk(at+"."+name, o.Attributes)
		}
	}
	walk("", attrs)
	return out
}
