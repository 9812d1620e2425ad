package resources

import (
	"context"
	"fmt"
	"maps"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The value helpers of the resources, one of each: reading nested objects
// and collections of strings out of models, building them for state, and
// telling which attributes are known at plan time. Models and collections
// of models convert without the framework's reflection (objectInto,
// modelObject, listOfModels, mapOfModels, elementsInto, mapInto).
//
// Null and unknown read as empty (nil, "", false) throughout: plan-time
// validation skips attributes that are not fully known (knownAttrs, below), and
// at apply every value is known.

// objectAs reads the nested object o into the model *out and reports
// whether it did: false, with out untouched, when o is null or unknown, and
// false when it does not convert (the error is in diags).
func objectAs(_ context.Context, o types.Object, out any, diags *diag.Diagnostics) bool {
	if o.IsNull() || o.IsUnknown() {
		return false
	}
	d := objectInto(o, out)
	diags.Append(d...)
	return !d.HasError()
}

// collection is a list or a set.
type collection interface {
	IsNull() bool
	IsUnknown() bool
	Elements() []attr.Value
}

// stringList reads a list or set of strings: nil when it is null or unknown,
// and an unknown element reads as "" (as in stringMap).
func stringList(_ context.Context, l collection, diags *diag.Diagnostics) []string {
	if l.IsNull() || l.IsUnknown() {
		return nil
	}
	var vals []types.String
	diags.Append(elementsInto(l.Elements(), &vals)...)
	out := make([]string, 0, len(vals))
	for _, v := range vals {
		out = append(out, v.ValueString())
	}
	return out
}

// stringListValue is the list of strings ss; null when ss is nil, as
// types.ListValueFrom makes it (nonNil(ss) for an empty list instead).
func stringListValue(ss []string) types.List {
	if ss == nil {
		return types.ListNull(types.StringType)
	}
	return types.ListValueMust(types.StringType, stringValues(ss))
}

// stringSetValue is the set of strings ss; null when ss is nil, as
// types.SetValueFrom makes it (nonNil(ss) for an empty set instead).
func stringSetValue(ss []string) types.Set {
	if ss == nil {
		return types.SetNull(types.StringType)
	}
	return types.SetValueMust(types.StringType, stringValues(ss))
}

func stringValues(ss []string) []attr.Value {
	vals := make([]attr.Value, len(ss))
	for i, s := range ss {
		vals[i] = types.StringValue(s)
	}
	return vals
}

// nonNil is s, or an empty slice when s is nil.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// stringMap reads a map of strings; unknown values (from resources not yet
// created) read as "": validation skips attributes that are not fully known.
func stringMap(ctx context.Context, m types.Map, diags *diag.Diagnostics) map[string]string {
	if m.IsNull() || m.IsUnknown() {
		return nil
	}
	vals := map[string]types.String{}
	diags.Append(mapInto(m, &vals)...)
	out := make(map[string]string, len(vals))
	for k, v := range vals {
		out[k] = v.ValueString()
	}
	return out
}

// stringMapValue is the map of strings m; null when m is nil, as
// types.MapValueFrom makes it.
func stringMapValue(m map[string]string) types.Map {
	if m == nil {
		return types.MapNull(types.StringType)
	}
	vals := make(map[string]attr.Value, len(m))
	for k, v := range m {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}

// stringMapState is the map of strings m for state: an empty m is null,
// unless prior (the plan or the previous state) has the map empty.
func stringMapState(_ context.Context, m map[string]string, prior types.Map, _ *diag.Diagnostics) types.Map {
	if len(m) == 0 {
		if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
			return types.MapValueMust(types.StringType, map[string]attr.Value{})
		}
		return types.MapNull(types.StringType)
	}
	return stringMapValue(m)
}

// emptyLike keeps a configured empty list as empty (not null) when the
// server holds nothing, so `x = []` and an omitted x both plan cleanly.
func emptyLike(prior types.List, elem attr.Type) types.List {
	if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return types.ListValueMust(elem, nil)
	}
	return types.ListNull(elem)
}

// optString is s, or null when s is "".
func optString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// boolOr is v, or def when v is null or unknown.
func boolOr(v types.Bool, def bool) bool {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueBool()
}

// fullyKnown reports whether v and everything inside it is known, so
// plan-time validation skips values that depend on resources not yet created.
// A null value is known (and a model's zero value is null, as in tests).
func fullyKnown(ctx context.Context, v attr.Value) bool {
	switch {
	case v.IsUnknown():
		return false
	case v.IsNull():
		return true
	}
	tv, err := v.ToTerraformValue(ctx)
	return err == nil && tv.IsFullyKnown()
}

// knownAttrs says, for every attribute of the model m (every tfsdk field of
// its struct, from the model conversion's field table), whether its value is
// fully known. A model's known() starts from it, so an attribute added to
// the model is covered without an edit there.
func knownAttrs(ctx context.Context, m any) map[string]bool {
	rv := reflect.Indirect(reflect.ValueOf(m))
	fields := modelFields(rv.Type())
	k := make(map[string]bool, len(fields))
	for _, f := range fields {
		k[f.name] = fullyKnown(ctx, rv.Field(f.index).Interface().(attr.Value))
	}
	return k
}

// knownWith applies the rules that span attributes to own (knownAttrs):
// for each attribute of reads, the other attributes its rules read. An
// attribute is known only when its own value and every value its rules read
// are: an unknown value reads as empty, which would give wrong errors.
// Each rule reads the others' own values, not what other rules made of
// them.
func knownWith(own map[string]bool, reads map[string][]string) map[string]bool {
	k := maps.Clone(own)
	for name, others := range reads {
		if _, exists := own[name]; !exists {
			panic(fmt.Sprintf("known: a rule for %q, which the model has no attribute for", name))
		}
		for _, o := range others {
			ok, exists := own[o]
			if !exists {
				panic(fmt.Sprintf("known: the rules of %q read %q, which the model has no attribute for", name, o))
			}
			if !ok {
				k[name] = false
			}
		}
	}
	return k
}

// configurableAttributes is the set of root attributes of r's schema that a
// configuration can set (required or optional).
func configurableAttributes(r resource.Resource) map[string]bool {
	var resp resource.SchemaResponse
	r.Schema(context.Background(), resource.SchemaRequest{}, &resp)
	out := map[string]bool{}
	for name, a := range resp.Schema.Attributes {
		if a.IsRequired() || a.IsOptional() {
			out[name] = true
		}
	}
	return out
}
