// Package rbac holds the Kubernetes access the provider needs, as manifests
// to apply: Provider in the cluster it manages (a MultiKueue manager
// included), Worker in each MultiKueue worker it sets up. Doctor's
// read-only access is doctor.RBAC. The IAM side is gcpperm.Table.
package rbac

import (
	_ "embed" // the manifests
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// Provider is a ClusterRole, a Role in kueue-system (the MultiKueue
// kubeconfig Secrets) and their bindings to a placeholder user.
//
//go:embed provider-rbac.yaml
var Provider string

// Worker is what the provider needs in a MultiKueue worker to write the
// manager's access there (a service account, its token, and the ClusterRole
// MultiKueue documents for workers with its binding).
//
//go:embed worker-rbac.yaml
var Worker string

// Grants are rules as sorted, distinct "group/resource:verb" grants
// (resourceNames aside): two rule lists that grant the same compare equal.
func Grants(rs []rbacv1.PolicyRule) []string {
	var out []string
	for _, r := range rs {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					out = append(out, g+"/"+res+":"+v)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
