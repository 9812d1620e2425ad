package rbac

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// rules are the ClusterRole's and Role's rules of a manifest.
func rules(t *testing.T, manifest string) []rbacv1.PolicyRule {
	t.Helper()
	var out []rbacv1.PolicyRule
	for _, doc := range strings.Split(manifest, "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "ClusterRole":
			var r rbacv1.ClusterRole
			if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Rules...)
		case "Role":
			var r rbacv1.Role
			if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Rules...)
		}
	}
	return out
}

// Least privilege, as a reviewer would check it: no wildcard, nothing that
// lets the identity grant itself more (escalate, bind, impersonate), and
// Secrets only in kueue-system (a Role, not the ClusterRole).
func TestNoWildcardsOrEscalation(t *testing.T) {
	t.Parallel()
	for name, manifest := range map[string]string{"provider": Provider, "worker": Worker} {
		for _, g := range Grants(rules(t, manifest)) {
			if strings.Contains(g, "*") || strings.HasSuffix(g, ":escalate") || strings.HasSuffix(g, ":bind") || strings.HasSuffix(g, ":impersonate") {
				t.Errorf("%s grants %s", name, g)
			}
		}
		for _, doc := range strings.Split(manifest, "\n---\n") {
			if strings.Contains(doc, "kind: ClusterRole\n") && strings.Contains(doc, "secrets") {
				t.Errorf("%s: its ClusterRole grants Secrets cluster-wide", name)
			}
		}
	}
}

// The worker's manifest holds every permission of the ClusterRole the
// provider writes there for Kueue's default frameworks (spec.WorkerRBAC), as
// Kubernetes requires of an identity without escalate and bind.
func TestWorkerHoldsWhatItGrants(t *testing.T) {
	t.Parallel()
	var written []rbacv1.PolicyRule
	for _, r := range spec.WorkerRBAC(nil) {
		written = append(written, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs})
	}
	held := Grants(rules(t, Worker))
	var missing []string
	for _, g := range Grants(written) {
		if !slices.Contains(held, g) {
			missing = append(missing, g)
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("worker-rbac.yaml lacks what the provider grants the manager in a worker (-want +got):\n%s", diff)
	}
}
