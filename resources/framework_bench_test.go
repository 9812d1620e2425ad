package resources_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// BenchmarkPlanRPCs is the provider-side CPU of one resource of each kind
// a team has, in a plan with nothing to change, less the read from the
// cluster: the ValidateResourceConfig, UpgradeResourceState and
// PlanResourceChange calls Terraform makes for every instance, served as the
// provider binary serves them. The states (testdata) are a team's resources
// of examples/training-cluster; the ClusterQueue has three flavors of three
// resources each. It needs no cluster; `make bench` measures whole plans.
func BenchmarkPlanRPCs(b *testing.B) {
	srv, err := acctest.Factories()["mlplatform"]()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	schemas, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		b.Fatal(err)
	}
	// Workload Identity plans its member from the provider's project.
	pcType := schemas.Provider.ValueType()
	pc, err := (&tfprotov6.RawState{JSON: []byte(`{"project":"mlplatform-sandbox"}`)}).UnmarshalWithOpts(pcType, tfprotov6.UnmarshalOpts{})
	if err != nil {
		b.Fatal(err)
	}
	pcv, err := tfprotov6.NewDynamicValue(pcType, pc)
	if err != nil {
		b.Fatal(err)
	}
	if resp, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcv}); err != nil || hasError(resp.Diagnostics) {
		b.Fatalf("configure: %v %v", err, resp)
	}
	for _, kind := range []string{"cluster_queue", "local_queue", "team_namespace", "training_network_policy", "workload_identity"} {
		b.Run(kind, func(b *testing.B) {
			typeName := "mlplatform_" + kind
			s := schemas.ResourceSchemas[typeName]
			typ := s.ValueType()
			raw, err := os.ReadFile("testdata/" + kind + "_state.json")
			if err != nil {
				b.Fatal(err)
			}
			state := dynamicValue(b, typ, raw)
			// The configuration is the state without its read-only attributes.
			var attrs map[string]any
			if err := json.Unmarshal(raw, &attrs); err != nil {
				b.Fatal(err)
			}
			for _, a := range s.Block.Attributes {
				if a.Computed && !a.Optional && !a.Required {
					attrs[a.Name] = nil
				}
			}
			rawConfig, err := json.Marshal(attrs)
			if err != nil {
				b.Fatal(err)
			}
			config := dynamicValue(b, typ, rawConfig)
			for b.Loop() {
				v, err := srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: typeName, Config: &config})
				if err != nil || hasError(v.Diagnostics) {
					b.Fatalf("validate: %v %v", err, diagText(v.Diagnostics))
				}
				u, err := srv.UpgradeResourceState(ctx, &tfprotov6.UpgradeResourceStateRequest{TypeName: typeName, RawState: &tfprotov6.RawState{JSON: raw}})
				if err != nil || hasError(u.Diagnostics) {
					b.Fatalf("upgrade: %v %v", err, diagText(u.Diagnostics))
				}
				p, err := srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{TypeName: typeName, PriorState: &state, ProposedNewState: &state, Config: &config})
				if err != nil || hasError(p.Diagnostics) {
					b.Fatalf("plan: %v %v", err, diagText(p.Diagnostics))
				}
				if len(p.RequiresReplace) > 0 {
					b.Fatalf("plan of an unchanged %s requires replacement of %v", kind, p.RequiresReplace)
				}
			}
		})
	}
}

func dynamicValue(b *testing.B, typ tftypes.Type, raw []byte) tfprotov6.DynamicValue {
	b.Helper()
	v, err := (&tfprotov6.RawState{JSON: raw}).UnmarshalWithOpts(typ, tfprotov6.UnmarshalOpts{})
	if err != nil {
		b.Fatal(err)
	}
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		b.Fatal(err)
	}
	return dv
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}

func diagText(diags []*tfprotov6.Diagnostic) string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Summary+": "+d.Detail)
	}
	return strings.Join(out, "; ")
}
