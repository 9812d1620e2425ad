package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rbac"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The manager's access objects in a worker: the service account, the
// ClusterRole MultiKueue documents for workers, and its binding.

// WorkerError is a worker cluster that could not be read or written.
type WorkerError struct {
	Name   string // the MultiKueueCluster
	Worker spec.Worker
	Err    error
}

func (e *WorkerError) Error() string {
	return fmt.Sprintf("worker %s (%s): %v", e.Name, e.Worker, e.Err)
}

func (e *WorkerError) Unwrap() error { return e.Err }

// workerParts are the worker's objects, as Parts that know what the
// platform writes (Want) and what an object read differs in (Drift).
type workerParts struct {
	sa      Part[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]
	role    Part[*rbacv1.ClusterRole, *rbacv1ac.ClusterRoleApplyConfiguration]
	binding Part[*rbacv1.ClusterRoleBinding, *rbacv1ac.ClusterRoleBindingApplyConfiguration]
}

// newWorkerParts are the objects of service account sa in worker w (wc):
// the service account in kueue-system, the ClusterRole of spec.WorkerRBAC
// for frameworks and the binding of one to the other, all named sa.
func newWorkerParts(wc *kube.Client, w spec.Worker, sa string, frameworks []string) workerParts {
	saRef, rbacRef := Ref{Namespace: spec.KueueNamespace, Name: sa}, Ref{Name: sa}
	return workerParts{
		sa: Part[*corev1.ServiceAccount, *corev1ac.ServiceAccountApplyConfiguration]{Kind: "ServiceAccount", Ref: saRef,
			Key: workerKey("ServiceAccount", saRef, w), API: wc.Core.CoreV1().ServiceAccounts(spec.KueueNamespace),
			Want: func() *corev1ac.ServiceAccountApplyConfiguration {
				return corev1ac.ServiceAccount(sa, spec.KueueNamespace)
			}},
		role: Part[*rbacv1.ClusterRole, *rbacv1ac.ClusterRoleApplyConfiguration]{Kind: "ClusterRole", Ref: rbacRef,
			Key: workerKey("ClusterRole", rbacRef, w), API: wc.Core.RbacV1().ClusterRoles(),
			Want: func() *rbacv1ac.ClusterRoleApplyConfiguration { return workerClusterRole(sa, frameworks) }, Drift: workerRoleDrift(frameworks)},
		binding: Part[*rbacv1.ClusterRoleBinding, *rbacv1ac.ClusterRoleBindingApplyConfiguration]{Kind: "ClusterRoleBinding", Ref: rbacRef,
			Key: workerKey("ClusterRoleBinding", rbacRef, w), API: wc.Core.RbacV1().ClusterRoleBindings(),
			Want: func() *rbacv1ac.ClusterRoleBindingApplyConfiguration { return workerBinding(sa) }, Drift: workerBindingDrift(sa)},
	}
}

// workerClusterRole is the ClusterRole sa the platform writes: spec.WorkerRBAC.
func workerClusterRole(sa string, frameworks []string) *rbacv1ac.ClusterRoleApplyConfiguration {
	role := rbacv1ac.ClusterRole(sa)
	for _, r := range spec.WorkerRBAC(frameworks) {
		role.WithRules(rbacv1ac.PolicyRule().WithAPIGroups(r.APIGroups...).WithResources(r.Resources...).WithVerbs(r.Verbs...))
	}
	return role
}

// workerRoleDrift says how a ClusterRole differs from spec.WorkerRBAC for
// frameworks (compared as a set of group/resource:verb grants): the kinds
// the manager dispatches that it does not let the manager create there
// (MultiKueue cannot dispatch them), or that its rules changed.
func workerRoleDrift(frameworks []string) func(*rbacv1.ClusterRole) string {
	want := workerRole(frameworks)
	return func(r *rbacv1.ClusterRole) string {
		if sameRules(r.Rules, want) {
			return ""
		}
		have := grants(r.Rules)
		var missing []string
		for _, f := range spec.DispatchedKinds(frameworks) {
			if !slices.Contains(have, f.Group+"/"+f.Resource+":create") {
				missing = append(missing, f.Kind+"s")
			}
		}
		if len(missing) > 0 {
			return "rules lack " + strings.Join(missing, ", ") + " (MultiKueue cannot dispatch them)"
		}
		return "rules changed"
	}
}

// workerBinding is the ClusterRoleBinding sa the platform writes: the
// ClusterRole sa to the service account sa in kueue-system.
func workerBinding(sa string) *rbacv1ac.ClusterRoleBindingApplyConfiguration {
	return rbacv1ac.ClusterRoleBinding(sa).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("ClusterRole").WithName(sa)).
		WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName(sa).WithNamespace(spec.KueueNamespace))
}

// workerBindingDrift says whether a binding no longer binds the ClusterRole
// sa to the service account sa (subjects others added are theirs).
func workerBindingDrift(sa string) func(*rbacv1.ClusterRoleBinding) string {
	return func(b *rbacv1.ClusterRoleBinding) string {
		if b.RoleRef.Name == sa && b.RoleRef.Kind == "ClusterRole" && slices.ContainsFunc(b.Subjects, func(sub rbacv1.Subject) bool {
			return sub.Kind == "ServiceAccount" && sub.Name == sa && sub.Namespace == spec.KueueNamespace
		}) {
			return ""
		}
		return "changed"
	}
}

// workerRole is the ClusterRole the platform wants in the worker.
func workerRole(frameworks []string) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for _, r := range spec.WorkerRBAC(frameworks) {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs})
	}
	return rules
}

// workerAccess says whether the worker holds the service account, the
// ClusterRole and the binding as the platform writes them (and, where this
// resource instance recorded them, the very objects it recorded: one made
// again by someone is noted, and reads as replaced): WorkerAccessGranted,
// or what Part.check says of the first that is not.
func workerAccess(ctx context.Context, wc *kube.Client, s spec.MultiKueueCluster) (string, error) {
	p := newWorkerParts(wc, s.Worker, s.ServiceAccount, s.Frameworks)
	for _, check := range []func(context.Context) (string, error){p.sa.check, p.role.check, p.binding.check} {
		if why, err := check(ctx); err != nil || why != "" {
			return why, err
		}
	}
	return WorkerAccessGranted, nil
}

// WorkerObjectReplaced ends a worker access that names an object deleted and
// made again by someone since the platform recorded it.
const WorkerObjectReplaced = "made again by someone (not the one mlplatform created)"

func sameRules(a, b []rbacv1.PolicyRule) bool { return slices.Equal(grants(a), grants(b)) }

// grants are rules as sorted group/resource:verb grants (rbac.Grants).
var grants = rbac.Grants

// retire deletes the manager's former access after the new one works: the
// service account (and its RBAC) of prior when it changed, in the same worker
// or in the worker prior named. What cannot be deleted is a warning, not an
// error: the new access is in place, and the old tokens expire.
//
// take is claimWorker's answer before the write (which records the new
// access's objects).
func (m MultiKueueClusters) retire(ctx context.Context, wc *kube.Client, ref Ref, prior, desired spec.MultiKueueCluster, take func(metav1.Object) bool) []string {
	sameWorker := prior.Worker.String() == desired.Worker.String()
	if prior.ServiceAccount == "" || (sameWorker && prior.ServiceAccount == desired.ServiceAccount) ||
		(prior.Worker.GKE == nil && prior.Worker.Kubeconfig == "") {
		return nil
	}
	old := wc
	if !sameWorker {
		c, _, err := m.Worker(ctx, prior.Worker)
		if err != nil {
			return []string{fmt.Sprintf("The manager now reaches worker %s as %s; its former service account %s in %s was not deleted (%v). "+
				"Its tokens stay valid until they expire; delete it there.", ref.Name, desired.Worker, prior.ServiceAccount, prior.Worker, err)}
		}
		old = c
	}
	if err := deleteWorkerAccess(ctx, old, prior.Worker, prior.ServiceAccount, take); err != nil {
		return []string{fmt.Sprintf("The manager's former service account %s in %s was not deleted (%v). Its tokens stay valid until they expire; delete it there.",
			prior.ServiceAccount, prior.Worker, err)}
	}
	return nil
}

// applyWorkerAccess writes the service account, ClusterRole and binding in
// the worker, with the platform's marker, to the objects claim found. It
// fails when kueue-system does not exist there (Kueue is not installed).
func applyWorkerAccess(ctx context.Context, wc *kube.Client, cl claimed) error {
	if _, err := wc.Core.CoreV1().Namespaces().Get(ctx, spec.KueueNamespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return fmt.Errorf("namespace %s does not exist: install Kueue in the worker first", spec.KueueNamespace)
	} else if err != nil {
		return fmt.Errorf("read namespace %s: %w", spec.KueueNamespace, err)
	}
	if _, err := cl.w.sa.put(ctx, cl.sa, cl.saFound); err != nil {
		return err
	}
	if _, err := cl.w.role.put(ctx, cl.role, cl.roleFound); err != nil {
		return err
	}
	if _, err := cl.w.binding.put(ctx, cl.binding, cl.bindingFound); err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) && apierrors.IsInvalid(err) {
			// roleRef cannot change: the binding was edited to another role.
			return fmt.Errorf("apply ClusterRoleBinding %s (its roleRef was changed out of band and cannot be changed back; delete it and apply again): %w", cl.w.binding.Ref.Name, err)
		}
		return err
	}
	return nil
}

// deleteWorkerAccess deletes the binding, ClusterRole and service account sa
// in worker w, and the token Secrets of sa: the ones this resource instance
// recorded or, when it recorded none in a worker (state of an earlier
// release), those with the platform's marker. A service account that is not
// the instance's keeps its tokens.
//
// take is claimWorker's answer at the start of the operation.
func deleteWorkerAccess(ctx context.Context, wc *kube.Client, w spec.Worker, sa string, take func(metav1.Object) bool) error {
	p := newWorkerParts(wc, w, sa, nil) // the ClusterRole is deleted by name: its rules do not matter
	obj, found, err := p.sa.read(ctx)
	if err != nil {
		return err
	}
	if found && p.sa.held(ledgerOf(ctx), obj, take) {
		if err := revokeTokens(ctx, wc, sa, ""); err != nil {
			return err
		}
	}
	if err := p.binding.release(ctx, take); err != nil {
		return err
	}
	if err := p.role.release(ctx, take); err != nil {
		return err
	}
	return p.sa.release(ctx, take)
}
