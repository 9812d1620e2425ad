package rules

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// MLP018: a NetworkPolicy that is not the platform's and lets a team
// namespace's pods do more than its training network policy's holes (live
// only: a plan holds no one else's policies).
func checkDefaultDenyWidened(c *ctx) {
	for _, w := range c.pl.Widenings {
		ns, name, _ := strings.Cut(w.Name, "/")
		if w.Err != "" {
			c.add(SevError, []string{"Namespace " + w.Namespace}, fmt.Sprintf("the NetworkPolicies of team namespace %s could not be evaluated: %s", w.Namespace, w.Err),
				"see kubectl -n "+w.Namespace+" get networkpolicies -o yaml; the API server accepts no policy the evaluator refuses, so report this")
			continue
		}
		c.add(SevError, []string{w.Label()}, fmt.Sprintf("NetworkPolicy %s/%s widens the default deny of team namespace %s: "+
			"it opens %s, beyond the platform's holes there, so the namespace's pods may make those connections", ns, name, ns, w.Opens),
			fmt.Sprintf("delete it (kubectl -n %s delete networkpolicy %s); if the traffic is meant, declare the hole in the namespace's "+
				"mlplatform_training_network_policy (extra_egress, ingress_from_namespaces) and narrow the policy to it", ns, name))
	}
}

// MLP019: a quota of nvidia.com/gpu that is not a whole number: pods
// request whole extended resources (a container cannot ask for half a GPU;
// slices and shares are whole units too), so the fraction can never be
// used, and a quota below 1 admits nothing.
func checkFractionalQuota(c *ctx) {
	for _, o := range c.owners() {
		for _, k := range o.keys {
			if !extended(k.Resource) {
				continue
			}
			q := o.quotas[k]
			for i, v := range []model.Qty{q.Nominal, q.Borrowing, q.Lending} {
				field := [...]string{"nominal_quota", "borrowing_limit", "lending_limit"}[i]
				if v.Whole() {
					continue
				}
				c.add(SevError, []string{o.label},
					fmt.Sprintf("%s %s's %s of %s on flavor %s is %s, a fraction: pods request %s in whole units, so the fraction is never used (and a quota below 1 admits nothing)",
						o.kind, o.name, field, k.Resource, k.Flavor, v.Raw, k.Resource),
					fmt.Sprintf("write %s as a whole number (for slices or shares of a GPU, count them: a pool's allocatable_gpus_per_node says how many per node)", field))
			}
		}
	}
}

// extended reports an extended resource (a domain-qualified name other than
// kubernetes.io's: nvidia.com/gpu), which Kubernetes allocates in whole units.
func extended(resource string) bool {
	domain, _, qualified := strings.Cut(resource, "/")
	return qualified && !strings.HasSuffix(domain, "kubernetes.io")
}
