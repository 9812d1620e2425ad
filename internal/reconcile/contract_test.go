package reconcile

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// A binding's Diff names each part that is missing or differs.
func TestWorkloadIdentityDiff(t *testing.T) {
	t.Parallel()
	created := spec.WorkloadIdentity{Project: "ml-prod", Namespace: "vision", KSA: "trainer", Mode: spec.ModeGoogleServiceAccount,
		CreateGSA: &spec.GoogleServiceAccount{AccountID: "vision-trainer", DisplayName: "Vision trainer"}}
	gsa := &adminpb.ServiceAccount{Email: created.GSA(), DisplayName: "Vision trainer", Description: created.CreateGSA.StoredDescription()}
	inSync := WorkloadIdentityStatus{KSAExists: true, Annotation: created.GSA(), GSAExists: true, GSA: gsa, MemberGranted: true}
	direct := spec.WorkloadIdentity{Project: "ml-prod", ProjectNumber: "123456789012", Namespace: "vision", KSA: "trainer", Mode: spec.ModeDirect}
	cases := map[string]struct {
		desired spec.WorkloadIdentity
		st      func(WorkloadIdentityStatus) WorkloadIdentityStatus
		want    []string
	}{
		"in sync":  {created, func(s WorkloadIdentityStatus) WorkloadIdentityStatus { return s }, nil},
		"KSA gone": {created, func(s WorkloadIdentityStatus) WorkloadIdentityStatus { s.KSAExists, s.Annotation = false, ""; return s }, []string{"kubernetes_service_account", "annotation"}},
		"annotation moved": {created, func(s WorkloadIdentityStatus) WorkloadIdentityStatus {
			s.Annotation = "other@x.iam.gserviceaccount.com"
			return s
		}, []string{"annotation"}},
		"GSA gone": {created, func(s WorkloadIdentityStatus) WorkloadIdentityStatus { s.GSAExists, s.GSA = false, nil; return s }, []string{"google_service_account"}},
		"GSA renamed": {created, func(s WorkloadIdentityStatus) WorkloadIdentityStatus {
			s.GSA = &adminpb.ServiceAccount{DisplayName: "by hand", Description: gsa.Description}
			return s
		}, []string{"create_google_service_account"}},
		"member revoked": {created, func(s WorkloadIdentityStatus) WorkloadIdentityStatus { s.MemberGranted = false; return s }, []string{"member"}},
		"direct in sync": {direct, func(WorkloadIdentityStatus) WorkloadIdentityStatus { return WorkloadIdentityStatus{KSAExists: true} }, nil},
		"direct, KSA gone": {direct, func(WorkloadIdentityStatus) WorkloadIdentityStatus { return WorkloadIdentityStatus{} },
			[]string{"kubernetes_service_account"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, WorkloadIdentities{}.Diff(tc.desired, tc.st(inSync))); diff != "" {
				t.Errorf("Diff (-want +got):\n%s", diff)
			}
		})
	}
}

// The network policies' Diff names the objects whose content differs from
// what the spec renders, and those it no longer renders.
func TestTrainingNetworkPolicyDiff(t *testing.T) {
	t.Parallel()
	desired := spec.DefaultTrainingNetworkPolicy("vision")
	actual := desired
	actual.Rendered = netpol.Hashes(netpol.Render(desired))
	if d := (TrainingNetworkPolicies{}).Diff(desired, actual); len(d) > 0 {
		t.Errorf("in sync: Diff = %v", d)
	}
	actual.Rendered[netpol.AllowDNS] = "edited"
	actual.Rendered[netpol.AllowPublicHTTPS] = "left over"
	if diff := cmp.Diff([]string{netpol.AllowDNS, netpol.AllowPublicHTTPS}, (TrainingNetworkPolicies{}).Diff(desired, actual)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

// A queue held by its stop policy is not waited for; one that is not held
// is, and the timeout says what the controller reported, in plain words.
func TestHeldQueuesAreNotAwaited(t *testing.T) {
	t.Parallel()
	mu, log := &sync.Mutex{}, &[]string{}
	objs := map[string]*kueuev1beta2.ClusterQueue{"team-a": {ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}}
	api := fakeAPI[*kueuev1beta2.ClusterQueue, *kueueac.ClusterQueueApplyConfiguration]{
		kind: "ClusterQueue", mu: mu, log: log, objs: objs, new: func() *kueuev1beta2.ClusterQueue { return &kueuev1beta2.ClusterQueue{} }}
	queues := ClusterQueues{Kind: "ClusterQueue", Build: kueue.ClusterQueue, Read: kueue.ClusterQueueSpec, DiffSpec: DiffClusterQueue, Poll: time.Millisecond,
		API: func(string) ObjectAPI[*kueuev1beta2.ClusterQueue, *kueueac.ClusterQueueApplyConfiguration] {
			return api
		}}
	withQueueReadiness(&queues)
	ref := Ref{Name: "team-a"}
	for _, policy := range []string{"Hold", "HoldAndDrain"} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		if err := queues.WaitReady(ctx, ref, spec.ClusterQueue{Name: "team-a", StopPolicy: policy}); err != nil {
			t.Errorf("stop_policy %s: WaitReady = %v, want nil at once (a held queue never becomes active)", policy, err)
		}
		cancel()
	}
	for _, policy := range []string{"", "None"} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		err := queues.WaitReady(ctx, ref, spec.ClusterQueue{Name: "team-a", StopPolicy: policy})
		cancel()
		var notReady *NotReadyError
		if !errors.As(err, &notReady) || notReady.Last.Reason != "NoStatus" || notReady.Why == "" {
			t.Errorf("stop_policy %q: WaitReady = %v, want a NotReadyError explaining NoStatus", policy, err)
		}
	}
}
