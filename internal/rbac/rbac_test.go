package rbac

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// rules are the ClusterRole's and Role's rules of a manifest.
func rules(t *testing.T, manifest string) []rbacv1.PolicyRule {
	t.Helper()
	m, err := Parse(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return m.Rules()
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

// Parse is strict: a manifest with a kind it does not hold, or a field an
// RBAC object lacks (a typo a lenient reader would drop, granting less than
// it says), is an error naming the document.
func TestParseIsStrict(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		text string
		want string // in the error; "" for none
	}{
		"the provider's manifest": {Provider, ""},
		"the worker's manifest":   {Worker, ""},
		"another kind":            {"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", `document 1: unexpected kind "Secret"`},
		"an unknown field": {"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n---\n" +
			"apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\nrules:\n  - apiGroups: [\"\"]\n    resource: [pods]\n    verbs: [get]\n",
			`document 2: error unmarshaling JSON: while decoding JSON: json: unknown field "resource"`},
	} {
		_, err := Parse(tc.text)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: Parse error %q, want one holding %q", name, got, tc.want)
		}
	}
}
