package doctor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// CheckMultiKueueWorker is doctor's check of a MultiKueue manager's
// workers: each MultiKueueCluster Active and, with --multikueue-workers,
// the manager's own credentials for it allowed every verb of every kind the
// manager dispatches there (asked of the worker, one
// SelfSubjectAccessReview per verb).
var CheckMultiKueueWorker = Check{"DOC019", "multikueue-worker", "every MultiKueue worker is Active and (--multikueue-workers) lets the manager do what it dispatches"}

// WorkerAccess is what a MultiKueue worker answered when asked, with the
// manager's credentials for it, what they may do there.
type WorkerAccess struct {
	Cluster string // the MultiKueueCluster
	Secret  string // kueue-system/NAME, the kubeconfig's Secret
	// Denied are the verbs refused, "verb, verb resource.group" per resource.
	Denied []string
	// DeniedKinds are the kinds of Denied, each once.
	DeniedKinds []string
	// Err says why the worker could not be asked (nil when it was).
	Err error
}

// workerSecret is the kubeconfig Secret of a MultiKueueCluster ("" when its
// kubeconfig is a path on the manager's disk, or it uses a ClusterProfile).
func workerSecret(c kueuev1beta2.MultiKueueCluster) string {
	kc := c.Spec.ClusterSource.KubeConfig
	if kc == nil || kc.LocationType != "" && kc.LocationType != kueuev1beta2.SecretLocationType {
		return ""
	}
	return kc.Location
}

// gatherWorkers asks each MultiKueue worker, with the manager's credentials
// from its kubeconfig Secret, whether they may do what the manager
// dispatches (spec.WorkerRBAC of the frameworks in Kueue's configuration).
// The Secret is read into memory only; its credentials are never written.
func gatherWorkers(ctx context.Context, s *Snapshot, src Sources, timeout time.Duration) {
	var frameworks []string
	var confErr error
	if text := s.KueueConfiguration(); text == "" {
		confErr = errors.New("no Kueue configuration was found, so what the manager dispatches is not known")
	} else if cfg, err := kueueconfig.Parse(text); err != nil {
		confErr = fmt.Errorf("the Kueue configuration could not be read (%w), so what the manager dispatches is not known", err)
	} else {
		frameworks = managedFrameworks(cfg)
	}
	for _, c := range s.MultiKueueClusters {
		wa := WorkerAccess{Cluster: c.Name}
		name := workerSecret(c)
		switch {
		case name == "":
			wa.Err = errors.New("its kubeconfig is not in a Secret (a path on the manager's disk, or a ClusterProfile), which doctor does not read")
		case confErr != nil:
			wa.Secret = KueueNamespace + "/" + name
			wa.Err = confErr
		default:
			wa.Secret = KueueNamespace + "/" + name
			wctx, cancel := context.WithTimeout(ctx, timeout)
			wa.Denied, wa.DeniedKinds, wa.Err = askWorker(wctx, src, name, frameworks)
			cancel()
			if kube.DeadlineReached(wctx, wa.Err) && ctx.Err() == nil {
				wa.Err = fmt.Errorf("no answer within %s (%w)", timeout, wa.Err)
			}
		}
		s.Workers = append(s.Workers, wa)
	}
}

// askWorker reads the kubeconfig in Secret kueue-system/name and asks the
// worker it names, as the identity it holds, each access
// spec.WorkerRBAC(frameworks) grants.
func askWorker(ctx context.Context, src Sources, name string, frameworks []string) (denied, deniedKinds []string, err error) {
	sec, err := src.Kube.Core.CoreV1().Secrets(KueueNamespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsForbidden(err):
		return nil, nil, fmt.Errorf("doctor may not read Secret %s/%s (grant get on it, by name, to the identity doctor runs as): %w", KueueNamespace, name, err)
	case apierrors.IsNotFound(err):
		return nil, nil, fmt.Errorf("no Secret %s/%s (apply the worker's mlplatform_multikueue_cluster to write it): %w", KueueNamespace, name, err)
	case err != nil:
		return nil, nil, fmt.Errorf("read Secret %s/%s: %w", KueueNamespace, name, err)
	}
	cfg, err := workerConfig(sec.Data[spec.MultiKueueKubeconfigKey])
	if err != nil {
		return nil, nil, fmt.Errorf("the kubeconfig in Secret %s/%s: %w", KueueNamespace, name, err)
	}
	rc, err := clientcmd.NewDefaultClientConfig(*cfg, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("the kubeconfig in Secret %s/%s: %w", KueueNamespace, name, err)
	}
	rc.UserAgent = "mlplatform-doctor"
	cs, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range spec.WorkerRBAC(frameworks) {
		for _, res := range r.Resources {
			resource, sub, _ := strings.Cut(res, "/")
			var verbs []string
			for _, verb := range r.Verbs {
				review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
					ResourceAttributes: &authorizationv1.ResourceAttributes{Group: r.APIGroups[0], Resource: resource, Subresource: sub, Verb: verb},
				}}
				got, err := cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
				switch {
				case apierrors.IsUnauthorized(err):
					return nil, nil, fmt.Errorf("the worker (%s) refuses the manager's credentials, so MultiKueue cannot use it either "+
						"(an expired or revoked token: apply the worker's mlplatform_multikueue_cluster to write a new one): %w", rc.Host, err)
				case err != nil:
					return nil, nil, fmt.Errorf("ask the worker (%s): %w", rc.Host, err)
				}
				if !got.Status.Allowed {
					verbs = append(verbs, verb)
				}
			}
			if len(verbs) == 0 {
				continue
			}
			denied = append(denied, strings.Join(verbs, ", ")+" "+res+"."+r.APIGroups[0])
			if kind := kindOf(r.APIGroups[0], resource); !slices.Contains(deniedKinds, kind) {
				deniedKinds = append(deniedKinds, kind)
			}
		}
	}
	return denied, deniedKinds, nil
}

// kindOf names the kind of group/resource as the findings do (JobSets).
func kindOf(group, resource string) string {
	if group == kueuev1beta2.SchemeGroupVersion.Group && resource == "workloads" {
		return "Workloads"
	}
	for _, f := range spec.KueueFrameworks {
		if f.Group == group && f.Resource == resource {
			return f.Kind + "s"
		}
	}
	return resource + "." + group
}

// workerConfig parses a worker kubeconfig from a Secret, refusing what
// would make doctor act on the kubeconfig's say on this machine: a
// credential plugin (a command doctor would run) or a file path (a file
// doctor would read and send to the worker). Kueue's own kubeconfigs for
// MultiKueue hold the token and the CA inline.
func workerConfig(data []byte) (*clientcmdapi.Config, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("no key %q", spec.MultiKueueKubeconfigKey)
	}
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return nil, fmt.Errorf("not a kubeconfig: %w", err)
	}
	for name, a := range cfg.AuthInfos {
		switch {
		case a.Exec != nil || a.AuthProvider != nil:
			return nil, fmt.Errorf("user %q runs a credential plugin, which doctor does not run from a Secret", name)
		case a.TokenFile != "" || a.ClientCertificate != "" || a.ClientKey != "":
			return nil, fmt.Errorf("user %q names files, which doctor does not read on a Secret's say", name)
		}
	}
	for name, c := range cfg.Clusters {
		if c.CertificateAuthority != "" {
			return nil, fmt.Errorf("cluster %q names a CA file, which doctor does not read on a Secret's say", name)
		}
	}
	return cfg, nil
}

// multiKueueWorkers is DOC019: a worker that is not Active, or whose
// manager credentials may not do what the manager dispatches, receives
// nothing (or not those kinds).
func (a analysis) multiKueueWorkers() {
	s := a.s
	if !a.needs(s.MultiKueueClustersRead, CheckMultiKueueWorker) {
		return
	}
	for _, c := range s.MultiKueueClusters {
		obj := "MultiKueueCluster " + c.Name
		if cond := meta.FindStatusCondition(c.Status.Conditions, kueuev1beta2.MultiKueueClusterActive); cond == nil || cond.Status != metav1.ConditionTrue {
			why := "it has no Active condition yet"
			if cond != nil {
				why = fmt.Sprintf("%s: %s", cond.Reason, cond.Message)
			}
			a.f.add(CheckMultiKueueWorker, SeverityError, obj, fmt.Sprintf("MultiKueue worker %s is not Active (%s): the manager dispatches nothing to it", c.Name, why),
				"fix what the reason names (the kubeconfig Secret, the worker's address, the manager's access in the worker: mlplatform_multikueue_cluster's "+
					"worker_access); doctor --multikueue-workers asks the worker what the manager's credentials may do")
			continue
		}
		a.f.pass(1)
	}
	if len(s.Workers) == 0 { // not asked (Options.MultiKueueWorkers)
		if len(s.MultiKueueClusters) > 0 {
			a.f.note(fmt.Sprintf("the MultiKueue workers (%s) were not asked what the manager may do there (%s): --multikueue-workers reads their kubeconfig Secrets "+
				"in %s to ask", listSome(names(s.MultiKueueClusters), 5), CheckMultiKueueWorker.ID, KueueNamespace))
		}
		return
	}
	for _, w := range s.Workers {
		switch {
		case w.Err != nil:
			a.f.note(fmt.Sprintf("MultiKueue worker %s could not be asked what the manager may do there: %v; %s gives no verdict for it", w.Cluster, w.Err, CheckMultiKueueWorker.ID))
		case len(w.Denied) > 0:
			a.f.add(CheckMultiKueueWorker, SeverityError, "MultiKueueCluster "+w.Cluster, fmt.Sprintf("in MultiKueue worker %s the manager's credentials (Secret %s) "+
				"may not %s: MultiKueue cannot dispatch %s to it", w.Cluster, w.Secret, strings.Join(w.Denied, "; "), strings.Join(w.DeniedKinds, ", ")),
				"apply the worker's mlplatform_multikueue_cluster (its frameworks list what the manager manages; worker_access restores the role), "+
					"or grant them in the worker to the manager's service account")
		default:
			a.f.pass(1)
		}
	}
}

func names(cs []kueuev1beta2.MultiKueueCluster) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}
