package resources_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// BenchmarkClusterQueuePlanRPCs is the provider-side CPU of one
// ClusterQueue in a plan with nothing to change, less the read from the
// cluster: the ValidateResourceConfig, UpgradeResourceState and
// PlanResourceChange calls Terraform makes for every instance, served as the
// provider binary serves them. Its state (testdata) is a team queue of
// examples/training-cluster: three flavors, three resources each. It needs
// no cluster; `make bench` measures whole plans.
func BenchmarkClusterQueuePlanRPCs(b *testing.B) {
	const typeName = "mlplatform_cluster_queue"
	srv, err := acctest.Factories()["mlplatform"]()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	typ := schemas.ResourceSchemas[typeName].ValueType()
	raw, err := os.ReadFile("testdata/cluster_queue_state.json")
	if err != nil {
		b.Fatal(err)
	}
	state, err := (&tfprotov6.RawState{JSON: raw}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
	if err != nil {
		b.Fatal(err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, state)
	if err != nil {
		b.Fatal(err)
	}
	// The configuration is the state without the read-only id.
	var attrs map[string]any
	if err := json.Unmarshal(raw, &attrs); err != nil {
		b.Fatal(err)
	}
	attrs["id"] = nil
	rawConfig, err := json.Marshal(attrs)
	if err != nil {
		b.Fatal(err)
	}
	config, err := (&tfprotov6.RawState{JSON: rawConfig}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
	if err != nil {
		b.Fatal(err)
	}
	cv, err := tfprotov6.NewDynamicValue(typ, config)
	if err != nil {
		b.Fatal(err)
	}
	check := func(what string, diags []*tfprotov6.Diagnostic) {
		for _, d := range diags {
			if d.Severity == tfprotov6.DiagnosticSeverityError {
				b.Fatalf("%s: %s: %s", what, d.Summary, d.Detail)
			}
		}
	}
	for b.Loop() {
		v, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &cv})
		if err != nil {
			b.Fatal(err)
		}
		check("validate", v.Diagnostics)
		u, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, RawState: &tfprotov6.RawState{JSON: raw}})
		if err != nil {
			b.Fatal(err)
		}
		check("upgrade", u.Diagnostics)
		p, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName, PriorState: &dv, ProposedNewState: &dv, Config: &cv})
		if err != nil {
			b.Fatal(err)
		}
		check("plan", p.Diagnostics)
		if len(p.RequiresReplace) > 0 {
			b.Fatalf("plan of an unchanged queue requires replacement of %v", p.RequiresReplace)
		}
	}
}
