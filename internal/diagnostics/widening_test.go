package diagnostics

import (
	"errors"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
)

func TestWidened(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	Widened(&diags, netpol.Widening{Namespace: "team-vision", Policy: "allow-everything", Openings: []netpol.Opening{
		{Rule: "egress to anywhere on every port"}, {Ingress: true, Rule: "ingress from anywhere on every port"}}})
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning ||
		diags[0].Summary() != "NetworkPolicy allow-everything Widens The Default Deny of Namespace team-vision" {
		t.Fatalf("diagnostics %v, want one warning naming the policy and namespace", diags)
	}
	for _, want := range []string{"NetworkPolicy team-vision/allow-everything, which mlplatform does not manage, opens egress to anywhere on every port, ingress from anywhere on every port:",
		"no change is planned", "kubectl -n team-vision delete networkpolicy allow-everything", "extra_egress", "ingress_from_namespaces"} {
		if !strings.Contains(diags[0].Detail(), want) {
			t.Errorf("detail lacks %q:\n%s", want, diags[0].Detail())
		}
	}
}

func TestNotChecked(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	NotChecked(&diags, "team-vision", errors.New("boom"))
	if len(diags) != 1 || diags[0].Severity() != diag.SeverityWarning || diags[0].Summary() != "Could Not Check The Other NetworkPolicies of Namespace team-vision" ||
		!strings.HasSuffix(diags[0].Detail(), "Original error: boom") {
		t.Fatalf("diagnostics %v", diags)
	}
}
