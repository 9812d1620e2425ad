package resources

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestTrainingNetworkPolicyModelRoundTrip(t *testing.T) {
	ctx := context.Background()
	full := spec.DefaultTrainingNetworkPolicy("team-vision")
	full.PublicHTTPSEgress, full.GoogleAPIs = true, "both"
	full.ExtraEgress = []spec.EgressRule{{CIDRs: []string{"10.20.0.0/16"}, Ports: []int32{5432}, Protocol: "TCP"}, {CIDRs: []string{"10.30.0.0/16"}, Protocol: "UDP"}}
	full.IngressFromNamespaces = map[string][]int32{"monitoring": {9090}, "ingress": nil}
	tests := map[string]spec.TrainingNetworkPolicy{
		"defaults": spec.DefaultTrainingNetworkPolicy("team-vision"),
		"full":     full,
		"all off":  {Namespace: "team-vision", GoogleAPIs: "none"},
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			var diags diag.Diagnostics
			s.Rendered = netpol.Hashes(netpol.Render(s))
			m := trainingNetworkPolicyState(ctx, s, trainingNetworkPolicyModel{}, &diags)
			got := m.toSpec(ctx, &diags)
			got.Rendered = s.Rendered
			if diags.HasError() {
				t.Fatal(diags)
			}
			if d := cmp.Diff(s, got); d != "" {
				t.Errorf("toSpec(state(s)) (-want +got):\n%s", d)
			}
			if planned := m.plannedPolicies(ctx, &diags); !planned.Equal(m.Policies) {
				t.Errorf("planned policies %v, state %v", planned, m.Policies)
			}
		})
	}
}

func TestTrainingNetworkPolicyStateKeepsEmptyLists(t *testing.T) {
	ctx := context.Background()
	var diags diag.Diagnostics
	prior := trainingNetworkPolicyModel{
		ExtraEgress:           types.ListValueMust(extraEgressType, []attr.Value{}),
		IngressFromNamespaces: types.MapNull(ingressFromNamespaceType),
	}
	m := trainingNetworkPolicyState(ctx, spec.DefaultTrainingNetworkPolicy("ns"), prior, &diags)
	if m.ExtraEgress.IsNull() || len(m.ExtraEgress.Elements()) != 0 {
		t.Errorf("extra_egress = [] became %v", m.ExtraEgress)
	}
	if !m.IngressFromNamespaces.IsNull() {
		t.Errorf("ingress_from_namespaces left out became %v", m.IngressFromNamespaces)
	}
}
