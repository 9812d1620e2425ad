package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	rbacv1ac "k8s.io/client-go/applyconfigurations/rbac/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ErrStillListed is returned (wrapped) when Delete refuses to remove a
// worker's access while a MultiKueueConfig lists the worker.
var ErrStillListed = errors.New("still listed by a MultiKueueConfig")

// KubeconfigSHA256Annotation, on a MultiKueueCluster the platform wrote, is
// the SHA-256 of the kubeconfig it last wrote into the cluster's Secret: a
// Secret that no longer hashes to it was edited (or deleted) by someone
// else. The token itself is kept nowhere but in that Secret.
const KubeconfigSHA256Annotation = "mlplatform.dev/kubeconfig-sha256"

// Worker access, as MultiKueueClusterObserved.WorkerAccess reports it.
const (
	WorkerAccessGranted     = "granted"
	WorkerAccessUnreachable = "unreachable"
	// TokenRevoked starts the WorkerAccess of a worker where the Secret the
	// manager's token is bound to was deleted: the token no longer works.
	TokenRevoked = "token revoked"
)

// Kubeconfig Secret states other than a hash, as
// MultiKueueClusterObserved.KubeconfigSHA256 reports them.
const (
	KubeconfigDeleted = "deleted out of band"
	KubeconfigEdited  = "changed out of band"
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

// kubeconfigRead is what the platform reads of a kubeconfig Secret.
type kubeconfigRead struct {
	secret         *corev1.Secret
	sha256         string
	server         string
	ca             []byte
	expires        time.Time
	serviceAccount string
	boundSecret    string // the Secret in the worker the token is bound to
}

// readKubeconfig reads the kubeconfig Secret; nil when it does not exist or
// has no kubeconfig.
func (m MultiKueueClusters) readKubeconfig(ctx context.Context, name string) (*kubeconfigRead, error) {
	if name == "" {
		return nil, nil
	}
	s, err := m.Manager.Core.CoreV1().Secrets(spec.KueueNamespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read Secret %s/%s: %w", spec.KueueNamespace, name, err)
	}
	data, ok := s.Data[spec.MultiKueueKubeconfigKey]
	if !ok {
		return nil, nil
	}
	sum := sha256.Sum256(data)
	r := &kubeconfigRead{secret: s, sha256: hex.EncodeToString(sum[:])}
	if cfg, err := clientcmd.Load(data); err == nil {
		if ctx, ok := cfg.Contexts[cfg.CurrentContext]; ok {
			if c, ok := cfg.Clusters[ctx.Cluster]; ok {
				r.server, r.ca = c.Server, c.CertificateAuthorityData
			}
			if a, ok := cfg.AuthInfos[ctx.AuthInfo]; ok {
				r.expires, r.serviceAccount, r.boundSecret = tokenClaims(a.Token)
			}
		}
	}
	return r, nil
}

// tokenClaims reads the expiry (exp) of a service account token (a JWT; the
// signature is the worker's business, not checked here), the service
// account in kueue-system it was issued to (sub
// system:serviceaccount:kueue-system:NAME) and the Secret it is bound to
// (kubernetes.io.secret.name); zero values when it has none.
func tokenClaims(token string) (expires time.Time, serviceAccount, boundSecret string) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return time.Time{}, "", ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}, "", ""
	}
	var claims struct {
		Exp int64  `json:"exp"`
		Sub string `json:"sub"`
		K8s struct {
			Secret struct {
				Name string `json:"name"`
			} `json:"secret"`
		} `json:"kubernetes.io"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return time.Time{}, "", ""
	}
	boundSecret = claims.K8s.Secret.Name
	if claims.Exp != 0 {
		expires = time.Unix(claims.Exp, 0).UTC()
	}
	serviceAccount, _ = strings.CutPrefix(claims.Sub, "system:serviceaccount:"+spec.KueueNamespace+":")
	if serviceAccount == claims.Sub {
		serviceAccount = ""
	}
	return expires, serviceAccount, boundSecret
}

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
	c := claimed{w: newWorkerParts(wc, s.Worker, s.ServiceAccount), mg: m.managerParts(ref.Name, s.SecretName())}
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
	if err := m.applyWorkerAccess(ctx, wc, s, cl); err != nil {
		return partial(workerErr(err))
	}
	sha, newHolder := "", ""
	if !rewrite {
		if cl.mkcFound {
			sha = cl.mkc.Annotations[KubeconfigSHA256Annotation]
		}
	} else {
		holder, err := m.tokenHolder(ctx, wc, s.ServiceAccount)
		if err != nil {
			return partial(workerErr(err))
		}
		newHolder = holder.Name
		tr, err := wc.Core.CoreV1().ServiceAccounts(spec.KueueNamespace).CreateToken(ctx, s.ServiceAccount, &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{
				ExpirationSeconds: ptr.To(int64(s.TokenValidity / time.Second)),
				BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: holder.Name, UID: holder.UID},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			return partial(workerErr(fmt.Errorf("request a token for ServiceAccount %s/%s: %w", spec.KueueNamespace, s.ServiceAccount, err)))
		}
		data, err := workerKubeconfig(ref.Name, ep, tr.Status.Token)
		if err != nil {
			return partial(err)
		}
		sum := sha256.Sum256(data)
		sha = hex.EncodeToString(sum[:])
		secret := corev1ac.Secret(s.SecretName(), spec.KueueNamespace).
			WithType(corev1.SecretTypeOpaque).
			WithData(map[string][]byte{spec.MultiKueueKubeconfigKey: data})
		// An imported Secret is not marked: only what the platform creates is.
		if _, err := cl.mg.secret.ensure(ctx, cl.secret, cl.secretFound, secret, !cl.secretFound || Created(cl.secret)); err != nil {
			return partial(fmt.Errorf("write the kubeconfig Secret %s/%s: %w", spec.KueueNamespace, s.SecretName(), err))
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

// workerKubeconfig is the kubeconfig Kueue accepts: the worker's server with
// inline CA data and a bearer token; no exec plugin, auth provider, token
// file or CA path.
func workerKubeconfig(name string, ep kube.Endpoint, token string) ([]byte, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{Server: ep.Server, CertificateAuthorityData: ep.CAData}
	kc.AuthInfos["multikueue-manager"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: "multikueue-manager"}
	kc.CurrentContext = name
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, errors.New("write the worker's kubeconfig") // never the token-bearing cause
	}
	return data, nil
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
		case err != nil && ctx.Err() == nil:
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

// TokenOfLabel, on a Secret in the worker's kueue-system, names the service
// account whose token is bound to the Secret: the token is valid only while
// the Secret exists, so deleting the Secret revokes it.
const TokenOfLabel = "mlplatform.dev/multikueue-token-of"

// tokenHolder creates the empty Secret a new token is bound to, owned by the
// service account (so it goes with it).
func (m MultiKueueClusters) tokenHolder(ctx context.Context, wc *kube.Client, sa string) (*corev1.Secret, error) {
	owner, err := wc.Core.CoreV1().ServiceAccounts(spec.KueueNamespace).Get(ctx, sa, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read ServiceAccount %s/%s: %w", spec.KueueNamespace, sa, err)
	}
	labels := marker()
	labels[TokenOfLabel] = sa
	holder := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{GenerateName: sa + "-token-", Namespace: spec.KueueNamespace, Labels: labels,
			Annotations:     map[string]string{"mlplatform.dev/purpose": "the manager's MultiKueue token is bound to this Secret: deleting it revokes the token"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ServiceAccount", Name: owner.Name, UID: owner.UID}}},
		Type: corev1.SecretTypeOpaque,
	}
	got, err := wc.Core.CoreV1().Secrets(spec.KueueNamespace).Create(ctx, holder, metav1.CreateOptions{FieldManager: kube.FieldManager})
	if err != nil {
		return nil, fmt.Errorf("create the Secret a token of %s is bound to: %w", sa, err)
	}
	return got, nil
}

// revokeTokens deletes the Secrets the tokens of sa are bound to, except
// keep: every token issued to sa before, but the current one, stops working.
func revokeTokens(ctx context.Context, wc *kube.Client, sa, keep string) error {
	secrets := wc.Core.CoreV1().Secrets(spec.KueueNamespace)
	list, err := secrets.List(ctx, metav1.ListOptions{LabelSelector: TokenOfLabel + "=" + sa})
	if err != nil {
		return fmt.Errorf("list the tokens of %s: %w", sa, err)
	}
	for _, h := range list.Items {
		if h.Name == keep || !Created(&h) {
			continue
		}
		if err := secrets.Delete(ctx, h.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("revoke a former token of %s (delete Secret %s): %w", sa, h.Name, err)
		}
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
