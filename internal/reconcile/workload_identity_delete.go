package reconcile

// Deleting a Workload Identity binding: only what it added goes.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Delete removes only what the binding added: its member on the GSA (other
// members stay), the GSA if it created it, and the KSA if it created it, or
// else only its annotation, if it still names the binding's GSA. A KSA or GSA
// it created that is not the one this resource instance recorded (deleted and
// made again by someone) is left, with its members: the ledger notes it.
func (w WorkloadIdentities) Delete(ctx context.Context, ref Ref, s spec.WorkloadIdentity) error {
	s.Namespace, s.KSA = ref.Namespace, ref.Name
	w.KSAList.Invalidate()
	defer w.KSAList.Invalidate()
	gsaID, revoke := "", s.UsesGSA()
	if s.UsesGSA() && s.CreateGSA != nil {
		id, ours, err := w.createdGSA(ctx, s)
		if err != nil {
			return err
		}
		gsaID, revoke = id, ours // neither revoke from, nor delete, someone else's account
	}
	if revoke {
		if err := w.revoke(ctx, s); err != nil {
			return err
		}
	}
	if err := w.releaseKSA(ctx, s); err != nil {
		return err
	}
	if gsaID != "" {
		if err := w.IAM.DeleteServiceAccount(ctx, gsaID); err != nil {
			return err
		}
		ledgerOf(ctx).forget(gsaKey(s.GSA()))
	}
	return nil
}

// createdGSA reads the GSA the binding created: id is its uniqueId (what
// Delete deletes it by, so only that account is), ours is false when it is
// gone, or is not the one this resource instance recorded (noted as left).
func (w WorkloadIdentities) createdGSA(ctx context.Context, s spec.WorkloadIdentity) (id string, ours bool, err error) {
	gsa, found, err := w.IAM.ServiceAccount(ctx, s.GSA())
	if err != nil || !found {
		return "", false, err
	}
	l := ledgerOf(ctx)
	id = gsa.GetUniqueId() // ServiceAccountResource takes it for the e-mail
	if st, rec := l.standing(gsaKey(s.GSA()), func(rec string) bool { return rec == id }); st == Replaced {
		_, marked := spec.SplitGSADescription(gsa.GetDescription())
		l.note(Foreign{Kind: KindGSA, Name: s.GSA(), Recorded: rec, Found: id, Marked: marked, Left: true})
		return "", false, nil
	}
	return id, true, nil
}

func (w WorkloadIdentities) releaseKSA(ctx context.Context, s spec.WorkloadIdentity) error {
	api := w.KSAs(s.Namespace)
	ksa, err := api.Get(ctx, s.KSA, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("read Kubernetes service account %s/%s: %w", s.Namespace, s.KSA, err)
	}
	if s.CreateKSA {
		l := ledgerOf(ctx)
		st, rec := l.kubeStanding(ksaKind, ksaRef(s), ksa)
		switch {
		case st == Replaced:
			l.note(kubeForeign(KindKSA, ksaRef(s), rec, ksa, true))
			return nil
		case st == Recorded || ksa.Labels[spec.ManagedByLabel] == spec.ManagedBy:
			err := api.Delete(ctx, s.KSA, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ksa.UID}})
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete Kubernetes service account %s/%s: %w", s.Namespace, s.KSA, err)
			}
			l.forget(kubeKey(ksaKind, ksaRef(s)))
			return nil
		}
	}
	return w.removeAnnotation(ctx, ksa, s.GSA())
}

// removeAnnotation removes the GSA annotation if it still names gsa (and
// the KSA is still the one read), leaving everything else on the KSA.
func (w WorkloadIdentities) removeAnnotation(ctx context.Context, ksa *corev1.ServiceAccount, gsa string) error {
	if gsa == "" || ksa.Annotations[spec.GSAAnnotation] != gsa {
		return nil
	}
	patch, err := json.Marshal([]map[string]any{
		{"op": "test", "path": "/metadata/uid", "value": ksa.UID},
		{"op": "test", "path": "/metadata/annotations/" + jsonPointerEscape(spec.GSAAnnotation), "value": gsa},
		{"op": "remove", "path": "/metadata/annotations/" + jsonPointerEscape(spec.GSAAnnotation)},
	})
	if err != nil {
		return err
	}
	_, err = w.KSAs(ksa.Namespace).Patch(ctx, ksa.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: kube.FieldManager})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove annotation %s from Kubernetes service account %s/%s: %w", spec.GSAAnnotation, ksa.Namespace, ksa.Name, err)
	}
	return nil
}

func jsonPointerEscape(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
