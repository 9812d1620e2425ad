package resources

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The conversions of model.go give what the framework's reflection gives,
// for every model: each resource's whole model (getModel, setState) and each
// nested object's (objectInto, modelObject, listOfModels, mapOfModels). The
// values are generated from the types with every attribute set, so a field
// missing, misnamed or of the wrong type fails here.
func TestModelsConvertLikeTheFramework(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	models := map[string]any{
		"mlplatform_cluster_queue":                clusterQueueModel{},
		"mlplatform_cohort":                       cohortModel{},
		"mlplatform_gpu_pool":                     gpuPoolModel{},
		"mlplatform_local_queue":                  localQueueModel{},
		"mlplatform_provisioning_admission_check": provisioningAdmissionCheckModel{},
		"mlplatform_resource_flavor":              resourceFlavorModel{},
		"mlplatform_team_namespace":               teamNamespaceModel{},
		"mlplatform_training_network_policy":      trainingNetworkPolicyModel{},
		"mlplatform_workload_identity":            workloadIdentityModel{},
		"mlplatform_workload_priority_class":      workloadPriorityClassModel{},
	}
	for _, newResource := range All() {
		r := newResource()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "mlplatform"}, &md)
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		zero, ok := models[md.TypeName]
		if !ok {
			t.Errorf("%s: no model in this test's table", md.TypeName)
			continue
		}
		t.Run(md.TypeName, func(t *testing.T) {
			t.Parallel()
			typ := sr.Schema.Type().TerraformType(ctx)
			state := tfsdk.State{Schema: sr.Schema, Raw: fullValue(typ, "v")}

			want := reflect.New(reflect.TypeOf(zero))
			if d := state.Get(ctx, want.Interface()); d.HasError() {
				t.Fatalf("framework Get: %v", d)
			}
			got := reflect.New(reflect.TypeOf(zero))
			if d := getModelAny(ctx, state, got.Interface()); d.HasError() {
				t.Fatalf("getModel: %v", d)
			}
			if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
				t.Errorf("getModel differs from the framework's Get:\n got %+v\nwant %+v", got.Elem().Interface(), want.Elem().Interface())
			}

			byFramework := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}
			if d := byFramework.Set(ctx, want.Elem().Interface()); d.HasError() {
				t.Fatalf("framework Set: %v", d)
			}
			byModel := tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}
			if d := setState(ctx, &byModel, got.Elem().Interface()); d.HasError() {
				t.Fatalf("setState: %v", d)
			}
			if !byModel.Raw.Equal(byFramework.Raw) || !byModel.Raw.Equal(state.Raw) {
				t.Errorf("setState differs from the framework's Set:\n got %v\nwant %v", byModel.Raw, byFramework.Raw)
			}
		})
	}

	nested := []struct {
		typ  types.ObjectType
		zero any
	}{
		{resourceGroupType, resourceGroupModel{}},
		{flavorQuotasType, flavorQuotasModel{}},
		{resourceQuotaType, resourceQuotaModel{}},
		{selectorType, selectorModel{}},
		{selectorRequirementType, selectorRequirementModel{}},
		{preemptionType, preemptionModel{}},
		{borrowType, borrowWithinCohortModel{}},
		{fungibilityType, fungibilityModel{}},
		{admissionCheckType, admissionCheckModel{}},
		{types.ObjectType{AttrTypes: gpuType}, gpuModel{}},
		{types.ObjectType{AttrTypes: reservationType}, reservationModel{}},
		{types.ObjectType{AttrTypes: autoscalingType}, autoscalingModel{}},
		{types.ObjectType{AttrTypes: diskType}, diskModel{}},
		{poolTaintType, poolTaintModel{}},
		{taintType, taintModel{}},
		{tolerationType, tolerationModel{}},
		{retryStrategyType, retryStrategyModel{}},
		{extraEgressType, extraEgressModel{}},
		{ingressFromNamespaceType, ingressFromNamespaceModel{}},
		{createGSAType, createGSAModel{}},
	}
	for _, n := range nested {
		name := reflect.TypeOf(n.zero).Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, err := n.typ.ValueFromTerraform(ctx, fullValue(n.typ.TerraformType(ctx), "v"))
			if err != nil {
				t.Fatal(err)
			}
			o := v.(basetypes.ObjectValue)
			want := reflect.New(reflect.TypeOf(n.zero))
			if d := o.As(ctx, want.Interface(), basetypes.ObjectAsOptions{}); d.HasError() {
				t.Fatalf("framework As: %v", d)
			}
			got := reflect.New(reflect.TypeOf(n.zero))
			if d := objectInto(o, got.Interface()); d.HasError() {
				t.Fatalf("objectInto: %v", d)
			}
			if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
				t.Errorf("objectInto differs from the framework's As:\n got %+v\nwant %+v", got.Elem().Interface(), want.Elem().Interface())
			}
			back, d := modelObject(n.typ.AttrTypes, got.Elem().Interface())
			if d.HasError() || !back.Equal(o) {
				t.Errorf("modelObject does not give the object back: %v\n got %v\nwant %v", d, back, o)
			}

			// Lists and maps of the model, against ListValueFrom and MapValueFrom.
			elems := reflect.MakeSlice(reflect.SliceOf(reflect.TypeOf(n.zero)), 0, 2)
			elems = reflect.Append(elems, got.Elem(), got.Elem())
			wantList, d := types.ListValueFrom(ctx, n.typ, elems.Interface())
			if d.HasError() {
				t.Fatal(d)
			}
			gotList := listOfModelsAny(t, n.typ, elems.Interface())
			if !gotList.Equal(wantList) {
				t.Errorf("listOfModels differs from ListValueFrom:\n got %v\nwant %v", gotList, wantList)
			}
		})
	}
}

// getModelAny is getModel for a model known only at run time.
func getModelAny(ctx context.Context, data modelData, out any) (diags diag.Diagnostics) {
	var o types.Object
	diags = data.Get(ctx, &o)
	if diags.HasError() {
		return diags
	}
	return objectInto(o, out)
}

// listOfModelsAny is listOfModels for a slice of models known only at run
// time.
func listOfModelsAny(t *testing.T, elem types.ObjectType, ms any) types.List {
	t.Helper()
	rv := reflect.ValueOf(ms)
	vals := make([]attr.Value, 0, rv.Len())
	for i := range rv.Len() {
		o, d := modelObject(elem.AttrTypes, rv.Index(i).Interface())
		if d.HasError() {
			t.Fatal(d)
		}
		vals = append(vals, o)
	}
	l, d := types.ListValue(elem, vals)
	if d.HasError() {
		t.Fatal(d)
	}
	return l
}

// The typed helpers read and write lists and maps of models and of values.
func TestModelCollections(t *testing.T) {
	t.Parallel()
	quotas := []resourceQuotaModel{
		{Name: types.StringValue("cpu"), NominalQuota: types.StringValue("8"), BorrowingLimit: types.StringNull(), LendingLimit: types.StringNull()},
		{Name: types.StringValue("nvidia.com/gpu"), NominalQuota: types.StringValue("1"), BorrowingLimit: types.StringValue("2"), LendingLimit: types.StringNull()},
	}
	l, d := listOfModels(resourceQuotaType, quotas)
	if d.HasError() {
		t.Fatal(d)
	}
	var back []resourceQuotaModel
	if d := elementsInto(l.Elements(), &back); d.HasError() {
		t.Fatal(d)
	}
	if diff := cmp.Diff(quotas, back, cmp.AllowUnexported(types.String{})); diff != "" {
		t.Errorf("list round trip (-want +got):\n%s", diff)
	}

	checks := map[string]admissionCheckModel{"dws": {OnFlavors: stringListValue([]string{"h100-flex"})}}
	m, d := mapOfModels(admissionCheckType, checks)
	if d.HasError() {
		t.Fatal(d)
	}
	var mback map[string]admissionCheckModel
	if d := mapInto(m, &mback); d.HasError() {
		t.Fatal(d)
	}
	if !mback["dws"].OnFlavors.Equal(checks["dws"].OnFlavors) || len(mback) != 1 {
		t.Errorf("map round trip: got %v", mback)
	}

	var strs []types.String
	if d := elementsInto(stringListValue([]string{"a", "b"}).Elements(), &strs); d.HasError() || len(strs) != 2 || strs[1].ValueString() != "b" {
		t.Errorf("strings: %v %v", strs, d)
	}
	if !stringListValue(nil).IsNull() || stringListValue([]string{}).IsNull() {
		t.Error("stringListValue: nil must be null and empty must be empty, as ListValueFrom makes them")
	}
	if !stringMapValue(nil).IsNull() || stringMapValue(map[string]string{}).IsNull() {
		t.Error("stringMapValue: nil must be null and empty must be empty, as MapValueFrom makes them")
	}
}

// Mismatches are errors, as the framework's are, never silent zero values.
func TestModelConversionErrors(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		o    basetypes.ObjectValue
		want string
	}{
		"null":    {types.ObjectNull(resourceQuotaType.AttrTypes), "A null object"},
		"unknown": {types.ObjectUnknown(resourceQuotaType.AttrTypes), "An unknown object"},
		"extra attribute": {types.ObjectValueMust(map[string]attr.Type{"name": types.StringType, "nominal_quota": types.StringType,
			"borrowing_limit": types.StringType, "lending_limit": types.StringType, "weight": types.StringType}, map[string]attr.Value{
			"name": types.StringNull(), "nominal_quota": types.StringNull(), "borrowing_limit": types.StringNull(), "lending_limit": types.StringNull(), "weight": types.StringNull()}),
			"has 5 attributes"},
		"misnamed attribute": {types.ObjectValueMust(map[string]attr.Type{"name": types.StringType, "nominal": types.StringType,
			"borrowing_limit": types.StringType, "lending_limit": types.StringType}, map[string]attr.Value{
			"name": types.StringNull(), "nominal": types.StringNull(), "borrowing_limit": types.StringNull(), "lending_limit": types.StringNull()}),
			`no attribute "nominal_quota"`},
		"wrong type": {types.ObjectValueMust(map[string]attr.Type{"name": types.StringType, "nominal_quota": types.Int64Type,
			"borrowing_limit": types.StringType, "lending_limit": types.StringType}, map[string]attr.Value{
			"name": types.StringNull(), "nominal_quota": types.Int64Null(), "borrowing_limit": types.StringNull(), "lending_limit": types.StringNull()}),
			`Attribute "nominal_quota" is a basetypes.Int64Value`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var m resourceQuotaModel
			d := objectInto(tc.o, &m)
			if !d.HasError() || !strings.Contains(fmt.Sprint(d), tc.want) {
				t.Errorf("got %v, want an error containing %q", d, tc.want)
			}
		})
	}
	var s types.String
	if d := valueInto(types.Int64Value(1), &s); !d.HasError() {
		t.Error("an Int64 read into a String must be an error")
	}
}

// fullValue is a value of type typ with everything set: two elements in
// every collection, every attribute of every object.
func fullValue(typ tftypes.Type, seed string) tftypes.Value {
	switch {
	case typ.Is(tftypes.String):
		return tftypes.NewValue(typ, seed)
	case typ.Is(tftypes.Number):
		return tftypes.NewValue(typ, big.NewFloat(float64(len(seed))))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, true)
	case typ.Is(tftypes.List{}):
		e := typ.(tftypes.List).ElementType
		return tftypes.NewValue(typ, []tftypes.Value{fullValue(e, seed+"0"), fullValue(e, seed+"1")})
	case typ.Is(tftypes.Set{}):
		e := typ.(tftypes.Set).ElementType
		return tftypes.NewValue(typ, []tftypes.Value{fullValue(e, seed+"0"), fullValue(e, seed+"1")})
	case typ.Is(tftypes.Map{}):
		e := typ.(tftypes.Map).ElementType
		return tftypes.NewValue(typ, map[string]tftypes.Value{"a": fullValue(e, seed+"a"), "b": fullValue(e, seed+"b")})
	case typ.Is(tftypes.Object{}):
		o := typ.(tftypes.Object)
		attrs := make(map[string]tftypes.Value, len(o.AttributeTypes))
		for name, at := range o.AttributeTypes {
			attrs[name] = fullValue(at, seed+"."+name)
		}
		return tftypes.NewValue(typ, attrs)
	}
	panic(fmt.Sprintf("fullValue: type %s", typ))
}
