package resources

import (
	"context"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// modelUnchanged sees every difference, null against empty included, and
// nothing else.
func TestModelUnchanged(t *testing.T) {
	t.Parallel()
	m := localQueueModel{ID: types.StringValue("team/gpu"), Namespace: types.StringValue("team"), Name: types.StringValue("gpu"),
		ClusterQueue: types.StringValue("team"), StopPolicy: types.StringValue("None"), WaitForActive: types.BoolValue(true), ActiveTimeout: types.StringNull()}
	same := m
	same.Name = types.StringValue("g" + "pu")
	if !modelUnchanged(same, m) {
		t.Error("equal models read as changed")
	}
	drift := m
	drift.StopPolicy = types.StringValue("Hold")
	if modelUnchanged(drift, m) {
		t.Error("a changed attribute reads as unchanged")
	}
	unset := m
	unset.ActiveTimeout = types.StringValue("")
	if modelUnchanged(unset, m) {
		t.Error(`"" reads as null`)
	}
	empty := resourceFlavorModel{NodeLabels: types.MapValueMust(types.StringType, map[string]attr.Value{})}
	if modelUnchanged(empty, resourceFlavorModel{NodeLabels: types.MapNull(types.StringType)}) {
		t.Error("an empty map reads as null")
	}
}

// BenchmarkReadShortcut is what the read shortcut saves on a refresh that
// finds no change: setState of the model read back against modelUnchanged
// of it, for the resources of a team that have a state in testdata and use
// the CRUD glue. The two models are decoded apart, as a Read builds its own.
func BenchmarkReadShortcut(b *testing.B) {
	ctx := context.Background()
	for _, c := range []struct {
		kind  string
		newR  func() resource.Resource
		model func(context.Context, tfsdk.State) (any, any)
	}{
		{"cluster_queue", NewClusterQueue, twoModels[clusterQueueModel]},
		{"local_queue", NewLocalQueue, twoModels[localQueueModel]},
		{"team_namespace", NewTeamNamespace, twoModels[teamNamespaceModel]},
		{"training_network_policy", NewTrainingNetworkPolicy, twoModels[trainingNetworkPolicyModel]},
	} {
		var sr resource.SchemaResponse
		typedSchema(c.newR)().Schema(ctx, resource.SchemaRequest{}, &sr)
		raw, err := os.ReadFile("testdata/" + c.kind + "_state.json")
		if err != nil {
			b.Fatal(err)
		}
		v, err := (&tfprotov6.RawState{JSON: raw}).UnmarshalWithOpts(sr.Schema.Type().TerraformType(ctx), tfprotov6.UnmarshalOpts{})
		if err != nil {
			b.Fatal(err)
		}
		state := tfsdk.State{Schema: sr.Schema, Raw: v}
		next, prior := c.model(ctx, state)
		b.Run(c.kind+"/setState", func(b *testing.B) {
			for b.Loop() {
				if d := setState(ctx, &state, next); d.HasError() {
					b.Fatal(d)
				}
			}
		})
		b.Run(c.kind+"/modelUnchanged", func(b *testing.B) {
			for b.Loop() {
				if !modelUnchanged(next, prior) {
					b.Fatal("changed")
				}
			}
		})
	}
}

// twoModels reads state into two models of type M that share no values.
func twoModels[M any](ctx context.Context, state tfsdk.State) (any, any) {
	var next, prior M
	for _, m := range []*M{&next, &prior} {
		s := tfsdk.State{Schema: state.Schema, Raw: state.Raw.Copy()}
		if d := getModel(ctx, s, m); d.HasError() {
			panic(d)
		}
	}
	return next, prior
}
