package reconcile

import (
	"context"
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The objects of a MultiKueue worker's access, as Parts (part.go): three in
// the worker (multikueue_worker.go), two in the manager. Worker objects are
// keyed with the worker they are in, so a worker_service_account of the same
// name in another worker is another object. And what a write may claim of
// them.

// inWorker marks the ledger keys of worker objects.
const inWorker = " in worker "

func workerKey(kind string, ref Ref, w spec.Worker) string {
	return kubeKey(kind, ref) + inWorker + w.String()
}

type managerParts struct {
	secret Part[*corev1.Secret, *corev1ac.SecretApplyConfiguration]
	mkc    Part[*kueuev1beta2.MultiKueueCluster, *kueueac.MultiKueueClusterApplyConfiguration]
}

func (m MultiKueueClusters) managerParts(name, secret string) managerParts {
	ref := Ref{Name: name}
	return managerParts{
		secret: m.secretPart(secret),
		mkc: Part[*kueuev1beta2.MultiKueueCluster, *kueueac.MultiKueueClusterApplyConfiguration]{Kind: "MultiKueueCluster", Ref: ref,
			Key: kubeKey("MultiKueueCluster", ref), API: m.Manager.Kueue.KueueV1beta2().MultiKueueClusters()},
	}
}

func (m MultiKueueClusters) secretPart(name string) Part[*corev1.Secret, *corev1ac.SecretApplyConfiguration] {
	r := Ref{Namespace: spec.KueueNamespace, Name: name}
	return Part[*corev1.Secret, *corev1ac.SecretApplyConfiguration]{Kind: "Secret", Ref: r, Key: kubeKey("Secret", r),
		API: m.Manager.Core.CoreV1().Secrets(spec.KueueNamespace)}
}

// recordedWorker reports whether the ledger holds any worker object: a
// MultiKueue cluster resource that holds none is one of an earlier release
// (or just imported), whose worker objects are taken by their marker.
func (l *Ledger) recordedWorker() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, v := range l.ids {
		if v != "" && strings.Contains(k, inWorker) {
			return true
		}
	}
	return false
}

// claimWorker is what Create and Update may take of a worker's objects
// that the ledger does not hold: nothing on a create; on an update, while
// the ledger holds no worker object at all (state of an earlier release, or
// an import, which covers the manager's objects only), those with the
// platform's marker.
func claimWorker(ctx context.Context, creating bool) func(metav1.Object) bool {
	if creating || ledgerOf(ctx).recordedWorker() {
		return nil
	}
	return Created
}

// claimManager is what Create and Update may take of the manager's
// objects that the ledger does not hold: nothing on a create; on an update,
// while it holds neither (state of an earlier release, or just imported),
// either, marked or not (an import takes them as they are).
func claimManager(ctx context.Context, p managerParts, creating bool) func(metav1.Object) bool {
	if creating || ledgerOf(ctx).recordedAny(p.secret.Key, p.mkc.Key) {
		return nil
	}
	return func(metav1.Object) bool { return true }
}

// claimSecret reports whether the kubeconfig Secret read is this resource
// instance's: not one made again by someone after the one it recorded was
// deleted (that one is noted). One it did not record is taken (the
// platform wrote it before identities, or it was imported).
func (l *Ledger) claimSecret(s *corev1.Secret) bool {
	mine, _, _ := l.claimKube("Secret", Ref{Namespace: s.Namespace, Name: s.Name}, s, true, false)
	return mine
}

// claimed is what claim found of the five objects a write writes.
type claimed struct {
	w                  workerParts
	mg                 managerParts
	sa                 *corev1.ServiceAccount
	role               *rbacv1.ClusterRole
	binding            *rbacv1.ClusterRoleBinding
	secret             *corev1.Secret
	mkc                *kueuev1beta2.MultiKueueCluster
	saFound, roleFound bool
	bindingFound       bool
	secretFound        bool
	mkcFound           bool
}

// claim reads the five objects a write writes and fails with a
// *NotOwnedError, before any write, when one exists that is not this
// resource instance's (Part.claim; claimWorker and claimManager say what
// it may take that it did not record).
func (m MultiKueueClusters) claim(ctx context.Context, wc *kube.Client, ref Ref, s spec.MultiKueueCluster, creating bool) (claimed, error) {
	c := claimed{w: newWorkerParts(wc, s.Worker, s.ServiceAccount, s.Frameworks), mg: m.managerParts(ref.Name, s.SecretName())}
	takeWorker, takeManager := claimWorker(ctx, creating), claimManager(ctx, c.mg, creating)
	workerErr := func(err error) error {
		var no *NotOwnedError
		if errors.As(err, &no) {
			no.Detail = strings.TrimPrefix(no.Detail+"; in worker "+ref.Name, "; ")
			return no
		}
		return &WorkerError{Name: ref.Name, Worker: s.Worker, Err: err}
	}
	var err error
	if c.sa, c.saFound, err = c.w.sa.claim(ctx, takeWorker); err != nil {
		return c, workerErr(err)
	}
	if c.role, c.roleFound, err = c.w.role.claim(ctx, takeWorker); err != nil {
		return c, workerErr(err)
	}
	if c.binding, c.bindingFound, err = c.w.binding.claim(ctx, takeWorker); err != nil {
		return c, workerErr(err)
	}
	if c.secret, c.secretFound, err = c.mg.secret.claim(ctx, takeManager); err != nil {
		return c, err
	}
	c.mkc, c.mkcFound, err = c.mg.mkc.claim(ctx, takeManager)
	return c, err
}
