package reconcile

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// A Workload Identity binding's checks before any write: the cluster's
// workload pool, the parts that must exist, and the parts it must not come
// to own (ownership.go).

// ErrNoWorkloadPool is returned (wrapped) when the cluster has no Workload
// Identity pool, so no binding can work.
var ErrNoWorkloadPool = errors.New("no Workload Identity pool")

// PreflightCheck names a check a binding makes before any write.
type PreflightCheck int

const (
	// PreflightNoWorkloadPool: the cluster has no Workload Identity pool.
	PreflightNoWorkloadPool PreflightCheck = iota + 1
	// PreflightOtherWorkloadPool: the cluster's pool (Have) is not the one
	// the binding's project names.
	PreflightOtherWorkloadPool
	// PreflightNoKSA: the Kubernetes service account to bind does not exist
	// and the binding is not to create it.
	PreflightNoKSA
	// PreflightNoGSA: the existing Google service account to bind does not
	// exist (or cannot be read).
	PreflightNoGSA
)

// PreflightError is a binding's pre-flight check that failed: nothing was
// written. It wraps ErrPreflight (and ErrNoWorkloadPool for that check).
type PreflightError struct {
	Check   PreflightCheck
	Cluster string // projects/P/locations/L/clusters/C
	Binding spec.WorkloadIdentity
	Have    string // what the cluster has, where the check compares
}

// ClusterShortName is the cluster's own name (C).
func (e *PreflightError) ClusterShortName() string {
	return e.Cluster[strings.LastIndex(e.Cluster, "/")+1:]
}

func (e *PreflightError) Error() string {
	s := e.Binding
	switch e.Check {
	case PreflightNoWorkloadPool:
		return fmt.Sprintf("cluster %s has no Workload Identity pool", e.Cluster)
	case PreflightOtherWorkloadPool:
		return fmt.Sprintf("cluster %s has workload pool %s, but this binding names %s", e.Cluster, e.Have, s.WorkloadPool())
	case PreflightNoKSA:
		return fmt.Sprintf("Kubernetes service account %s/%s does not exist", s.Namespace, s.KSA)
	case PreflightNoGSA:
		return fmt.Sprintf("Google service account %s does not exist (or the provider's credentials may not read it)", s.GSA())
	}
	return "pre-flight check failed"
}

func (e *PreflightError) Unwrap() []error {
	if e.Check == PreflightNoWorkloadPool {
		return []error{ErrPreflight, ErrNoWorkloadPool}
	}
	return []error{ErrPreflight}
}

// Preflight checks, before any write, that the binding can work: the
// cluster has the workload pool the member names, the Kubernetes service
// account exists when it is adopted (and is not someone else's when it is
// to be created), and an existing GSA exists, and that no part it would come
// to own is someone else's (checkOwnership). It returns warnings about node
// pools whose pods cannot get tokens. prior is the binding as last applied
// (nil on create).
func (w WorkloadIdentities) Preflight(ctx context.Context, s spec.WorkloadIdentity, st WorkloadIdentityStatus, prior *spec.WorkloadIdentity) (warnings []string, err error) {
	cl, err := w.GKE.WorkloadIdentity(ctx, w.Cluster)
	if err != nil {
		return nil, err
	}
	fail := func(check PreflightCheck, have string) error {
		return &PreflightError{Check: check, Cluster: w.Cluster, Binding: s, Have: have}
	}
	switch {
	case cl.Pool == "":
		return nil, fail(PreflightNoWorkloadPool, "")
	case cl.Pool != s.WorkloadPool():
		return nil, fail(PreflightOtherWorkloadPool, cl.Pool)
	}
	if len(cl.PoolsWithoutMetadataServer) > 0 {
		warnings = append(warnings, fmt.Sprintf("node pools %s of cluster %s do not run the GKE metadata server, so pods scheduled there get "+
			"no Workload Identity token for %s/%s. Enable it per pool (gcloud container node-pools update POOL --workload-metadata=GKE_METADATA) "+
			"or keep these pods off those pools.", strings.Join(cl.PoolsWithoutMetadataServer, ", "), w.Cluster, s.Namespace, s.KSA))
	}
	if !s.CreateKSA && !st.KSAExists {
		return warnings, fail(PreflightNoKSA, "")
	}
	if s.UsesGSA() && s.CreateGSA == nil && !st.GSAExists {
		return warnings, fail(PreflightNoGSA, "")
	}
	if err := w.checkOwnership(s, st, prior); err != nil {
		return warnings, err
	}
	return warnings, nil
}

// checkOwnership fails a write that would write over, and come to own, a
// part of a binding that is not this resource instance's (a *NotOwnedError),
// whoever made it (another mlplatform resource's part is not this one's):
//   - on create, any part that exists: the KSA or GSA it would create (this
//     create recorded neither), an annotation on the KSA it would take, a
//     grant someone made before the binding existed;
//   - on update, a KSA or GSA it creates that is not the one it recorded (it
//     was deleted and made again by someone), and the KSA or GSA the
//     configuration newly says to create (create_kubernetes_service_account
//     turned on, create_google_service_account naming an account the
//     binding did not create): owning it would make destroy delete it. One
//     the binding created before and did not record (a release before
//     identities) stays its own.
func (w WorkloadIdentities) checkOwnership(s spec.WorkloadIdentity, st WorkloadIdentityStatus, prior *spec.WorkloadIdentity) error {
	ksa := s.Namespace + "/" + s.KSA
	creating := prior == nil
	ksaMine := st.KSAStanding == Recorded || (!creating && prior.CreateKSA && st.KSAStanding == Unrecorded)
	switch {
	case s.CreateKSA && st.KSAExists && !ksaMine:
		e := &NotOwnedError{Kind: KindKSA, Name: ksa, Marked: st.KSAManaged}
		if st.KSAManaged {
			e.Created = st.KSACreated
		}
		if st.KSAStanding == Replaced {
			e.Replaced, e.Found = "UID "+st.KSARecorded, "UID "+st.KSAUID
		}
		return e
	case creating && !s.CreateKSA && st.Annotation != "":
		return &NotOwnedError{Kind: KindAnnotation, Name: ksa, Detail: fmt.Sprintf("%s names %s", spec.GSAAnnotation, st.Annotation)}
	}
	if !s.UsesGSA() {
		return nil
	}
	createdBefore := !creating && prior.CreateGSA != nil && prior.GSA() == s.GSA()
	gsaMine := st.GSAExists && (st.GSAStanding == Recorded || (st.GSAStanding == Unrecorded && createdBefore))
	switch {
	case s.CreateGSA != nil && st.GSAExists && !gsaMine:
		e := &NotOwnedError{Kind: KindGSA, Name: s.GSA(), Marked: st.GSAMarked}
		switch {
		case st.GSAStanding == Replaced:
			e.Replaced, e.Found = "uniqueId "+st.GSARecorded, "uniqueId "+st.GSA.GetUniqueId()
		case !st.GSAMarked:
			e.Detail = fmt.Sprintf("its description does not end with %q", spec.GSAMarker)
		}
		return e
	case creating && st.MemberGranted && !gsaMine && !ksaMine:
		return &NotOwnedError{Kind: KindGrant, Name: fmt.Sprintf("%s for %s on %s", iam.WorkloadIdentityUser, s.Member(), s.GSA()),
			Detail: "someone granted it before this binding existed"}
	}
	return nil
}
