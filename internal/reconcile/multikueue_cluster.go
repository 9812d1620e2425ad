package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The MultiKueueCluster reconciler: the manager's access to one worker, read
// (Observe, Diff), written (Create, Update), awaited and deleted. Its jobs
// are in multikueue_kubeconfig.go (the kubeconfig Secret),
// multikueue_token.go (the worker's tokens: claims, issue, revocation),
// multikueue_worker.go (the worker's service account and RBAC) and
// multikueue_parts.go (the objects as Parts, and what each write may claim).

// ErrStillListed is returned (wrapped) when Delete refuses to remove a
// worker's access while a MultiKueueConfig lists the worker.
var ErrStillListed = errors.New("still listed by a MultiKueueConfig")

// Worker access, as MultiKueueClusterObserved.WorkerAccess reports it.
const (
	WorkerAccessGranted     = "granted"
	WorkerAccessUnreachable = "unreachable"
	// TokenRevoked starts the WorkerAccess of a worker where the Secret the
	// manager's token is bound to was deleted: the token no longer works.
	TokenRevoked = "token revoked"
)

// WorkerConnector builds the client of a worker cluster (platform.Clients.Worker).
type WorkerConnector func(ctx context.Context, w spec.Worker) (*kube.Client, kube.Endpoint, error)

// MultiKueueClusterObserved is what the manager and the worker hold for one
// worker's access.
type MultiKueueClusterObserved struct {
	Spec spec.MultiKueueCluster // the name as read; the rest as asked (the server does not know it)
	// SecretName is the Secret the MultiKueueCluster reads its kubeconfig from.
	SecretName string
	// KubeconfigSHA256 is the SHA-256 (hex) of the kubeconfig in the Secret
	// when it is the one the platform last wrote for this worker;
	// KubeconfigDeleted or KubeconfigEdited otherwise.
	KubeconfigSHA256 string
	// TokenExpiresAt is the expiry of the token in the Secret (its exp
	// claim); zero when there is none.
	TokenExpiresAt time.Time
	// TokenServiceAccount is the worker service account the token in the
	// Secret was issued to (its sub claim, in kueue-system); "" when unknown.
	TokenServiceAccount string
	// Endpoint is the worker's API server as the platform reaches it.
	Endpoint string
	// WorkerAccess is WorkerAccessGranted when the worker holds the service
	// account, ClusterRole and binding as the platform wrote them, else what
	// is missing or changed, or WorkerAccessUnreachable (WorkerErr says why).
	WorkerAccess string
	WorkerErr    error
}

// InSync reports whether the Secret is the one the platform wrote.
func (o MultiKueueClusterObserved) InSync() bool {
	return o.KubeconfigSHA256 != KubeconfigDeleted && o.KubeconfigSHA256 != KubeconfigEdited
}

// MultiKueueClusters reconciles a spec.MultiKueueCluster: the manager's
// access to one worker. In the worker: a service account in kueue-system,
// the ClusterRole MultiKueue documents for workers and its binding, and a
// token (TokenRequest, spec.TokenValidity). In the manager: the kubeconfig
// Secret in kueue-system (inline CA data and the bearer token, nothing Kueue
// rejects) and the MultiKueueCluster reading it. All carry the platform's
// marker; a create never writes over one that exists without it.
type MultiKueueClusters struct {
	Manager *kube.Client
	Worker  WorkerConnector
	Poll    time.Duration // default 200ms
	// BlockedGrace is how long Delete waits for MultiKueueConfigs that list
	// the cluster to let go (default 30s).
	BlockedGrace time.Duration
}

var _ Reconciler[Ref, spec.MultiKueueCluster, MultiKueueClusterObserved] = MultiKueueClusters{}

func (m MultiKueueClusters) poll() time.Duration {
	if m.Poll > 0 {
		return m.Poll
	}
	return 200 * time.Millisecond
}

// Observe reads the MultiKueueCluster and its Secret in the manager, and the
// worker's access objects (hint says which worker; a worker that cannot be
// read is reported in WorkerAccess, not as an error, so a plan can still
// remove it). found is false when the MultiKueueCluster does not exist.
func (m MultiKueueClusters) Observe(ctx context.Context, ref Ref, hint spec.MultiKueueCluster) (MultiKueueClusterObserved, bool, error) {
	obs := MultiKueueClusterObserved{Spec: hint}
	obs.Spec.Name = ref.Name
	l := ledgerOf(ctx)
	mkc, err := m.Manager.Kueue.KueueV1beta2().MultiKueueClusters().Get(ctx, ref.Name, metav1.GetOptions{})
	wrote := ""
	switch {
	case apierrors.IsNotFound(err):
		// Gone. The rest of the access is still this resource's while the
		// ledger holds it (an apply cut off before it wrote the
		// MultiKueueCluster, or a delete by hand): the next update writes
		// the MultiKueueCluster again.
		if !l.recordedWorker() && !l.recordedAny(m.secretPart(hint.SecretName()).Key) {
			return obs, false, nil
		}
		l.noteMissing("MultiKueueCluster", ref)
		obs.SecretName = hint.SecretName()
	case err != nil:
		return obs, false, fmt.Errorf("read MultiKueueCluster %s: %w", ref.Name, err)
	default:
		if mine, _, _ := l.claimKube("MultiKueueCluster", ref, mkc, true, false); !mine {
			return obs, false, nil
		}
		obs.SecretName, wrote = kueue.MultiKueueClusterSecret(mkc), mkc.Annotations[KubeconfigSHA256Annotation]
	}
	kc, err := m.readKubeconfig(ctx, obs.SecretName)
	if err != nil {
		return obs, false, err
	}
	switch {
	case kc != nil && !l.claimSecret(kc.secret):
		obs.KubeconfigSHA256 = KubeconfigEdited // made again by someone: not the Secret the platform wrote
	case kc == nil:
		obs.KubeconfigSHA256 = KubeconfigDeleted
	case kc.sha256 != wrote || obs.SecretName != hint.SecretName():
		obs.KubeconfigSHA256 = KubeconfigEdited
	default:
		obs.KubeconfigSHA256 = kc.sha256
	}
	if kc != nil {
		obs.TokenExpiresAt, obs.TokenServiceAccount = kc.expires, kc.serviceAccount
	}
	if hint.Worker.GKE == nil && hint.Worker.Kubeconfig == "" {
		// An import: which worker is in the configuration, not yet known.
		obs.WorkerAccess = WorkerAccessGranted
		if kc != nil {
			obs.Endpoint = kc.server
		}
		return obs, true, nil
	}
	wc, ep, err := m.Worker(ctx, hint.Worker)
	if err == nil {
		obs.Endpoint = ep.Server
		if kc != nil && obs.InSync() && (kc.server != ep.Server || string(kc.ca) != string(ep.CAData)) {
			obs.KubeconfigSHA256 = KubeconfigEdited // the worker moved, or its CA was rotated
		}
		obs.WorkerAccess, err = workerAccess(ctx, wc, hint)
		if err == nil && obs.WorkerAccess == WorkerAccessGranted && kc != nil && kc.boundSecret != "" && obs.InSync() {
			_, gerr := wc.Core.CoreV1().Secrets(spec.KueueNamespace).Get(ctx, kc.boundSecret, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(gerr):
				// Deleting the Secret revoked the token the manager holds.
				obs.WorkerAccess = TokenRevoked + ": Secret " + spec.KueueNamespace + "/" + kc.boundSecret + " missing"
			case gerr != nil:
				err = gerr
			}
		}
	}
	if err != nil {
		obs.WorkerAccess, obs.WorkerErr = WorkerAccessUnreachable, &WorkerError{Name: ref.Name, Worker: hint.Worker, Err: err}
	}
	return obs, true, nil
}

// Diff names what differs: the Secret and the worker's access (what the
// server holds of the spec itself is only the name).
func (m MultiKueueClusters) Diff(desired spec.MultiKueueCluster, actual MultiKueueClusterObserved) []string {
	var d []string
	if !actual.InSync() || actual.SecretName != desired.SecretName() {
		d = append(d, "kubeconfig_secret")
	}
	if actual.WorkerAccess != WorkerAccessGranted {
		d = append(d, "worker_access")
	}
	return d
}

// Create gives the manager access to the worker for the first time. Every
// object it would write, in the worker and in the manager, is checked first:
// one that exists fails the create before any write, whoever made it.
func (m MultiKueueClusters) Create(ctx context.Context, ref Ref, desired spec.MultiKueueCluster) (Result[MultiKueueClusterObserved], error) {
	wc, ep, err := m.Worker(ctx, desired.Worker)
	if err != nil {
		return Result[MultiKueueClusterObserved]{}, &WorkerError{Name: ref.Name, Worker: desired.Worker, Err: err}
	}
	cl, err := m.claim(ctx, wc, ref, desired, true)
	if err != nil {
		return Result[MultiKueueClusterObserved]{}, err
	}
	return m.write(ctx, wc, ep, ref, desired, cl, true)
}

// Update makes the access match desired. The kubeconfig Secret is written
// with a new token when desired.RewriteKubeconfig says so (the plan: a
// rotation, a changed worker or token validity) or when the Secret is not
// the one the platform wrote; otherwise the token in it stays.
func (m MultiKueueClusters) Update(ctx context.Context, ref Ref, prior, desired spec.MultiKueueCluster) (Result[MultiKueueClusterObserved], error) {
	wc, ep, err := m.Worker(ctx, desired.Worker)
	if err != nil {
		return Result[MultiKueueClusterObserved]{}, &WorkerError{Name: ref.Name, Worker: desired.Worker, Err: err}
	}
	take := claimWorker(ctx, false)
	cl, err := m.claim(ctx, wc, ref, desired, false)
	if err != nil {
		return Result[MultiKueueClusterObserved]{}, err
	}
	rewrite := desired.RewriteKubeconfig
	if !rewrite {
		obs, found, err := m.Observe(ctx, ref, desired)
		if err != nil {
			return Result[MultiKueueClusterObserved]{}, err
		}
		rewrite = !found || !obs.InSync() || obs.SecretName != desired.SecretName() || strings.HasPrefix(obs.WorkerAccess, TokenRevoked)
	}
	res, err := m.write(ctx, wc, ep, ref, desired, cl, rewrite)
	if err != nil {
		return res, err
	}
	res.Warnings = append(res.Warnings, m.retire(ctx, wc, ref, prior, desired, take)...)
	return res, nil
}

// write writes the worker's access objects, then (when rewrite) a new token
// into the Secret, then the MultiKueueCluster, and reads back what is there.
// cl is what claim found: each object is created (and recorded) where it was
// absent, and otherwise applied naming the UID claim read.
func (m MultiKueueClusters) write(ctx context.Context, wc *kube.Client, ep kube.Endpoint, ref Ref, s spec.MultiKueueCluster, cl claimed, rewrite bool) (Result[MultiKueueClusterObserved], error) {
	partial := func(err error) (Result[MultiKueueClusterObserved], error) {
		obs, found, rerr := m.Observe(ctx, ref, s)
		return Result[MultiKueueClusterObserved]{Observed: obs, Partial: found && rerr == nil}, err
	}
	workerErr := func(err error) error { return &WorkerError{Name: ref.Name, Worker: s.Worker, Err: err} }
	if err := applyWorkerAccess(ctx, wc, cl); err != nil {
		return partial(workerErr(err))
	}
	sha, newHolder := "", ""
	if !rewrite {
		if cl.mkcFound {
			sha = cl.mkc.Annotations[KubeconfigSHA256Annotation]
		}
	} else {
		token, holder, err := issueToken(ctx, wc, s)
		if err != nil {
			return partial(workerErr(err))
		}
		newHolder = holder
		if sha, err = writeKubeconfig(ctx, cl.mg.secret, cl.secret, cl.secretFound, ref.Name, ep, token); err != nil {
			return partial(err)
		}
	}
	mkc := kueue.MultiKueueCluster(ref.Name, s.SecretName()).WithAnnotations(map[string]string{KubeconfigSHA256Annotation: sha})
	if _, err := cl.mg.mkc.ensure(ctx, cl.mkc, cl.mkcFound, mkc, !cl.mkcFound || Created(cl.mkc)); err != nil {
		return partial(err)
	}
	if rewrite {
		// The manager has the new token: revoke the ones issued before it.
		if err := revokeTokens(ctx, wc, s.ServiceAccount, newHolder); err != nil {
			return partial(workerErr(err))
		}
	}
	obs, _, err := m.Observe(ctx, ref, s)
	if err == nil && obs.WorkerErr != nil {
		err = obs.WorkerErr
	}
	return Result[MultiKueueClusterObserved]{Observed: obs, Partial: err != nil}, err
}

// WaitReady waits until Kueue reports the MultiKueueCluster Active (it has
// connected to the worker with the kubeconfig), or ctx ends: then the error
// says why in plain words, with Kueue's reason.
func (m MultiKueueClusters) WaitReady(ctx context.Context, ref Ref, _ spec.MultiKueueCluster) error {
	start := time.Now()
	var last Readiness
	for {
		mkc, err := m.Manager.Kueue.KueueV1beta2().MultiKueueClusters().Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			last = Readiness{Reason: "Deleted", Message: "the MultiKueueCluster was deleted while waiting for it"}
		case err != nil && !kube.DeadlineReached(ctx, err):
			return fmt.Errorf("read MultiKueueCluster %s while waiting for it to become active: %w", ref.Name, err)
		case err == nil:
			last = ConditionReadiness(mkc.Status.Conditions, kueuev1beta2.MultiKueueClusterActive)
			if last.Ready {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return &NotReadyError{Kind: "MultiKueue worker", Name: ref.Name, Waited: time.Since(start), Last: last, Why: WorkerProblem(last)}
		case <-time.After(m.poll()):
		}
	}
}

// Delete removes the MultiKueueCluster (refused while a MultiKueueConfig
// lists it) and its Secret in the manager, then the binding, ClusterRole and
// service account in the worker (which revokes every token issued to it).
// Only this resource instance's objects are deleted: those it recorded or,
// for state of an earlier release, the MultiKueueCluster, the Secret it
// reads, and the others with the platform's marker. One made again by
// someone after the recorded one was deleted is left (the ledger notes it).
func (m MultiKueueClusters) Delete(ctx context.Context, ref Ref, last spec.MultiKueueCluster) error {
	if err := m.waitUnused(ctx, ref); err != nil {
		return err
	}
	takeAny, takeWorker := func(metav1.Object) bool { return true }, claimWorker(ctx, false)
	mg := m.managerParts(ref.Name, last.SecretName())
	// The Secret the MultiKueueCluster reads is managed with it (created, or
	// imported with it); NAME-kubeconfig otherwise only when the platform
	// created it (a delete cut off after the MultiKueueCluster went).
	reads := ""
	mkc, found, err := mg.mkc.read(ctx)
	if err != nil {
		return err
	}
	if found {
		if mine, _, _ := ledgerOf(ctx).claimKube("MultiKueueCluster", ref, mkc, true, true); mine {
			reads = kueue.MultiKueueClusterSecret(mkc)
		}
	}
	if err := mg.mkc.release(ctx, takeAny); err != nil {
		return err
	}
	if reads != "" {
		if err := m.secretPart(reads).release(ctx, takeAny); err != nil {
			return err
		}
	}
	if reads != last.SecretName() {
		if err := mg.secret.release(ctx, Created); err != nil {
			return err
		}
	}
	if last.Worker.GKE == nil && last.Worker.Kubeconfig == "" {
		return nil
	}
	wc, _, err := m.Worker(ctx, last.Worker)
	if err != nil {
		return &WorkerError{Name: ref.Name, Worker: last.Worker, Err: err}
	}
	if err := deleteWorkerAccess(ctx, wc, last.Worker, last.ServiceAccount, takeWorker); err != nil {
		return &WorkerError{Name: ref.Name, Worker: last.Worker, Err: err}
	}
	return nil
}

// waitUnused waits up to BlockedGrace for the MultiKueueConfigs listing the
// cluster to let go (Terraform may be updating them at the same time).
func (m MultiKueueClusters) waitUnused(ctx context.Context, ref Ref) error {
	grace := m.BlockedGrace
	if grace == 0 {
		grace = 30 * time.Second
	}
	deadline := time.Now().Add(grace)
	for {
		cfgs, err := m.Manager.Kueue.KueueV1beta2().MultiKueueConfigs().List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("find the MultiKueueConfigs that list %s: %w", ref.Name, err)
		}
		var users []string
		for _, c := range cfgs.Items {
			if c.DeletionTimestamp == nil && slices.Contains(c.Spec.Clusters, ref.Name) {
				users = append(users, "MultiKueueConfig "+c.Name)
			}
		}
		if len(users) == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("MultiKueueCluster %s is still listed by %s; it was not deleted: %w", ref.Name, strings.Join(users, ", "), ErrStillListed)
		}
		select {
		case <-ctx.Done():
		case <-time.After(m.poll()):
		}
	}
}
