package resources

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// State written by releases whose clusters were a set (schema version 0)
// upgrades to the list those releases applied to the MultiKueueConfig: the
// names sorted. Every other attribute is kept as it was.
func TestMultiKueueCheckStateUpgradeFromSet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := &MultiKueueCheck{}
	upgraders := r.UpgradeState(ctx)
	v0, ok := upgraders[0]
	if !ok || v0.PriorSchema == nil || len(upgraders) != 1 {
		t.Fatalf("want one upgrader, from schema version 0 with its prior schema; got %d", len(upgraders))
	}
	var current resource.SchemaResponse
	r.Schema(ctx, resource.SchemaRequest{}, &current)
	if current.Schema.Version != 1 || v0.PriorSchema.Version != 0 {
		t.Fatalf("schema versions: current %d, prior %d; want 1 and 0", current.Schema.Version, v0.PriorSchema.Version)
	}
	set := func(names ...string) types.Set { return stringSetValue(names) }
	for name, tc := range map[string]struct {
		clusters types.Set
		want     types.List
	}{
		"sorted, as the previous release wrote the object": {set("asia", "europe", "us"), stringListValue([]string{"asia", "europe", "us"})},
		"a set read in another order":                      {set("us", "europe"), stringListValue([]string{"europe", "us"})},
		"one worker":                                       {set("europe"), stringListValue([]string{"europe"})},
		"null":                                             {types.SetNull(types.StringType), types.ListNull(types.StringType)},
		"unknown":                                          {types.SetUnknown(types.StringType), types.ListUnknown(types.StringType)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			prior := tfsdk.State{Schema: *v0.PriorSchema}
			if d := prior.Set(ctx, multiKueueCheckModelV0{ID: types.StringValue("multikueue"), Name: types.StringValue("multikueue"),
				Clusters: tc.clusters, WaitForActive: types.BoolValue(false), ActiveTimeout: types.StringValue("90s")}); d.HasError() {
				t.Fatal(d)
			}
			resp := resource.UpgradeStateResponse{State: tfsdk.State{Schema: current.Schema}}
			v0.StateUpgrader(ctx, resource.UpgradeStateRequest{State: &prior}, &resp)
			if resp.Diagnostics.HasError() {
				t.Fatal(resp.Diagnostics)
			}
			var got multiKueueCheckModel
			if d := resp.State.Get(ctx, &got); d.HasError() {
				t.Fatal(d)
			}
			want := multiKueueCheckModel{ID: types.StringValue("multikueue"), Name: types.StringValue("multikueue"), Clusters: tc.want,
				WaitForActive: types.BoolValue(false), ActiveTimeout: types.StringValue("90s")}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("upgraded state (-want +got):\n%s", d)
			}
		})
	}
}
