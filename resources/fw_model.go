// Workaround: models convert without terraform-plugin-framework's reflection.
//
// Replaces: the framework's Get, Set, As, ElementsAs and ValueFrom on
// structs (tfsdk.Config/Plan/State Get and Set, types.Object As,
// types.List ElementsAs, types.ListValueFrom and MapValueFrom of models).
// They convert through the framework's internal reflection, which compiles a
// regular expression for every struct field it visits
// (internal/reflect.isValidFieldName) and rebuilds each value through
// tftypes. Every model here holds only attr.Value fields, so a conversion is
// a copy of each field by its tag, with the field table computed once per
// struct type.
//
// Gain: the framework's reflection was 13% of the provider's CPU in a
// 100-team plan (`make bench`, commit a5ef150); provider CPU at N=100 was
// 4.27 s in the bench run before it, 3.62 s and 3.72 s in the two runs
// since (bench/README.md, "What moved the numbers").
//
// Targets: terraform-plugin-framework v1.19.0 (checkedFrameworkVersion,
// fw_version.go). Semantics match the framework's for such structs, and
// TestModelsConvertLikeTheFramework checks them against the framework's own
// conversion: every attribute must have a field and every field an
// attribute, of the same value type; null or unknown objects are errors
// where the framework's are (ElementsAs with allowUnhandled false, As
// without Unhandled*AsEmpty).
//
// Remove when: the framework's reflection no longer compiles a regexp per
// field (the isValidFieldName hunk of bench/framework-v1.19.0-hotpaths.diff,
// or an equivalent upstream change) and a run of BenchmarkPlanRPCs with
// getModel and setState calling data.Get and data.Set shows no difference
// beyond the machine's noise. Then getModel, setState, setPlan become the
// framework's calls and this file goes; the value helpers of values.go stay.

package resources

import (
	"context"
	"fmt"
	"reflect"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

type modelField struct {
	name  string
	index int
	typ   reflect.Type
}

var (
	modelFieldTables sync.Map // reflect.Type → []modelField
	attrValueType    = reflect.TypeFor[attr.Value]()
)

// modelFields is the field table of struct type t. A field without a tfsdk
// tag or of a type that is not an attr.Value is a programming error, found
// by TestModelsConvertLikeTheFramework.
func modelFields(t reflect.Type) []modelField {
	if f, ok := modelFieldTables.Load(t); ok {
		return f.([]modelField)
	}
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("model %s is not a struct", t))
	}
	fields := make([]modelField, 0, t.NumField())
	for i := range t.NumField() {
		sf := t.Field(i)
		name := sf.Tag.Get("tfsdk")
		switch {
		case name == "-":
			continue
		case name == "":
			panic(fmt.Sprintf("model field %s.%s has no tfsdk tag", t, sf.Name))
		case !sf.Type.Implements(attrValueType):
			panic(fmt.Sprintf("model field %s.%s is a %s, not an attr.Value", t, sf.Name, sf.Type))
		}
		fields = append(fields, modelField{name: name, index: i, typ: sf.Type})
	}
	modelFieldTables.Store(t, fields)
	return fields
}

// modelData is what getModel reads: tfsdk.Config, tfsdk.Plan or tfsdk.State.
type modelData interface {
	Get(ctx context.Context, target any) diag.Diagnostics
}

// getModel reads data into the model out (a pointer to a struct), as
// data.Get(ctx, out) does.
func getModel(ctx context.Context, data modelData, out any) diag.Diagnostics {
	var o types.Object
	diags := data.Get(ctx, &o)
	if diags.HasError() {
		return diags
	}
	diags.Append(objectInto(o, out)...)
	return diags
}

// setState writes the model m as the whole state, as state.Set(ctx, m) does.
func setState(ctx context.Context, state *tfsdk.State, m any) diag.Diagnostics {
	return setWhole(ctx, state.Schema.Type(), state.Set, m)
}

// setPlan writes the model m as the whole plan, as plan.Set(ctx, m) does.
func setPlan(ctx context.Context, plan *tfsdk.Plan, m any) diag.Diagnostics {
	return setWhole(ctx, plan.Schema.Type(), plan.Set, m)
}

// setWhole sets the model m, as an object of the schema's type, with set.
func setWhole(ctx context.Context, schemaType attr.Type, set func(context.Context, any) diag.Diagnostics, m any) diag.Diagnostics {
	o, diags := modelObject(schemaType.(attr.TypeWithAttributeTypes).AttributeTypes(), m)
	if diags.HasError() {
		return diags
	}
	diags.Append(set(ctx, o)...)
	return diags
}

// objectInto copies the attributes of o into the fields of the model *out.
func objectInto(o basetypes.ObjectValue, out any) diag.Diagnostics {
	var diags diag.Diagnostics
	rv := reflect.ValueOf(out).Elem()
	switch {
	case o.IsNull():
		diags.AddError("Value Conversion Error", fmt.Sprintf("A null object cannot be read into a %s. This is a bug in the provider; please report it.", rv.Type()))
		return diags
	case o.IsUnknown():
		diags.AddError("Value Conversion Error", fmt.Sprintf("An unknown object cannot be read into a %s. This is a bug in the provider; please report it.", rv.Type()))
		return diags
	}
	attrs := o.Attributes()
	fields := modelFields(rv.Type())
	if len(attrs) != len(fields) {
		diags.AddError("Value Conversion Error", fmt.Sprintf("The object has %d attributes and the model %s %d fields. This is a bug in the provider; please report it.", len(attrs), rv.Type(), len(fields)))
		return diags
	}
	for _, f := range fields {
		v, ok := attrs[f.name]
		if !ok {
			diags.AddError("Value Conversion Error", fmt.Sprintf("The object has no attribute %q for model %s. This is a bug in the provider; please report it.", f.name, rv.Type()))
			continue
		}
		vv := reflect.ValueOf(v)
		if !vv.Type().AssignableTo(f.typ) {
			diags.AddError("Value Conversion Error", fmt.Sprintf("Attribute %q is a %s; model %s holds a %s. This is a bug in the provider; please report it.", f.name, vv.Type(), rv.Type(), f.typ))
			continue
		}
		rv.Field(f.index).Set(vv)
	}
	return diags
}

// modelObject is the object of attribute types attrTypes holding the fields
// of the model m (a struct or a pointer to one).
func modelObject(attrTypes map[string]attr.Type, m any) (types.Object, diag.Diagnostics) {
	rv := reflect.Indirect(reflect.ValueOf(m))
	fields := modelFields(rv.Type())
	attrs := make(map[string]attr.Value, len(fields))
	for _, f := range fields {
		attrs[f.name] = rv.Field(f.index).Interface().(attr.Value)
	}
	return types.ObjectValue(attrTypes, attrs)
}

// elementsInto reads the elements of a list or set into *out (T a model or
// an attr.Value type).
func elementsInto[T any](elems []attr.Value, out *[]T) diag.Diagnostics {
	var diags diag.Diagnostics
	res := make([]T, len(elems))
	for i, e := range elems {
		diags.Append(valueInto(e, &res[i])...)
	}
	*out = res
	return diags
}

// valueInto reads v into *out: directly when *out is v's value type, else
// as an object into a model.
func valueInto[T any](v attr.Value, out *T) diag.Diagnostics {
	if t, ok := v.(T); ok {
		*out = t
		return nil
	}
	o, ok := v.(basetypes.ObjectValue)
	if !ok {
		var diags diag.Diagnostics
		diags.AddError("Value Conversion Error", fmt.Sprintf("A %T cannot be read into a %T. This is a bug in the provider; please report it.", v, *out))
		return diags
	}
	return objectInto(o, out)
}

// listOfModels is the list of objects of type elem holding the models ms.
func listOfModels[T any](elem types.ObjectType, ms []T) (types.List, diag.Diagnostics) {
	var diags diag.Diagnostics
	vals := make([]attr.Value, 0, len(ms))
	for _, m := range ms {
		o, d := modelObject(elem.AttrTypes, m)
		diags.Append(d...)
		vals = append(vals, o)
	}
	if diags.HasError() {
		return types.ListUnknown(elem), diags
	}
	l, d := types.ListValue(elem, vals)
	diags.Append(d...)
	return l, diags
}

// mapOfModels is the map of objects of type elem holding the models ms.
func mapOfModels[T any](elem types.ObjectType, ms map[string]T) (types.Map, diag.Diagnostics) {
	var diags diag.Diagnostics
	vals := make(map[string]attr.Value, len(ms))
	for k, m := range ms {
		o, d := modelObject(elem.AttrTypes, m)
		diags.Append(d...)
		vals[k] = o
	}
	if diags.HasError() {
		return types.MapUnknown(elem), diags
	}
	v, d := types.MapValue(elem, vals)
	diags.Append(d...)
	return v, diags
}

// mapInto reads the elements of a map into *out (T a model or an attr.Value
// type).
func mapInto[T any](m types.Map, out *map[string]T) diag.Diagnostics {
	var diags diag.Diagnostics
	elems := m.Elements()
	res := make(map[string]T, len(elems))
	for k, e := range elems {
		var t T
		diags.Append(valueInto(e, &t)...)
		res[k] = t
	}
	*out = res
	return diags
}
