package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The manager's access objects in a worker: the service account, the
// ClusterRole MultiKueue documents for workers, and its binding.

// workerRole is the ClusterRole the platform wants in the worker.
func workerRole() []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for _, r := range spec.WorkerRBAC() {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: r.APIGroups, Resources: r.Resources, Verbs: r.Verbs})
	}
	return rules
}

// workerAccess says whether the worker holds the service account, the
// ClusterRole and the binding as the platform writes them (and, where this
// resource instance recorded them, the very objects it recorded: one made
// again by someone is noted, and reads as replaced).
func workerAccess(ctx context.Context, wc *kube.Client, s spec.MultiKueueCluster) (string, error) {
	parts := newWorkerParts(wc, s.Worker, s.ServiceAccount)
	l := ledgerOf(ctx)
	replaced := func(kind, key string, ref Ref, obj metav1.Object) (string, bool) {
		uid := string(obj.GetUID())
		st, rec := l.standing(key, func(r string) bool { return r == uid })
		if st != Replaced {
			return "", false
		}
		l.note(kubeForeign(kind, ref, rec, obj, false))
		return kind + " " + ref.String() + " " + WorkerObjectReplaced, true
	}
	sa, found, err := parts.sa.read(ctx)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "ServiceAccount " + spec.KueueNamespace + "/" + s.ServiceAccount + " missing", nil
	}
	if why, ok := replaced("ServiceAccount", parts.sa.Key, parts.sa.Ref, sa); ok {
		return why, nil
	}
	role, found, err := parts.role.read(ctx)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "ClusterRole " + s.ServiceAccount + " missing", nil
	case !sameRules(role.Rules, workerRole()):
		return "ClusterRole " + s.ServiceAccount + " rules changed", nil
	}
	if why, ok := replaced("ClusterRole", parts.role.Key, parts.role.Ref, role); ok {
		return why, nil
	}
	b, found, err := parts.binding.read(ctx)
	switch {
	case err != nil:
		return "", err
	case !found:
		return "ClusterRoleBinding " + s.ServiceAccount + " missing", nil
	case b.RoleRef.Name != s.ServiceAccount || b.RoleRef.Kind != "ClusterRole" ||
		!slices.ContainsFunc(b.Subjects, func(sub rbacv1.Subject) bool {
			return sub.Kind == "ServiceAccount" && sub.Name == s.ServiceAccount && sub.Namespace == spec.KueueNamespace
		}):
		return "ClusterRoleBinding " + s.ServiceAccount + " changed", nil
	}
	if why, ok := replaced("ClusterRoleBinding", parts.binding.Key, parts.binding.Ref, b); ok {
		return why, nil
	}
	return WorkerAccessGranted, nil
}

// WorkerObjectReplaced ends a worker access that names an object deleted and
// made again by someone since the platform recorded it.
const WorkerObjectReplaced = "made again by someone (not the one mlplatform created)"

func sameRules(a, b []rbacv1.PolicyRule) bool {
	norm := func(rs []rbacv1.PolicyRule) []string {
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
	return slices.Equal(norm(a), norm(b))
}

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
// the worker, with the platform's marker. It fails when kueue-system does
// not exist there (Kueue is not installed).
func (m MultiKueueClusters) applyWorkerAccess(ctx context.Context, wc *kube.Client, s spec.MultiKueueCluster, cl claimed) error {
	if _, err := wc.Core.CoreV1().Namespaces().Get(ctx, spec.KueueNamespace, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		return fmt.Errorf("namespace %s does not exist: install Kueue in the worker first", spec.KueueNamespace)
	} else if err != nil {
		return fmt.Errorf("read namespace %s: %w", spec.KueueNamespace, err)
	}
	if _, err := cl.w.sa.ensure(ctx, cl.sa, cl.saFound, corev1ac.ServiceAccount(s.ServiceAccount, spec.KueueNamespace), true); err != nil {
		return err
	}
	role := rbacv1ac.ClusterRole(s.ServiceAccount)
	for _, r := range spec.WorkerRBAC() {
		role.WithRules(rbacv1ac.PolicyRule().WithAPIGroups(r.APIGroups...).WithResources(r.Resources...).WithVerbs(r.Verbs...))
	}
	if _, err := cl.w.role.ensure(ctx, cl.role, cl.roleFound, role, true); err != nil {
		return err
	}
	binding := rbacv1ac.ClusterRoleBinding(s.ServiceAccount).
		WithRoleRef(rbacv1ac.RoleRef().WithAPIGroup("rbac.authorization.k8s.io").WithKind("ClusterRole").WithName(s.ServiceAccount)).
		WithSubjects(rbacv1ac.Subject().WithKind("ServiceAccount").WithName(s.ServiceAccount).WithNamespace(spec.KueueNamespace))
	if _, err := cl.w.binding.ensure(ctx, cl.binding, cl.bindingFound, binding, true); err != nil {
		var status apierrors.APIStatus
		if errors.As(err, &status) && apierrors.IsInvalid(err) {
			// roleRef cannot change: the binding was edited to another role.
			return fmt.Errorf("apply ClusterRoleBinding %s (its roleRef was changed out of band and cannot be changed back; delete it and apply again): %w", s.ServiceAccount, err)
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
	p := newWorkerParts(wc, w, sa)
	obj, found, err := p.sa.read(ctx)
	if err != nil {
		return err
	}
	if found {
		uid := string(obj.GetUID())
		st, _ := ledgerOf(ctx).standing(p.sa.Key, func(r string) bool { return r == uid })
		if st == Recorded || (st == Unrecorded && take != nil && take(obj)) {
			if err := revokeTokens(ctx, wc, sa, ""); err != nil {
				return err
			}
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
