package acctest

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/rbac"
)

// RBAC is an RBAC manifest (rbac.Parse), to apply as a given user with
// ApplyAs.
type RBAC struct{ rbac.Manifest }

// ParseRBAC reads a manifest (rbac.Parse); an error fails the test.
func ParseRBAC(t testing.TB, manifest string) RBAC {
	t.Helper()
	m, err := rbac.Parse(manifest)
	if err != nil {
		t.Fatalf("the RBAC manifest: %v", err)
	}
	return RBAC{m}
}

// WithoutVerb is r with verb taken from every rule of its ClusterRoles and
// Roles that grants it on resource of group (the rule's other resources
// keep it): the manifest with one permission removed.
func (r RBAC) WithoutVerb(group, resource, verb string) RBAC {
	cut := func(rules []rbacv1.PolicyRule) []rbacv1.PolicyRule {
		var out []rbacv1.PolicyRule
		for _, rule := range rules {
			if !slices.Contains(rule.APIGroups, group) || !slices.Contains(rule.Resources, resource) || !slices.Contains(rule.Verbs, verb) {
				out = append(out, rule)
				continue
			}
			if others := slices.DeleteFunc(slices.Clone(rule.Resources), func(s string) bool { return s == resource }); len(others) > 0 {
				kept := *rule.DeepCopy()
				kept.Resources = others
				out = append(out, kept)
			}
			if verbs := slices.DeleteFunc(slices.Clone(rule.Verbs), func(s string) bool { return s == verb }); len(verbs) > 0 {
				less := *rule.DeepCopy()
				less.Resources, less.Verbs = []string{resource}, verbs
				out = append(out, less)
			}
		}
		return out
	}
	var o RBAC
	for _, cr := range r.ClusterRoles {
		cr = *cr.DeepCopy()
		cr.Rules = cut(cr.Rules)
		o.ClusterRoles = append(o.ClusterRoles, cr)
	}
	for _, role := range r.Roles {
		role = *role.DeepCopy()
		role.Rules = cut(role.Rules)
		o.Roles = append(o.Roles, role)
	}
	o.ClusterRoleBindings, o.RoleBindings = r.ClusterRoleBindings, r.RoleBindings
	return o
}

// ApplyAs creates the manifest's objects in the cluster of core, every one
// renamed to user and every binding's subjects replaced by the user user,
// so that tests running in parallel each have a role of their own; the
// objects are deleted when the test ends.
func (r RBAC) ApplyAs(ctx context.Context, t testing.TB, core kubernetes.Interface, user string) {
	t.Helper()
	api := core.RbacV1()
	subjects := []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}
	check := func(err error) {
		t.Helper()
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	for _, o := range r.ClusterRoles {
		o.Name = user
		_, err := api.ClusterRoles().Create(ctx, &o, metav1.CreateOptions{})
		check(err)
		t.Cleanup(func() { _ = api.ClusterRoles().Delete(context.Background(), user, metav1.DeleteOptions{}) })
	}
	for _, o := range r.Roles {
		o.Name = user
		_, err := api.Roles(o.Namespace).Create(ctx, &o, metav1.CreateOptions{})
		check(err)
		t.Cleanup(func() { _ = api.Roles(o.Namespace).Delete(context.Background(), user, metav1.DeleteOptions{}) })
	}
	for _, o := range r.ClusterRoleBindings {
		o.Name, o.RoleRef.Name, o.Subjects = user, user, subjects
		_, err := api.ClusterRoleBindings().Create(ctx, &o, metav1.CreateOptions{})
		check(err)
		t.Cleanup(func() { _ = api.ClusterRoleBindings().Delete(context.Background(), user, metav1.DeleteOptions{}) })
	}
	for _, o := range r.RoleBindings {
		o.Name, o.RoleRef.Name, o.Subjects = user, user, subjects
		_, err := api.RoleBindings(o.Namespace).Create(ctx, &o, metav1.CreateOptions{})
		check(err)
		t.Cleanup(func() { _ = api.RoleBindings(o.Namespace).Delete(context.Background(), user, metav1.DeleteOptions{}) })
	}
}

// KubeconfigAs writes a kubeconfig that reaches the cluster of admin (a
// kubeconfig file) with its credentials but impersonates user (`as:`), and
// returns its path: the API server authorizes every request as user, with
// RBAC, as it would a user of that name.
func KubeconfigAs(t testing.TB, admin, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(admin)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "kubeconfig-as-"+user)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// ProviderConfigAs is ProviderConfig with a kubeconfig that acts as user
// (KubeconfigAs): the provider is allowed what user's RBAC allows. gcpAddr
// is the GKE/IAM endpoint; "" means the environment's fake.
func ProviderConfigAs(t testing.TB, user, gcpAddr string) string {
	e := Env(t)
	if gcpAddr == "" {
		gcpAddr = e.GCP.Addr()
	}
	return providerBlock(e, gcpAddr, KubeconfigAs(t, e.Kubeconfig, user))
}
