package resources

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The conversions of fw_model.go give what the framework's reflection gives,
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
		"mlplatform_multikueue_check":             multiKueueCheckModel{},
		"mlplatform_multikueue_cluster":           multiKueueClusterModel{},
		"mlplatform_provisioning_admission_check": provisioningAdmissionCheckModel{},
		"mlplatform_resource_flavor":              resourceFlavorModel{},
		"mlplatform_team_namespace":               teamNamespaceModel{},
		"mlplatform_topology":                     topologyModel{},
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
			if d := getModel(ctx, state, got.Interface()); d.HasError() {
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
			plan := tfsdk.Plan{Schema: sr.Schema, Raw: tftypes.NewValue(typ, nil)}
			if d := setPlan(ctx, &plan, got.Elem().Interface()); d.HasError() || !plan.Raw.Equal(state.Raw) {
				t.Errorf("setPlan: %v\n got %v\nwant %v", d, plan.Raw, state.Raw)
			}
		})
	}

	for _, n := range []nestedCase{
		nestedCaseOf[resourceGroupModel](resourceGroupType),
		nestedCaseOf[flavorQuotasModel](flavorQuotasType),
		nestedCaseOf[resourceQuotaModel](resourceQuotaType),
		nestedCaseOf[selectorModel](selectorType),
		nestedCaseOf[selectorRequirementModel](selectorRequirementType),
		nestedCaseOf[preemptionModel](preemptionType),
		nestedCaseOf[borrowWithinCohortModel](borrowType),
		nestedCaseOf[fungibilityModel](fungibilityType),
		nestedCaseOf[admissionCheckModel](admissionCheckType),
		nestedCaseOf[gpuModel](types.ObjectType{AttrTypes: gpuType}),
		nestedCaseOf[reservationModel](types.ObjectType{AttrTypes: reservationType}),
		nestedCaseOf[autoscalingModel](types.ObjectType{AttrTypes: autoscalingType}),
		nestedCaseOf[diskModel](types.ObjectType{AttrTypes: diskType}),
		nestedCaseOf[poolTaintModel](poolTaintType),
		nestedCaseOf[taintModel](taintType),
		nestedCaseOf[tolerationModel](tolerationType),
		nestedCaseOf[retryStrategyModel](retryStrategyType),
		nestedCaseOf[extraEgressModel](extraEgressType),
		nestedCaseOf[ingressFromNamespaceModel](ingressFromNamespaceType),
		nestedCaseOf[createGSAModel](createGSAType),
	} {
		t.Run(n.name, func(t *testing.T) {
			t.Parallel()
			n.check(ctx, t)
		})
	}
}

// nestedCase checks one nested model against its object type.
type nestedCase struct {
	name  string
	check func(context.Context, *testing.T)
}

// nestedCaseOf compares, for model T of object type typ, objectInto with the
// framework's As, modelObject with the object it came from, and
// listOfModels, mapOfModels, elementsInto and mapInto with ListValueFrom,
// MapValueFrom and back.
func nestedCaseOf[T any](typ types.ObjectType) nestedCase {
	var zero T
	return nestedCase{name: reflect.TypeOf(zero).Name(), check: func(ctx context.Context, t *testing.T) {
		v, err := typ.ValueFromTerraform(ctx, fullValue(typ.TerraformType(ctx), "v"))
		if err != nil {
			t.Fatal(err)
		}
		o := v.(basetypes.ObjectValue)
		var want, got T
		if d := o.As(ctx, &want, basetypes.ObjectAsOptions{}); d.HasError() {
			t.Fatalf("framework As: %v", d)
		}
		if d := objectInto(o, &got); d.HasError() {
			t.Fatalf("objectInto: %v", d)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("objectInto differs from the framework's As:\n got %+v\nwant %+v", got, want)
		}
		if back, d := modelObject(typ.AttrTypes, got); d.HasError() || !back.Equal(o) {
			t.Errorf("modelObject does not give the object back: %v\n got %v\nwant %v", d, back, o)
		}

		// A second model, different in every attribute, so order and keys count.
		v2, err := typ.ValueFromTerraform(ctx, fullValue(typ.TerraformType(ctx), "w"))
		if err != nil {
			t.Fatal(err)
		}
		var other T
		if d := objectInto(v2.(basetypes.ObjectValue), &other); d.HasError() {
			t.Fatal(d)
		}
		ms := []T{got, other}
		wantList, d := types.ListValueFrom(ctx, typ, ms)
		if d.HasError() {
			t.Fatal(d)
		}
		gotList, d := listOfModels(typ, ms)
		if d.HasError() || !gotList.Equal(wantList) {
			t.Errorf("listOfModels differs from ListValueFrom: %v\n got %v\nwant %v", d, gotList, wantList)
		}
		var listBack []T
		if d := elementsInto(gotList.Elements(), &listBack); d.HasError() || !reflect.DeepEqual(listBack, ms) {
			t.Errorf("elementsInto does not give the models back: %v\n got %+v", d, listBack)
		}

		mm := map[string]T{"a": got, "b": other}
		wantMap, d := types.MapValueFrom(ctx, typ, mm)
		if d.HasError() {
			t.Fatal(d)
		}
		gotMap, d := mapOfModels(typ, mm)
		if d.HasError() || !gotMap.Equal(wantMap) {
			t.Errorf("mapOfModels differs from MapValueFrom: %v\n got %v\nwant %v", d, gotMap, wantMap)
		}
		var mapBack map[string]T
		if d := mapInto(gotMap, &mapBack); d.HasError() || !reflect.DeepEqual(mapBack, mm) {
			t.Errorf("mapInto does not give the models back: %v\n got %+v", d, mapBack)
		}
	}}
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
	// quota is an object of resourceQuotaModel's shape with names changed
	// (a name mapped to "" is left out, one not in it added) and null values
	// of the given types.
	quota := func(change map[string]attr.Type) basetypes.ObjectValue {
		typs := map[string]attr.Type{}
		for n, at := range resourceQuotaType.AttrTypes {
			typs[n] = at
		}
		for n, at := range change {
			if at == nil {
				delete(typs, n)
			} else {
				typs[n] = at
			}
		}
		vals := map[string]attr.Value{}
		for n, at := range typs {
			v, err := at.ValueFromTerraform(context.Background(), tftypes.NewValue(at.TerraformType(context.Background()), nil))
			if err != nil {
				t.Fatal(err)
			}
			vals[n] = v
		}
		return types.ObjectValueMust(typs, vals)
	}
	for name, tc := range map[string]struct {
		o    basetypes.ObjectValue
		want string
	}{
		"null":               {types.ObjectNull(resourceQuotaType.AttrTypes), "A null object"},
		"unknown":            {types.ObjectUnknown(resourceQuotaType.AttrTypes), "An unknown object"},
		"extra attribute":    {quota(map[string]attr.Type{"weight": types.StringType}), "has 5 attributes"},
		"misnamed attribute": {quota(map[string]attr.Type{"nominal_quota": nil, "nominal": types.StringType}), `no attribute "nominal_quota"`},
		"wrong type":         {quota(map[string]attr.Type{"nominal_quota": types.Int64Type}), `Attribute "nominal_quota" is a basetypes.Int64Value`},
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
		h := fnv.New32a()
		_, _ = h.Write([]byte(seed))
		return tftypes.NewValue(typ, big.NewFloat(float64(h.Sum32()%1000)))
	case typ.Is(tftypes.Bool):
		return tftypes.NewValue(typ, seed[0]%2 == 0)
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
