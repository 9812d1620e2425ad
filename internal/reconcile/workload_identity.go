package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

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
	// KSAStanding and GSAStanding say what the KSA and the GSA a binding
	// creates are to this resource instance (its Ledger), and KSARecorded
	// and GSARecorded what it recorded (identity.go). A KSA or GSA the
	// binding does not create is Unrecorded.
	KSAStanding, GSAStanding Standing
	KSARecorded, GSARecorded string
	// KSACreated is when the KSA was created.
	KSACreated time.Time
}

// Kinds of the ledger keys of a binding's parts.
const ksaKind = KindKSA

func gsaKey(email string) string { return KindGSA + " " + email }

var _ Reconciler[Ref, spec.WorkloadIdentity, WorkloadIdentityStatus] = WorkloadIdentities{}

// Observe reads the parts of the binding of the Kubernetes service account
// at ref (Namespace, Name), as hint configures it (which Google service
// account). A missing part is not an error, and not absence: the binding is
// always found, and Diff names what is missing. It is the read path (a
// refresh), so the KSA may come from KSAList.
//
// A KSA or GSA the binding creates that is not the one this resource
// instance recorded (deleted and made again by someone) reads as missing,
// and the ledger notes it; where nothing is recorded (state of an earlier
// release, an import), the one there is recorded.
func (w WorkloadIdentities) Observe(ctx context.Context, ref Ref, hint spec.WorkloadIdentity) (WorkloadIdentityStatus, bool, error) {
	hint.Namespace, hint.KSA = ref.Namespace, ref.Name
	st, ksa, err := w.observe(ctx, hint, w.KSAList)
	if err != nil {
		return st, false, err
	}
	l := ledgerOf(ctx)
	if ksa != nil && hint.CreateKSA {
		if mine, _, _ := l.claimKube(ksaKind, ksaRef(hint), ksa, true, false); !mine {
			st = WorkloadIdentityStatus{GSAExists: st.GSAExists, GSA: st.GSA, GSAMarked: st.GSAMarked, GSAStanding: st.GSAStanding, GSARecorded: st.GSARecorded}
		}
	}
	if st.GSAExists && hint.UsesGSA() && hint.CreateGSA != nil {
		switch st.GSAStanding {
		case Unrecorded:
			l.record(gsaKey(hint.GSA()), st.GSA.GetUniqueId())
		case Replaced:
			l.note(Foreign{Kind: KindGSA, Name: hint.GSA(), Recorded: st.GSARecorded, Found: st.GSA.GetUniqueId(), Marked: st.GSAMarked})
			st.GSAExists, st.GSA, st.GSAMarked, st.MemberGranted = false, nil, false, false
		}
	}
	return st, true, nil
}

func ksaRef(s spec.WorkloadIdentity) Ref { return Ref{Namespace: s.Namespace, Name: s.KSA} }

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

// observe reads the parts of the binding, and what the KSA and GSA it
// creates are to this resource instance (nothing is recorded); ksa is the
// KSA as read, nil when there is none.
func (w WorkloadIdentities) observe(ctx context.Context, s spec.WorkloadIdentity, list *kube.ListCache[*corev1.ServiceAccount]) (WorkloadIdentityStatus, *corev1.ServiceAccount, error) {
	var st WorkloadIdentityStatus
	l := ledgerOf(ctx)
	ksa, listed, err := list.Lookup(ctx, s.Namespace, s.KSA)
	if err != nil || !listed {
		ksa, err = w.KSAs(s.Namespace).Get(ctx, s.KSA, metav1.GetOptions{})
	}
	switch {
	case apierrors.IsNotFound(err):
		ksa = nil
	case err != nil:
		return st, nil, fmt.Errorf("read Kubernetes service account %s/%s: %w", s.Namespace, s.KSA, err)
	default:
		st.KSAExists, st.KSAUID, st.KSACreated = true, string(ksa.UID), ksa.CreationTimestamp.Time
		st.KSAManaged = ksa.Labels[spec.ManagedByLabel] == spec.ManagedBy
		st.Annotation = ksa.Annotations[spec.GSAAnnotation]
		st.AnnotationOwned = ownsField(ksa, "metadata", "annotations", spec.GSAAnnotation)
		if s.CreateKSA {
			st.KSAStanding, st.KSARecorded = l.kubeStanding(ksaKind, ksaRef(s), ksa)
		}
	}
	if !s.UsesGSA() {
		return st, ksa, nil
	}
	gsa := s.GSA()
	st.GSA, st.GSAExists, err = w.IAM.ServiceAccount(ctx, gsa)
	if err != nil || !st.GSAExists {
		return st, ksa, err
	}
	_, st.GSAMarked = spec.SplitGSADescription(st.GSA.GetDescription())
	if s.CreateGSA != nil {
		id := st.GSA.GetUniqueId()
		st.GSAStanding, st.GSARecorded = l.standing(gsaKey(gsa), func(rec string) bool { return rec == id })
	}
	st.MemberGranted, err = w.IAM.HasMember(ctx, iam.ServiceAccountResource(gsa), iam.WorkloadIdentityUser, s.Member())
	return st, ksa, err
}

// apply makes the binding match desired, after Preflight passes. prior is
// nil on create. An error after a write is Partial: what is there is
// recorded, so the next run cleans up or completes it.
func (w WorkloadIdentities) apply(ctx context.Context, prior *spec.WorkloadIdentity, desired spec.WorkloadIdentity) (Result[WorkloadIdentityStatus], error) {
	w.KSAList.Invalidate()
	defer w.KSAList.Invalidate()
	st, _, err := w.observe(ctx, desired, nil)
	if err != nil {
		return Result[WorkloadIdentityStatus]{Observed: st}, err
	}
	warnings, err := w.Preflight(ctx, desired, st, prior)
	res := Result[WorkloadIdentityStatus]{Observed: st, Warnings: warnings}
	if err != nil {
		return res, err
	}
	w.record(ctx, desired, st)
	if err := w.write(ctx, prior, desired, st); err != nil {
		res.Partial = true
		if after, _, oerr := w.observe(ctx, desired, nil); oerr == nil {
			res.Observed = after
		}
		return res, err
	}
	res.Observed, _, err = w.observe(ctx, desired, nil)
	return res, err
}

// record records, once Preflight has found them the binding's own, the KSA
// and GSA it creates that exist and that the ledger does not hold yet (they
// were created by an earlier release, which recorded nothing).
func (w WorkloadIdentities) record(ctx context.Context, s spec.WorkloadIdentity, st WorkloadIdentityStatus) {
	l := ledgerOf(ctx)
	if s.CreateKSA && st.KSAExists && st.KSAStanding == Unrecorded {
		l.record(kubeKey(ksaKind, ksaRef(s)), st.KSAUID)
	}
	if s.UsesGSA() && s.CreateGSA != nil && st.GSAExists && st.GSAStanding == Unrecorded {
		l.record(gsaKey(s.GSA()), st.GSA.GetUniqueId())
	}
}

// write writes the parts of the binding, in order.
func (w WorkloadIdentities) write(ctx context.Context, prior *spec.WorkloadIdentity, desired spec.WorkloadIdentity, st WorkloadIdentityStatus) error {
	// The GSA, then the KSA, then the grant: each recorded as it is made, so
	// a write cut off in between is recorded as it is (Result.Partial) and
	// the next apply completes it.
	if desired.UsesGSA() {
		if err := w.ensureGSA(ctx, desired, st); err != nil {
			return err
		}
	}
	if err := w.applyKSA(ctx, desired, st); err != nil {
		return err
	}
	if desired.UsesGSA() {
		if err := w.IAM.AddMember(ctx, iam.ServiceAccountResource(desired.GSA()), iam.WorkloadIdentityUser, desired.Member()); err != nil {
			return err
		}
	}
	if prior != nil && prior.UsesGSA() && prior.GSA() != desired.GSA() {
		id, ours := "", true
		if prior.CreateGSA != nil {
			var err error
			if id, ours, err = w.createdGSA(ctx, *prior); err != nil {
				return err
			}
		}
		if !ours {
			return nil // gone, or someone else's now: nothing of the binding's is on it
		}
		if err := w.revoke(ctx, *prior); err != nil {
			return err
		}
		if id != "" {
			if err := w.IAM.DeleteServiceAccount(ctx, id); err != nil {
				return err
			}
			ledgerOf(ctx).forget(gsaKey(prior.GSA()))
		}
	}
	return nil
}

func (w WorkloadIdentities) ensureGSA(ctx context.Context, s spec.WorkloadIdentity, st WorkloadIdentityStatus) error {
	c := s.CreateGSA
	l := ledgerOf(ctx)
	switch {
	case c == nil:
		return nil
	case !st.GSAExists:
		gsa, err := w.IAM.CreateServiceAccount(ctx, s.Project, c.AccountID, c.DisplayName, c.StoredDescription())
		if err == nil {
			l.record(gsaKey(s.GSA()), gsa.GetUniqueId())
			return nil
		}
		if status.Code(err) != codes.AlreadyExists {
			return err
		}
		// Someone created it since it was read, or this create was retried
		// after IAM had made it (the first attempt's answer was lost).
		gsa, found, rerr := w.IAM.ServiceAccount(ctx, s.GSA())
		switch {
		case rerr != nil:
			return rerr
		case !found:
			return fmt.Errorf("IAM says Google service account %s already exists but does not return it (IAM is eventually consistent); "+
				"apply again in a minute: %w", s.GSA(), err)
		}
		id := gsa.GetUniqueId()
		if st, _ := l.standing(gsaKey(s.GSA()), func(rec string) bool { return rec == id }); st != Recorded {
			// IAM gives an account nothing a create could set to know it
			// by, but its description. An account that IAM may have made for
			// this very create (an attempt answered UNAVAILABLE, then retried)
			// and that holds exactly what it sent is taken as its own; the
			// one case left open is another create of the same account with
			// the same description, in the seconds of that retry.
			_, marked := spec.SplitGSADescription(gsa.GetDescription())
			if !errors.Is(err, iam.ErrRetriedCreate) || gsa.GetDescription() != c.StoredDescription() || gsa.GetDisplayName() != c.DisplayName {
				return &NotOwnedError{Kind: KindGSA, Name: s.GSA(), Marked: marked, Detail: "it was created by someone else while this apply ran"}
			}
			l.record(gsaKey(s.GSA()), id)
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

// applyKSA writes the parts of the KSA the platform owns: its annotation
// (GSA mode) and, when it creates the KSA, its managed-by label. A KSA it
// creates is created with a POST (which fails where one exists: made since
// it was read, so not this binding's) and recorded; an existing one is
// server-side applied, naming its UID (a KSA made in its place meanwhile is
// not written). Ownership is forced: an out-of-band edit of the annotation
// was shown as drift in the plan that led here.
func (w WorkloadIdentities) applyKSA(ctx context.Context, s spec.WorkloadIdentity, st WorkloadIdentityStatus) error {
	ac := corev1ac.ServiceAccount(s.KSA, s.Namespace)
	if s.CreateKSA {
		ac.WithLabels(map[string]string{spec.ManagedByLabel: spec.ManagedBy})
	}
	if s.UsesGSA() {
		ac.WithAnnotations(map[string]string{spec.GSAAnnotation: s.GSA()})
	}
	api := w.KSAs(s.Namespace)
	if !st.KSAExists && s.CreateKSA {
		_, err := createPart(ctx, api, KindKSA, ksaRef(s), kubeKey(ksaKind, ksaRef(s)), ac)
		return err
	}
	if st.KSAExists {
		ac.WithUID(types.UID(st.KSAUID))
	}
	if _, err := api.Apply(ctx, ac, metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true}); err != nil {
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
