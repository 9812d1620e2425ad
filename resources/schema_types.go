package resources

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// withObjectTypes returns s with the object type of every nested attribute
// computed once, here, and set as its CustomType (the same
// basetypes.ObjectType the framework would build, so values stay
// types.Object).
//
// Why: terraform-plugin-framework v1.19 rebuilds a nested attribute's object
// type, recursively, every time it walks a path through it, and it walks the
// schema path of every value of every request several times (null-block
// conversion, defaults, plan modifiers, path conversion). For a
// mlplatform_cluster_queue (resource_groups → flavors → resources) that was a
// fifth of the provider's CPU in a 100-team plan (`make bench`). With the
// type precomputed each step is a map lookup. Every resource's Schema ends
// with it; TestSchemasHaveObjectTypes keeps it that way.
func withObjectTypes(s schema.Schema) schema.Schema {
	s.Attributes = typedAttributes(s.Attributes)
	return s
}

func typedAttributes(in map[string]schema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(in))
	for name, a := range in {
		switch a := a.(type) {
		case schema.SingleNestedAttribute:
			a.Attributes = typedAttributes(a.Attributes)
			if a.CustomType == nil {
				a.CustomType = objectTypeOf(a.Attributes)
			}
			out[name] = a
		case schema.ListNestedAttribute:
			a.NestedObject = typedObject(a.NestedObject)
			out[name] = a
		case schema.SetNestedAttribute:
			a.NestedObject = typedObject(a.NestedObject)
			out[name] = a
		case schema.MapNestedAttribute:
			a.NestedObject = typedObject(a.NestedObject)
			out[name] = a
		default:
			out[name] = a
		}
	}
	return out
}

func typedObject(o schema.NestedAttributeObject) schema.NestedAttributeObject {
	o.Attributes = typedAttributes(o.Attributes)
	if o.CustomType == nil {
		o.CustomType = objectTypeOf(o.Attributes)
	}
	return o
}

func objectTypeOf(attrs map[string]schema.Attribute) basetypes.ObjectType {
	types := make(map[string]attr.Type, len(attrs))
	for name, a := range attrs {
		types[name] = a.GetType()
	}
	return basetypes.ObjectType{AttrTypes: types}
}
