// Workaround: every nested attribute's object type is computed once per
// schema, not on every path step.
//
// Replaces: terraform-plugin-framework's own computation of a nested
// attribute's object type (NestedAttributeObject.Type, rebuilt recursively
// whenever CustomType is nil). The framework rebuilds it every time it walks
// a value path through the attribute, and it walks the schema path of every
// value of every request several times (null-block conversion, defaults,
// plan modifiers, path conversion). withObjectTypes sets CustomType to the
// same basetypes.ObjectType, computed once, so each step is a map lookup and
// values stay types.Object.
//
// Gain: provider CPU in a 100-team plan 4.45 s → 3.89 s (`make bench`,
// commit fcad344); for mlplatform_cluster_queue (resource_groups → flavors →
// resources, seven steps deep) it had been a fifth of the provider's CPU.
//
// Targets: terraform-plugin-framework v1.19.0 (checkedFrameworkVersion,
// fw_version.go). TestSchemasHaveObjectTypes checks every nested object of
// every resource carries its type and that it equals the one the framework
// builds, so the schema is the same and only the framework's speed changes.
//
// Applied: to every resource, by All() (typedSchema wraps each constructor),
// so no resource can forget it. A resource whose Schema still ends with
// resp.Schema = withObjectTypes(resp.Schema) gets it twice, which is harmless
// (a nested object that has its type keeps it); those lines are redundant.
//
// Remove when: the framework caches a nested attribute's type (or stops
// rebuilding it per path step) and BenchmarkPlanRPCs/cluster_queue with All()
// returning the constructors unwrapped shows no difference beyond the
// machine's noise. Then All() lists the constructors as they are and this
// file goes.

package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// withObjectTypes returns s with the object type of every nested attribute
// computed once, here, and set as its CustomType (the same
// basetypes.ObjectType the framework would build, so values stay
// types.Object). Applying it again changes nothing.
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

// typedSchema wraps a resource constructor so that the resource's Schema
// ends with withObjectTypes. The framework finds a resource's optional
// features by type assertion (ResourceWithConfigure, ...WithModifyPlan,
// ...WithUpgradeState, ...), so the wrapper must implement exactly the
// interfaces the resource does: it has one type per set of them that a
// resource of this provider implements, and a resource of any other set is
// returned as it is (its Schema must then call withObjectTypes itself;
// TestSchemasHaveObjectTypes finds it if it does not, and
// TestTypedSchemaKeepsEveryMethod names the methods a new wrapper needs).
func typedSchema(newResource func() resource.Resource) func() resource.Resource {
	return func() resource.Resource {
		switch r := newResource().(type) {
		case withUpgradeState:
			return typedWithUpgradeState{r}
		case withModifyPlan:
			return typedWithModifyPlan{r}
		case withoutModifyPlan:
			return typedWithoutModifyPlan{r}
		default:
			return r
		}
	}
}

// withoutModifyPlan is what every resource of this provider implements.
type withoutModifyPlan interface {
	resource.ResourceWithConfigure
	resource.ResourceWithImportState
	resource.ResourceWithValidateConfig
}

// withModifyPlan is that and a ModifyPlan.
type withModifyPlan interface {
	withoutModifyPlan
	resource.ResourceWithModifyPlan
}

type typedWithoutModifyPlan struct{ withoutModifyPlan }

func (r typedWithoutModifyPlan) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.withoutModifyPlan.Schema(ctx, req, resp)
	resp.Schema = withObjectTypes(resp.Schema)
}

type typedWithModifyPlan struct{ withModifyPlan }

func (r typedWithModifyPlan) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.withModifyPlan.Schema(ctx, req, resp)
	resp.Schema = withObjectTypes(resp.Schema)
}

// withUpgradeState is withModifyPlan and an UpgradeState (a resource whose
// schema version moved on).
type withUpgradeState interface {
	withModifyPlan
	resource.ResourceWithUpgradeState
}

type typedWithUpgradeState struct{ withUpgradeState }

func (r typedWithUpgradeState) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.withUpgradeState.Schema(ctx, req, resp)
	resp.Schema = withObjectTypes(resp.Schema)
}
