package reconcile

import (
	"errors"
	"testing"

	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// managedFields as the API server records them: kubectl annotated the KSA,
// then mlplatform (server-side apply) took the GSA annotation.
func ksaWritten(byMlplatform bool) *corev1.ServiceAccount {
	ksa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "vision",
		Annotations: map[string]string{spec.GSAAnnotation: "x@p.iam.gserviceaccount.com", "note": "hand-made"}}}
	ksa.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl-annotate", Operation: metav1.ManagedFieldsOperationUpdate,
		FieldsType: "FieldsV1", FieldsV1: fieldsV1(`{"f:metadata":{"f:annotations":{".":{},"f:note":{}}}}`)}}
	owner := "kubectl-annotate"
	if byMlplatform {
		owner = "mlplatform"
	}
	ksa.ManagedFields = append(ksa.ManagedFields, metav1.ManagedFieldsEntry{Manager: owner, Operation: metav1.ManagedFieldsOperationApply,
		FieldsType: "FieldsV1", FieldsV1: fieldsV1(`{"f:metadata":{"f:annotations":{"f:iam.gke.io/gcp-service-account":{}}}}`)})
	return ksa
}

func TestOwnsField(t *testing.T) {
	t.Parallel()
	if !ownsField(ksaWritten(true), "metadata", "annotations", spec.GSAAnnotation) {
		t.Error("the annotation mlplatform applied is not recognised as its own")
	}
	if ownsField(ksaWritten(false), "metadata", "annotations", spec.GSAAnnotation) {
		t.Error("an annotation kubectl set is taken for mlplatform's")
	}
	if ownsField(ksaWritten(true), "metadata", "annotations", "note") {
		t.Error("kubectl's annotation is taken for mlplatform's")
	}
}

func TestNotOwnedError(t *testing.T) {
	t.Parallel()
	obj := &metav1.ObjectMeta{Labels: map[string]string{spec.ManagedByLabel: "Helm"}, ManagedFields: []metav1.ManagedFieldsEntry{
		{Manager: "helm"}, {Manager: "kueue", Subresource: "status"}, {Manager: "helm"}, {Manager: "kubectl-edit"}}}
	err := notOwned("ClusterQueue", Ref{Name: "team-a"}, obj)
	want := "ClusterQueue team-a already exists and was not created by mlplatform (it is labelled app.kubernetes.io/managed-by=Helm; " +
		"it was written by helm, kubectl-edit); it was left unchanged"
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("message (-want +got):\n%s", diff)
	}
	if !errors.Is(err, ErrNotOwned) {
		t.Error("not ErrNotOwned")
	}
	if !Created(&metav1.ObjectMeta{Labels: map[string]string{spec.ManagedByLabel: spec.ManagedBy}}) || Created(obj) {
		t.Error("Created reads the marker wrong")
	}
}

// checkOwnership decides, for each part of a binding that exists when it is
// written, whether it is this resource instance's (recorded in its ledger,
// or created by it before identities were recorded) or not (refused,
// naming the part), whoever made it.
func TestWorkloadIdentityCheckCreate(t *testing.T) {
	t.Parallel()
	created := spec.WorkloadIdentity{Project: "p", Namespace: "vision", KSA: "trainer", CreateKSA: true, Mode: spec.ModeGoogleServiceAccount,
		CreateGSA: &spec.GoogleServiceAccount{AccountID: "trainer"}}
	existing := spec.WorkloadIdentity{Project: "p", Namespace: "vision", KSA: "trainer", CreateKSA: true, Mode: spec.ModeGoogleServiceAccount,
		GSAEmail: "shared@p.iam.gserviceaccount.com"}
	adopted := existing
	adopted.CreateKSA = false
	marked := &adminpb.ServiceAccount{Description: "Trains " + spec.GSAMarker}
	adoptedBefore := existing
	adoptedBefore.CreateKSA = false
	createdBefore := created
	cases := map[string]struct {
		spec     spec.WorkloadIdentity
		st       WorkloadIdentityStatus
		prior    *spec.WorkloadIdentity // nil: a create
		wantKind string                 // "" = proceed
	}{
		// Updates: only what the configuration newly claims is checked.
		"update: create_kubernetes_service_account turned on for a KSA someone made": {spec: existing, prior: &adoptedBefore,
			st:       WorkloadIdentityStatus{KSAExists: true, Annotation: "shared@p.iam.gserviceaccount.com", AnnotationOwned: true, GSAExists: true, MemberGranted: true},
			wantKind: KindKSA},
		"update: create_google_service_account naming an account someone made": {spec: created, prior: &existing,
			st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, GSAExists: true, GSA: &adminpb.ServiceAccount{}}, wantKind: KindGSA},
		"update: the GSA the binding created before, unmarked (an earlier version)": {spec: created, prior: &createdBefore,
			st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, GSAExists: true, GSA: &adminpb.ServiceAccount{}, MemberGranted: true}},
		"update: a KSA created before, still marked": {spec: existing, prior: &existing,
			st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, GSAExists: true, MemberGranted: true}},
		"update: a KSA it created, made again by someone": {spec: existing, prior: &existing,
			st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, KSAStanding: Replaced, GSAExists: true, MemberGranted: true}, wantKind: KindKSA},
		"update: a GSA it created, made again by someone": {spec: created, prior: &createdBefore,
			st: WorkloadIdentityStatus{KSAExists: true, KSAStanding: Recorded, GSAExists: true, GSA: marked, GSAMarked: true, GSAStanding: Replaced}, wantKind: KindGSA},
		"nothing exists": {spec: created},
		"all mlplatform's, not recorded (another resource's, or an apply whose state was lost)": {spec: created,
			st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, GSAExists: true, GSA: marked, GSAMarked: true, MemberGranted: true}, wantKind: KindKSA},
		"a GSA of mlplatform's, not recorded": {spec: created, st: WorkloadIdentityStatus{GSAExists: true, GSA: marked, GSAMarked: true}, wantKind: KindGSA},
		"all this create's own (recorded)": {spec: created, st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, KSAStanding: Recorded,
			GSAExists: true, GSA: marked, GSAMarked: true, GSAStanding: Recorded, MemberGranted: true}},
		"a KSA someone made":                   {spec: created, st: WorkloadIdentityStatus{KSAExists: true}, wantKind: KindKSA},
		"a GSA someone made":                   {spec: created, st: WorkloadIdentityStatus{GSAExists: true, GSA: &adminpb.ServiceAccount{}}, wantKind: KindGSA},
		"a grant on an existing GSA, KSA ours": {spec: existing, st: WorkloadIdentityStatus{KSAExists: true, KSAManaged: true, KSAStanding: Recorded, GSAExists: true, MemberGranted: true}},
		"a grant someone made":                 {spec: existing, st: WorkloadIdentityStatus{GSAExists: true, MemberGranted: true}, wantKind: KindGrant},
		"an adopted KSA, no annotation":        {spec: adopted, st: WorkloadIdentityStatus{KSAExists: true, GSAExists: true}},
		"an adopted KSA, annotated by another mlplatform binding": {spec: adopted,
			st: WorkloadIdentityStatus{KSAExists: true, Annotation: "shared@p.iam.gserviceaccount.com", AnnotationOwned: true, GSAExists: true, MemberGranted: true}, wantKind: KindAnnotation},
		"an adopted KSA, their annotation": {spec: adopted, st: WorkloadIdentityStatus{KSAExists: true, Annotation: "x@p.iam.gserviceaccount.com", GSAExists: true}, wantKind: KindAnnotation},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			err := WorkloadIdentities{}.checkOwnership(tc.spec, tc.st, tc.prior)
			var no *NotOwnedError
			switch {
			case tc.wantKind == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.wantKind != "" && (!errors.As(err, &no) || no.Kind != tc.wantKind):
				t.Fatalf("err = %v, want a NotOwnedError for the %s", err, tc.wantKind)
			}
		})
	}
}

func fieldsV1(raw string) *metav1.FieldsV1 {
	f := &metav1.FieldsV1{}
	f.SetRawString(raw)
	return f
}
