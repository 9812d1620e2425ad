package reconcile

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The manager's token in a worker: its claims, the Secret each token is bound
// to, and the revocation of former tokens.

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

// TokenOfLabel, on a Secret in the worker's kueue-system, names the service
// account whose token is bound to the Secret: the token is valid only while
// the Secret exists, so deleting the Secret revokes it.
const TokenOfLabel = "mlplatform.dev/multikueue-token-of"

// issueToken requests a token for the service account of s in the worker
// (wc), valid for s.TokenValidity and bound to a new Secret (tokenHolder),
// and returns it with that Secret's name.
func issueToken(ctx context.Context, wc *kube.Client, s spec.MultiKueueCluster) (token, holder string, err error) {
	h, err := tokenHolder(ctx, wc, s.ServiceAccount)
	if err != nil {
		return "", "", err
	}
	tr, err := wc.Core.CoreV1().ServiceAccounts(spec.KueueNamespace).CreateToken(ctx, s.ServiceAccount, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{
			ExpirationSeconds: ptr.To(int64(s.TokenValidity / time.Second)),
			BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Secret", APIVersion: "v1", Name: h.Name, UID: h.UID},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return "", h.Name, fmt.Errorf("request a token for ServiceAccount %s/%s: %w", spec.KueueNamespace, s.ServiceAccount, err)
	}
	return tr.Status.Token, h.Name, nil
}

// tokenHolder creates the empty Secret a new token is bound to, owned by the
// service account (so it goes with it).
func tokenHolder(ctx context.Context, wc *kube.Client, sa string) (*corev1.Secret, error) {
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
