package reconcile

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
)

func jwt(payload string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"RS256"}`)) + "." + enc([]byte(payload)) + ".c2ln"
}

func TestTokenClaims(t *testing.T) {
	t.Parallel()
	type claims struct {
		Expires        time.Time
		ServiceAccount string
		BoundSecret    string
	}
	for name, tc := range map[string]struct {
		token string
		want  claims
	}{
		"service account token": {jwt(`{"exp":1798848000,"sub":"system:serviceaccount:kueue-system:mlplatform-multikueue"}`),
			claims{Expires: time.Unix(1798848000, 0).UTC(), ServiceAccount: "mlplatform-multikueue"}},
		"bound to a Secret": {jwt(`{"exp":1798848000,"sub":"system:serviceaccount:kueue-system:a","kubernetes.io":{"namespace":"kueue-system","secret":{"name":"a-token-x7k2p","uid":"u"}}}`),
			claims{time.Unix(1798848000, 0).UTC(), "a", "a-token-x7k2p"}},
		"another namespace's account": {jwt(`{"exp":1798848000,"sub":"system:serviceaccount:default:x"}`), claims{Expires: time.Unix(1798848000, 0).UTC()}},
		"no exp":                      {jwt(`{"sub":"system:serviceaccount:kueue-system:a"}`), claims{ServiceAccount: "a"}},
		"not a JWT":                   {"not-a-token", claims{}},
		"bad payload":                 {"a.!!!.c", claims{}},
		"payload not JSON":            {jwt(`[1,2]`), claims{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got claims
			got.Expires, got.ServiceAccount, got.BoundSecret = tokenClaims(tc.token)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Kueue v0.17's reasons and messages (multikueuecluster.go), as the real
// Kueue wrote them in TestAccMultiKueueCheckSaysWhy, in plain words.
func TestWorkerProblem(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		r    Readiness
		want string
	}{
		"no status":   {Readiness{Reason: "NoStatus"}, "Kueue has not connected to it yet"},
		"secret gone": {Readiness{Reason: "BadKubeConfig", Message: `load client config failed: Secret "w-kubeconfig" not found`}, "its kubeconfig Secret is missing from kueue-system"},

		"unreadable": {Readiness{Reason: "BadKubeConfig", Message: "yaml: line 3"}, "Kueue cannot read its kubeconfig Secret"},
		"exec plugin": {Readiness{Reason: "InsecureKubeConfig", Message: "load client config failed: exec plugins are not allowed"},
			"Kueue rejected its kubeconfig (no exec plugins, token files, CA file paths or insecure TLS: inline CA data and a bearer token only)"},
		"token refused": {Readiness{Reason: "ClientConnectionFailed", Message: "failed to get server groups: the server has asked for the client to provide credentials"},
			"the worker rejects the manager's token (expired, revoked, or its service account deleted)"},
		"rbac": {Readiness{Reason: "ClientConnectionFailed", Message: `workloads.kueue.x-k8s.io is forbidden: User "system:serviceaccount:kueue-system:x" cannot watch resource "workloads"`},
			"the manager's service account lacks RBAC in the worker"},
		"unreachable": {Readiness{Reason: "ClientConnectionFailed", Message: `failed to get server groups: Get "https://127.0.0.1:1/api": dial tcp 127.0.0.1:1: connect: connection refused`},
			"the worker's API server is unreachable from the manager"},
		"other": {Readiness{Reason: "Something", Message: "new in Kueue"}, "Kueue reports it inactive"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, WorkerProblem(tc.r)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The worker's ClusterRole compares as a set of (group, resource, verb):
// the same grants split or ordered differently are the same; one verb less
// is not.
func TestSameRules(t *testing.T) {
	t.Parallel()
	want := workerRole(nil)
	var split []rbacv1.PolicyRule
	for i := len(want) - 1; i >= 0; i-- {
		for _, v := range want[i].Verbs {
			split = append(split, rbacv1.PolicyRule{APIGroups: want[i].APIGroups, Resources: want[i].Resources, Verbs: []string{v}})
		}
	}
	if !sameRules(split, want) {
		t.Error("the same grants split into one rule per verb read as different")
	}
	less := append([]rbacv1.PolicyRule(nil), want...)
	less[0].Verbs = less[0].Verbs[1:]
	if sameRules(less, want) {
		t.Error("a rule missing a verb reads as the same")
	}
}

// What the platform writes in a worker reads back as no drift; a ClusterRole
// that lost a verb, and a binding to another role or no longer to the
// service account, are drift; a subject another tool added is not.
func TestWorkerDrift(t *testing.T) {
	t.Parallel()
	const sa = "mlplatform-multikueue"
	role := readBack(t, workerClusterRole(sa, nil), func(r *rbacv1.ClusterRole) *rbacv1.ClusterRole { return r })
	// The previous release's ClusterRole: batch/v1 Jobs and Workloads only.
	jobsOnly := readBack(t, workerClusterRole(sa, []string{"batch/job"}), func(r *rbacv1.ClusterRole) *rbacv1.ClusterRole { return r })
	binding := readBack(t, workerBinding(sa), func(b *rbacv1.ClusterRoleBinding) *rbacv1.ClusterRoleBinding { return b })
	type drift struct{ Role, Binding string }
	for name, tc := range map[string]struct {
		edit func(*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding)
		want drift
	}{
		"as written": {func(*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {}, drift{}},
		"a verb less": {func(r *rbacv1.ClusterRole, _ *rbacv1.ClusterRoleBinding) {
			r.Rules[len(r.Rules)-1].Verbs = r.Rules[len(r.Rules)-1].Verbs[1:]
		}, drift{Role: "rules changed"}},
		"no create of Jobs": {func(r *rbacv1.ClusterRole, _ *rbacv1.ClusterRoleBinding) { r.Rules[0].Verbs = r.Rules[0].Verbs[1:] },
			drift{Role: "rules lack Jobs (MultiKueue cannot dispatch them)"}},
		"the previous release's role": {func(r *rbacv1.ClusterRole, _ *rbacv1.ClusterRoleBinding) { r.Rules = jobsOnly.Rules },
			drift{Role: "rules lack JobSets (MultiKueue cannot dispatch them)"}},
		"another role":    {func(_ *rbacv1.ClusterRole, b *rbacv1.ClusterRoleBinding) { b.RoleRef.Name = "admin" }, drift{Binding: "changed"}},
		"a Role":          {func(_ *rbacv1.ClusterRole, b *rbacv1.ClusterRoleBinding) { b.RoleRef.Kind = "Role" }, drift{Binding: "changed"}},
		"no subject":      {func(_ *rbacv1.ClusterRole, b *rbacv1.ClusterRoleBinding) { b.Subjects = nil }, drift{Binding: "changed"}},
		"other namespace": {func(_ *rbacv1.ClusterRole, b *rbacv1.ClusterRoleBinding) { b.Subjects[0].Namespace = "default" }, drift{Binding: "changed"}},
		"a subject added": {func(_ *rbacv1.ClusterRole, b *rbacv1.ClusterRoleBinding) {
			b.Subjects = append(b.Subjects, rbacv1.Subject{Kind: "User", Name: "alice"})
		}, drift{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r, b := role.DeepCopy(), binding.DeepCopy()
			tc.edit(r, b)
			if d := cmp.Diff(tc.want, drift{workerRoleDrift(nil)(r), workerBindingDrift(sa)(b)}); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
