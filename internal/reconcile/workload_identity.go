package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// IdentityAPI is what a Workload Identity binding needs of IAM
// (internal/iam.Client satisfies it).
type IdentityAPI interface {
	ServiceAccount(ctx context.Context, email string) (*adminpb.ServiceAccount, bool, error)
	CreateServiceAccount(ctx context.Context, project, accountID, displayName, description string) (*adminpb.ServiceAccount, error)
	DescribeServiceAccount(ctx context.Context, sa *adminpb.ServiceAccount, displayName, description string) (*adminpb.ServiceAccount, error)
	DeleteServiceAccount(ctx context.Context, email string) error
	AddMember(ctx context.Context, resource, role, member string) error
	RemoveMember(ctx context.Context, resource, role, member string) error
	HasMember(ctx context.Context, resource, role, member string) (bool, error)
}

// ClusterIdentityAPI is what a binding needs to know of its GKE cluster
// (internal/gke.Client satisfies it).
type ClusterIdentityAPI interface {
	WorkloadIdentity(ctx context.Context, cluster string) (gke.WorkloadIdentity, error)
}

// WorkloadIdentities reconciles Workload Identity bindings: a Kubernetes
// service account, its annotation, and the IAM member on a Google service
// account (optionally created too).
type WorkloadIdentities struct {
	KSAs func(namespace string) corev1client.ServiceAccountInterface
	// KSAList, when set, serves Observe's read of a KSA the platform created
	// from one LIST per provider process (kube.Listed); Apply and Delete
	// read with GETs and invalidate it around their writes.
	KSAList *kube.ListCache[*corev1.ServiceAccount]
	IAM     IdentityAPI
	GKE     ClusterIdentityAPI
	Cluster string // projects/P/locations/L/clusters/C
}

// NewWorkloadIdentities reconciles through the given clients.
func NewWorkloadIdentities(kc *kube.Client, ic IdentityAPI, gc ClusterIdentityAPI, cluster string) WorkloadIdentities {
	return WorkloadIdentities{
		KSAs:    kc.Core.CoreV1().ServiceAccounts,
		KSAList: kube.Listed(kc, "ServiceAccount", kube.ListFunc[*corev1.ServiceAccount](kc.Core.CoreV1().ServiceAccounts("").List, managedOnly)),
		IAM:     ic, GKE: gc, Cluster: cluster,
	}
}

// WorkloadIdentityStatus is what the cluster and IAM hold for a binding.
type WorkloadIdentityStatus struct {
	KSAExists  bool
	KSAUID     string
	KSAManaged bool   // carries the platform's managed-by label (created by it)
	Annotation string // value of iam.gke.io/gcp-service-account, "" if absent
	// AnnotationOwned: the platform's field manager set the annotation (an
	// adopted KSA's annotation is the platform's only if it wrote it).
	AnnotationOwned bool
	GSAExists       bool
	GSA             *adminpb.ServiceAccount // nil unless GSAExists
	// GSAMarked: the GSA's description ends with spec.GSAMarker (the
	// platform created it).
	GSAMarked bool
	// MemberGranted: the KSA's member holds roles/iam.workloadIdentityUser
	// on the GSA.
	MemberGranted bool
}

var _ Reconciler[Ref, spec.WorkloadIdentity, WorkloadIdentityStatus] = WorkloadIdentities{}

// Observe reads the parts of the binding of the Kubernetes service account
// at ref (Namespace, Name), as hint configures it (which Google service
// account). A missing part is not an error, and not absence: the binding is
// always found, and Diff names what is missing. It is the read path (a
// refresh), so the KSA may come from KSAList.
func (w WorkloadIdentities) Observe(ctx context.Context, ref Ref, hint spec.WorkloadIdentity) (WorkloadIdentityStatus, bool, error) {
	hint.Namespace, hint.KSA = ref.Namespace, ref.Name
	st, err := w.observe(ctx, hint, w.KSAList)
	return st, err == nil, err
}

// Diff names the parts of the binding that are missing or differ.
func (w WorkloadIdentities) Diff(desired spec.WorkloadIdentity, st WorkloadIdentityStatus) []string {
	var d []string
	if !st.KSAExists {
		d = append(d, "kubernetes_service_account")
	}
	if !desired.UsesGSA() {
		return d
	}
	if st.Annotation != desired.GSA() {
		d = append(d, "annotation")
	}
	switch c := desired.CreateGSA; {
	case !st.GSAExists:
		d = append(d, "google_service_account")
	case c != nil && (st.GSA.GetDisplayName() != c.DisplayName || st.GSA.GetDescription() != c.StoredDescription()):
		d = append(d, "create_google_service_account")
	}
	if !st.MemberGranted {
		d = append(d, "member")
	}
	return d
}

// Create makes the binding, after Preflight passes: every part it would
// come to own must be absent or the platform's (checkOwnership).
func (w WorkloadIdentities) Create(ctx context.Context, _ Ref, desired spec.WorkloadIdentity) (Result[WorkloadIdentityStatus], error) {
	return w.apply(ctx, nil, desired)
}

// Update makes the binding match desired; prior is the binding as last
// applied: a member granted on a GSA the binding no longer uses is revoked,
// after the new one is in place.
func (w WorkloadIdentities) Update(ctx context.Context, _ Ref, prior, desired spec.WorkloadIdentity) (Result[WorkloadIdentityStatus], error) {
	return w.apply(ctx, &prior, desired)
}

// WaitReady returns at once: a binding has no controller status (Create and
// Update write every part before they return).
func (w WorkloadIdentities) WaitReady(context.Context, Ref, spec.WorkloadIdentity) error { return nil }

func (w WorkloadIdentities) observe(ctx context.Context, s spec.WorkloadIdentity, list *kube.ListCache[*corev1.ServiceAccount]) (WorkloadIdentityStatus, error) {
	var st WorkloadIdentityStatus
	ksa, listed, err := list.Lookup(ctx, s.Namespace, s.KSA)
	if err != nil || !listed {
		ksa, err = w.KSAs(s.Namespace).Get(ctx, s.KSA, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return st, fmt.Errorf("read Kubernetes service account %s/%s: %w", s.Namespace, s.KSA, err)
	default:
		st.KSAExists, st.KSAUID = true, string(ksa.UID)
		st.KSAManaged = ksa.Labels[spec.ManagedByLabel] == spec.ManagedBy
		st.Annotation = ksa.Annotations[spec.GSAAnnotation]
		st.AnnotationOwned = ownsField(ksa, "metadata", "annotations", spec.GSAAnnotation)
	}
	if !s.UsesGSA() {
		return st, nil
	}
	gsa := s.GSA()
	st.GSA, st.GSAExists, err = w.IAM.ServiceAccount(ctx, gsa)
	if err != nil || !st.GSAExists {
		return st, err
	}
	_, st.GSAMarked = spec.SplitGSADescription(st.GSA.GetDescription())
	st.MemberGranted, err = w.IAM.HasMember(ctx, iam.ServiceAccountResource(gsa), iam.WorkloadIdentityUser, s.Member())
	return st, err
}

// apply makes the binding match desired, after Preflight passes. prior is
// nil on create. An error after a write is Partial: what is there is
// recorded, so the next run cleans up or completes it.
func (w WorkloadIdentities) apply(ctx context.Context, prior *spec.WorkloadIdentity, desired spec.WorkloadIdentity) (Result[WorkloadIdentityStatus], error) {
	w.KSAList.Invalidate()
	defer w.KSAList.Invalidate()
	st, err := w.observe(ctx, desired, nil)
	if err != nil {
		return Result[WorkloadIdentityStatus]{Observed: st}, err
	}
	warnings, err := w.Preflight(ctx, desired, st, prior)
	res := Result[WorkloadIdentityStatus]{Observed: st, Warnings: warnings}
	if err != nil {
		return res, err
	}
	if err := w.write(ctx, prior, desired, st); err != nil {
		res.Partial = true
		if after, oerr := w.observe(ctx, desired, nil); oerr == nil {
			res.Observed = after
		}
		return res, err
	}
	res.Observed, err = w.observe(ctx, desired, nil)
	return res, err
}

// write writes the parts of the binding, in order.
func (w WorkloadIdentities) write(ctx context.Context, prior *spec.WorkloadIdentity, desired spec.WorkloadIdentity, st WorkloadIdentityStatus) error {
	// The KSA before the grant: a create cut off in between leaves a KSA
	// (or annotation) of the platform's, by which the next create knows the
	// grant as its own.
	if desired.UsesGSA() {
		if err := w.ensureGSA(ctx, desired, st); err != nil {
			return err
		}
	}
	if err := w.applyKSA(ctx, desired); err != nil {
		return err
	}
	if desired.UsesGSA() {
		if err := w.IAM.AddMember(ctx, iam.ServiceAccountResource(desired.GSA()), iam.WorkloadIdentityUser, desired.Member()); err != nil {
			return err
		}
	}
	if prior != nil && prior.UsesGSA() && prior.GSA() != desired.GSA() {
		if err := w.revoke(ctx, *prior); err != nil {
			return err
		}
		if prior.CreateGSA != nil {
			return w.IAM.DeleteServiceAccount(ctx, prior.GSA())
		}
	}
	return nil
}

func (w WorkloadIdentities) ensureGSA(ctx context.Context, s spec.WorkloadIdentity, st WorkloadIdentityStatus) error {
	c := s.CreateGSA
	switch {
	case c == nil:
		return nil
	case !st.GSAExists:
		_, err := w.IAM.CreateServiceAccount(ctx, s.Project, c.AccountID, c.DisplayName, c.StoredDescription())
		if status.Code(err) != codes.AlreadyExists {
			return err
		}
		// Someone created it since it was read, or this create was retried
		// after IAM had made it: it is the platform's only if marked.
		gsa, found, rerr := w.IAM.ServiceAccount(ctx, s.GSA())
		switch {
		case rerr != nil:
			return rerr
		case !found:
			return fmt.Errorf("IAM says Google service account %s already exists but does not return it (IAM is eventually consistent); "+
				"apply again in a minute: %w", s.GSA(), err)
		}
		if _, marked := spec.SplitGSADescription(gsa.GetDescription()); !marked {
			return &NotOwnedError{Kind: KindGSA, Name: s.GSA(), Detail: "it was created by someone else while this apply ran"}
		}
		st.GSA = gsa
		fallthrough
	case st.GSA.GetDisplayName() != c.DisplayName || st.GSA.GetDescription() != c.StoredDescription():
		if st.GSA.GetDisplayName() == c.DisplayName && st.GSA.GetDescription() == c.StoredDescription() {
			return nil
		}
		_, err := w.IAM.DescribeServiceAccount(ctx, st.GSA, c.DisplayName, c.StoredDescription())
		return err
	}
	return nil
}

// applyKSA server-side applies the parts of the KSA the platform owns: its
// annotation (GSA mode) and, when it created the KSA, its managed-by label.
// Ownership is forced: an out-of-band edit of the annotation was shown as
// drift in the plan that led here.
func (w WorkloadIdentities) applyKSA(ctx context.Context, s spec.WorkloadIdentity) error {
	ac := corev1ac.ServiceAccount(s.KSA, s.Namespace)
	if s.CreateKSA {
		ac.WithLabels(map[string]string{spec.ManagedByLabel: spec.ManagedBy})
	}
	if s.UsesGSA() {
		ac.WithAnnotations(map[string]string{spec.GSAAnnotation: s.GSA()})
	}
	if _, err := w.KSAs(s.Namespace).Apply(ctx, ac, metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true}); err != nil {
		return fmt.Errorf("apply Kubernetes service account %s/%s: %w", s.Namespace, s.KSA, err)
	}
	return nil
}

// revoke removes the binding's own member from its GSA; a GSA already gone
// holds no member.
func (w WorkloadIdentities) revoke(ctx context.Context, s spec.WorkloadIdentity) error {
	err := w.IAM.RemoveMember(ctx, iam.ServiceAccountResource(s.GSA()), iam.WorkloadIdentityUser, s.Member())
	if status.Code(err) == codes.NotFound {
		return nil
	}
	return err
}

// Delete removes only what the binding added: its member on the GSA (other
// members stay), the GSA if it created it, and the KSA if it created it, or
// else only its annotation, if it still names the binding's GSA.
func (w WorkloadIdentities) Delete(ctx context.Context, ref Ref, s spec.WorkloadIdentity) error {
	s.Namespace, s.KSA = ref.Namespace, ref.Name
	w.KSAList.Invalidate()
	defer w.KSAList.Invalidate()
	if s.UsesGSA() {
		if err := w.revoke(ctx, s); err != nil {
			return err
		}
	}
	if err := w.releaseKSA(ctx, s); err != nil {
		return err
	}
	if s.UsesGSA() && s.CreateGSA != nil {
		return w.IAM.DeleteServiceAccount(ctx, s.GSA())
	}
	return nil
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
	if s.CreateKSA && ksa.Labels[spec.ManagedByLabel] == spec.ManagedBy {
		err := api.Delete(ctx, s.KSA, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &ksa.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Kubernetes service account %s/%s: %w", s.Namespace, s.KSA, err)
		}
		return nil
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
