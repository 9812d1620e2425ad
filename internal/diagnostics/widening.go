package diagnostics

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
)

// Widened warns that a NetworkPolicy that is not the platform's lets a
// team namespace's pods do more than the holes mlplatform_training_network_policy
// declares there: which policy, what it opens, and the two ways out. It is
// a warning, not a planned change: the provider never changes another's
// policy, so there is nothing an apply could do.
func Widened(diags *diag.Diagnostics, w netpol.Widening) {
	diags.AddWarning(fmt.Sprintf("NetworkPolicy %s Widens The Default Deny of Namespace %s", w.Policy, w.Namespace), fmt.Sprintf(
		"NetworkPolicy %s/%s, which mlplatform does not manage, opens %s: more than the holes this resource declares. "+
			"NetworkPolicies add up, so the namespace's pods may make those connections despite its default deny. "+
			"The provider never changes or deletes another's NetworkPolicy, so no change is planned for it.\n\n"+
			"If that traffic is not meant, delete the policy (kubectl -n %s delete networkpolicy %s). If it is, declare the hole here "+
			"(extra_egress for egress to addresses, ingress_from_namespaces for ingress from a namespace) and narrow the policy to it; "+
			"this warning then stops.",
		w.Namespace, w.Policy, w.Opens(), w.Namespace, w.Policy))
}

// NotChecked warns that the NetworkPolicies of a team namespace could not
// be read or evaluated, so a policy that widens its default deny would go
// unreported in this plan.
func NotChecked(diags *diag.Diagnostics, namespace string, err error) {
	diags.AddWarning("Could Not Check The Other NetworkPolicies of Namespace "+namespace, fmt.Sprintf(
		"The plan could not check whether NetworkPolicies that mlplatform does not manage widen the default deny of namespace %s, "+
			"so one that does would not be reported here: %s Nothing else in the plan depends on it; "+
			"mlplatform doctor checks the same on the live cluster.\n\nOriginal error: %v", namespace, plain(err), err))
}
