package resources

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A model with an attribute that no list in the provider names: knownAttrs
// covers it from its tag alone.
type newAttributeModel struct {
	Name       types.String `tfsdk:"name"`
	BrandNew   types.List   `tfsdk:"brand_new_attribute"`
	Nested     types.Object `tfsdk:"nested"`
	NotAnInput int          `tfsdk:"-"`
}

func TestKnownAttrsCoversEveryField(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	nestedType := map[string]attr.Type{"v": types.StringType}
	base := newAttributeModel{
		Name:     types.StringValue("a"),
		BrandNew: types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x")}),
		Nested:   types.ObjectValueMust(nestedType, map[string]attr.Value{"v": types.StringNull()}),
	}
	for name, tc := range map[string]struct {
		edit func(*newAttributeModel)
		want map[string]bool
	}{
		"all known": {func(*newAttributeModel) {}, map[string]bool{"name": true, "brand_new_attribute": true, "nested": true}},
		"new attribute unknown": {func(m *newAttributeModel) { m.BrandNew = types.ListUnknown(types.StringType) },
			map[string]bool{"name": true, "brand_new_attribute": false, "nested": true}},
		"an element unknown": {func(m *newAttributeModel) {
			m.BrandNew = types.ListValueMust(types.StringType, []attr.Value{types.StringValue("x"), types.StringUnknown()})
		}, map[string]bool{"name": true, "brand_new_attribute": false, "nested": true}},
		"inside an object": {func(m *newAttributeModel) {
			m.Nested = types.ObjectValueMust(nestedType, map[string]attr.Value{"v": types.StringUnknown()})
		}, map[string]bool{"name": true, "brand_new_attribute": true, "nested": false}},
		"null is known": {func(m *newAttributeModel) { m.BrandNew = types.ListNull(types.StringType) },
			map[string]bool{"name": true, "brand_new_attribute": true, "nested": true}},
	} {
		m := base
		tc.edit(&m)
		if diff := cmp.Diff(tc.want, knownAttrs(ctx, m)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// A rule reads the other attributes' own values, and a rule naming an
// attribute the model does not have is a programming error, not a rule that
// silently never lets errors through.
func TestKnownWith(t *testing.T) {
	t.Parallel()
	own := map[string]bool{"a": true, "b": true, "c": false}
	got := knownWith(own, map[string][]string{"a": {"b"}, "b": {"c"}})
	if want := map[string]bool{"a": true, "b": false, "c": false}; !maps.Equal(got, want) {
		t.Errorf("got %v, want %v (a reads b's own value, which is known)", got, want)
	}
	if !own["b"] {
		t.Error("knownWith changed its argument")
	}
	for _, reads := range []map[string][]string{{"a": {"typo"}}, {"typo": {"a"}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("knownWith(%v) did not panic", reads)
				}
			}()
			knownWith(own, reads)
		}()
	}
}

// modelKnown reads state into a model M and returns its known().
func modelKnown[M interface {
	known(context.Context) map[string]bool
}](ctx context.Context, s tfsdk.State) (map[string]bool, diag.Diagnostics) {
	var m M
	d := getModel(ctx, s, &m)
	return m.known(ctx), d
}

// Every resource's known() covers every attribute a configuration can set:
// known when its value is, not known when it is unknown, with no list of
// names to keep in step with the schema.
func TestKnownCoversEveryConfigurableAttribute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	knowns := map[string]func(context.Context, tfsdk.State) (map[string]bool, diag.Diagnostics){
		"mlplatform_cluster_queue":                modelKnown[clusterQueueModel],
		"mlplatform_cohort":                       modelKnown[cohortModel],
		"mlplatform_gpu_pool":                     modelKnown[gpuPoolModel],
		"mlplatform_local_queue":                  modelKnown[localQueueModel],
		"mlplatform_multikueue_check":             modelKnown[multiKueueCheckModel],
		"mlplatform_multikueue_cluster":           modelKnown[multiKueueClusterModel],
		"mlplatform_provisioning_admission_check": modelKnown[provisioningAdmissionCheckModel],
		"mlplatform_resource_flavor":              modelKnown[resourceFlavorModel],
		"mlplatform_team_namespace":               modelKnown[teamNamespaceModel],
		"mlplatform_topology":                     modelKnown[topologyModel],
		"mlplatform_training_network_policy":      modelKnown[trainingNetworkPolicyModel],
		"mlplatform_workload_identity":            modelKnown[workloadIdentityModel],
		"mlplatform_workload_priority_class": func(ctx context.Context, s tfsdk.State) (map[string]bool, diag.Diagnostics) {
			var m workloadPriorityClassModel
			d := getModel(ctx, s, &m)
			return m.known(), d
		},
	}
	for _, newResource := range All() {
		r := newResource()
		var md resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: "mlplatform"}, &md)
		known, ok := knowns[md.TypeName]
		if !ok {
			t.Errorf("%s: no known() in this test's table", md.TypeName)
			continue
		}
		var sr resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &sr)
		typ := sr.Schema.Type().TerraformType(ctx).(tftypes.Object)
		full := fullValue(typ, "v")
		configurable := slices.Sorted(maps.Keys(configurableAttributes(r)))
		k, d := known(ctx, tfsdk.State{Schema: sr.Schema, Raw: full})
		if d.HasError() {
			t.Fatalf("%s: %v", md.TypeName, d)
		}
		for _, name := range configurable {
			if !k[name] {
				t.Errorf("%s: known[%s] = false with every value known", md.TypeName, name)
			}
		}
		for _, name := range configurable {
			var vals map[string]tftypes.Value
			if err := full.As(&vals); err != nil {
				t.Fatal(err)
			}
			vals[name] = tftypes.NewValue(typ.AttributeTypes[name], tftypes.UnknownValue)
			k, d := known(ctx, tfsdk.State{Schema: sr.Schema, Raw: tftypes.NewValue(typ, vals)})
			if d.HasError() {
				t.Fatalf("%s with %s unknown: %v", md.TypeName, name, d)
			}
			if k[name] {
				t.Errorf("%s: known[%s] = true while its value is unknown", md.TypeName, name)
			}
		}
	}
}

// Lists and sets of strings read alike; an element not known yet reads as
// "" (validation skips the attribute until it is known), not as an error.
func TestStringList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	elems := []attr.Value{types.StringValue("a"), types.StringUnknown()}
	for name, c := range map[string]collection{
		"list": types.ListValueMust(types.StringType, elems),
		"set":  types.SetValueMust(types.StringType, elems),
	} {
		var diags diag.Diagnostics
		if got := stringList(ctx, c, &diags); !slices.Equal(got, []string{"a", ""}) || diags.HasError() {
			t.Errorf("%s: %q %v", name, got, diags)
		}
	}
	var diags diag.Diagnostics
	for _, c := range []collection{types.ListNull(types.StringType), types.SetUnknown(types.StringType)} {
		if got := stringList(ctx, c, &diags); got != nil {
			t.Errorf("%v: %q, want nil", c, got)
		}
	}
	if got := stringList(ctx, types.ListValueMust(types.StringType, nil), &diags); got == nil || len(got) != 0 {
		t.Errorf("empty list: %#v, want empty, not nil", got)
	}
	if !stringSetValue(nil).IsNull() || stringSetValue([]string{}).IsNull() || len(stringSetValue([]string{"a", "b"}).Elements()) != 2 {
		t.Error("stringSetValue: nil must be null and empty must be empty, as SetValueFrom makes them")
	}
}

// objectAs reads an object, and leaves the model alone for null, unknown
// and objects that do not convert.
func TestObjectAs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var diags diag.Diagnostics
	var g gpuModel
	o := types.ObjectValueMust(gpuType, map[string]attr.Value{"type": types.StringValue("nvidia-l4"), "count": types.Int64Value(1), "driver": types.StringNull(),
		"partition_size": types.StringNull(), "sharing": types.ObjectNull(gpuSharingType)})
	if !objectAs(ctx, o, &g, &diags) || g.Type.ValueString() != "nvidia-l4" || diags.HasError() {
		t.Errorf("object: %v %v", g, diags)
	}
	for _, o := range []types.Object{types.ObjectNull(gpuType), types.ObjectUnknown(gpuType)} {
		var g gpuModel
		if objectAs(ctx, o, &g, &diags) || !g.Type.IsNull() || diags.HasError() {
			t.Errorf("%v: read %v %v", o, g, diags)
		}
	}
	var d diskModel
	if objectAs(ctx, o, &d, &diags) || !diags.HasError() {
		t.Errorf("a gpu read as a disk: %v %v", d, diags)
	}
}
