// Package rbac holds the Kubernetes access the provider needs, as manifests
// to apply: Provider in the cluster it manages (a MultiKueue manager
// included), Worker in each MultiKueue worker it sets up. Doctor's
// read-only access is doctor.RBAC. The IAM side is gcpperm.Table.
package rbac

import (
	_ "embed" // the manifests
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
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

// Manifest is an RBAC manifest (ClusterRoles, Roles and their bindings) as
// typed objects.
type Manifest struct {
	ClusterRoles        []rbacv1.ClusterRole
	Roles               []rbacv1.Role
	ClusterRoleBindings []rbacv1.ClusterRoleBinding
	RoleBindings        []rbacv1.RoleBinding
}

// Parse reads a manifest of YAML documents separated by "---" lines,
// strictly: another kind, or an unknown field, is an error.
func Parse(text string) (Manifest, error) {
	var m Manifest
	for i, doc := range strings.Split(text, "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			return Manifest{}, fmt.Errorf("document %d: %w", i+1, err)
		}
		var err error
		switch meta.Kind {
		case "ClusterRole":
			err = appendStrict(&m.ClusterRoles, doc)
		case "Role":
			err = appendStrict(&m.Roles, doc)
		case "ClusterRoleBinding":
			err = appendStrict(&m.ClusterRoleBindings, doc)
		case "RoleBinding":
			err = appendStrict(&m.RoleBindings, doc)
		default:
			err = fmt.Errorf("unexpected kind %q", meta.Kind)
		}
		if err != nil {
			return Manifest{}, fmt.Errorf("document %d: %w", i+1, err)
		}
	}
	return m, nil
}

func appendStrict[O any](to *[]O, doc string) error {
	var o O
	if err := yaml.UnmarshalStrict([]byte(doc), &o); err != nil {
		return err
	}
	*to = append(*to, o)
	return nil
}

// Rules are the rules of m's ClusterRoles and Roles.
func (m Manifest) Rules() []rbacv1.PolicyRule {
	var out []rbacv1.PolicyRule
	for _, r := range m.ClusterRoles {
		out = append(out, r.Rules...)
	}
	for _, r := range m.Roles {
		out = append(out, r.Rules...)
	}
	return out
}
