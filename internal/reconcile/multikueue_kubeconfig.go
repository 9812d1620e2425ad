package reconcile

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The kubeconfig Secret in the manager: what the platform reads of it, and
// the kubeconfig it writes (inline CA data and a bearer token).

// KubeconfigSHA256Annotation, on a MultiKueueCluster the platform wrote, is
// the SHA-256 of the kubeconfig it last wrote into the cluster's Secret: a
// Secret that no longer hashes to it was edited (or deleted) by someone
// else. The token itself is kept nowhere but in that Secret.
const KubeconfigSHA256Annotation = "mlplatform.dev/kubeconfig-sha256"

// Kubeconfig Secret states other than a hash, as
// MultiKueueClusterObserved.KubeconfigSHA256 reports them.
const (
	KubeconfigDeleted = "deleted out of band"
	KubeconfigEdited  = "changed out of band"
)

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

// writeKubeconfig writes the kubeconfig of token, for the worker at ep as
// cluster name, into the Secret p, as claim found it (cur, found), and
// returns its SHA-256 (hex). An imported Secret is not marked: only what
// the platform creates is.
func writeKubeconfig(ctx context.Context, p Part[*corev1.Secret, *corev1ac.SecretApplyConfiguration], cur *corev1.Secret, found bool,
	name string, ep kube.Endpoint, token string) (string, error) {
	data, err := workerKubeconfig(name, ep, token)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	secret := corev1ac.Secret(p.Ref.Name, p.Ref.Namespace).
		WithType(corev1.SecretTypeOpaque).
		WithData(map[string][]byte{spec.MultiKueueKubeconfigKey: data})
	if _, err := p.ensure(ctx, cur, found, secret, !found || Created(cur)); err != nil {
		return "", fmt.Errorf("write the kubeconfig Secret %s: %w", p.Ref, err)
	}
	return hex.EncodeToString(sum[:]), nil
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
