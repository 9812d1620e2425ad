package resources_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The reconcilers below the resources, against the real API server, with
// list reads on as in the provider.

func realKube(t *testing.T) *kube.Client {
	t.Helper()
	c, err := kube.New(acctest.Env(t).REST, "reconcile-test")
	if err != nil {
		t.Fatal(err)
	}
	return c.EnableListReads()
}

// A training network policy owns only the platform's labelled objects: a
// purpose turned off deletes its object, a foreign policy stays, a deleted
// object reads as its purpose off, an unlabelled object with a platform name
// is neither read as the platform's nor taken over, and Delete leaves both.
func TestAccTrainingNetworkPoliciesReconcile(t *testing.T) {
	t.Parallel()
	c := realKube(t)
	core := c.Core
	ctx := context.Background()
	const ns = "reconcile-netpol"
	givenNamespace(t, ns)
	t.Cleanup(func() { _ = core.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	policies := core.NetworkingV1().NetworkPolicies(ns)
	foreign := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "team-own-policy"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	if _, err := policies.Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	names := func() []string {
		list, err := policies.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range list.Items {
			if p.DeletionTimestamp == nil {
				out = append(out, p.Name)
			}
		}
		slices.Sort(out)
		return out
	}
	// Each step as a provider process would see it: a fresh client (and list).
	r := func() reconcile.TrainingNetworkPolicies { return reconcile.NewTrainingNetworkPolicies(realKube(t)) }
	ref := reconcile.Ref{Namespace: ns}

	if _, found, err := r().Observe(ctx, ref, spec.TrainingNetworkPolicy{}); err != nil || found {
		t.Fatalf("Observe before create: found=%v err=%v", found, err)
	}
	desired := spec.DefaultTrainingNetworkPolicy(ns)
	desired.PublicHTTPSEgress = true
	res, err := r().Update(ctx, ref, desired, desired)
	if err != nil {
		t.Fatal(err)
	}
	got := res.Observed
	want := desired
	want.Rendered = netpol.Hashes(netpol.Render(desired))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Apply (-want +got):\n%s", d)
	}
	if got, found, err := r().Observe(ctx, ref, desired); err != nil || !found || cmp.Diff(want, got) != "" {
		t.Errorf("Observe after Apply: found=%v err=%v (-want +got):\n%s", found, err, cmp.Diff(want, got))
	}

	// Public HTTPS and Google APIs off: their objects go, the foreign one stays.
	desired.PublicHTTPSEgress, desired.GoogleAPIs = false, "none"
	if _, err := r().Update(ctx, ref, desired, desired); err != nil {
		t.Fatal(err)
	}
	wantNames := []string{netpol.AllowDNS, netpol.AllowMetadata, netpol.AllowSameNamespace, netpol.DefaultDeny, "team-own-policy"}
	if d := cmp.Diff(wantNames, names()); d != "" {
		t.Errorf("objects after turning purposes off (-want +got):\n%s", d)
	}

	// A deleted object reads as its purpose off.
	if err := policies.Delete(ctx, netpol.AllowDNS, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r().Observe(ctx, ref, desired); got.DNS {
		t.Error("dns reads on after its object was deleted")
	}
	unlabelled := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: netpol.AllowPublicHTTPS},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	if _, err := policies.Create(ctx, unlabelled, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r().Observe(ctx, ref, desired); got.PublicHTTPSEgress {
		t.Error("an unlabelled object with a platform name reads as the platform's")
	}
	desired.PublicHTTPSEgress = true
	if _, err := r().Update(ctx, ref, desired, desired); err == nil {
		t.Error("Apply took over an unlabelled object with a platform name")
	}

	if err := r().Delete(ctx, ref, desired); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{netpol.AllowPublicHTTPS, "team-own-policy"}, names()); d != "" {
		t.Errorf("objects after Delete (-want +got):\n%s", d)
	}
}

// An admission check is blocked by the ClusterQueues that list it, not by
// queues that list others or none, nor by one already being deleted.
func TestAccAdmissionCheckBlockers(t *testing.T) {
	t.Parallel()
	c := realKube(t)
	ctx := context.Background()
	queues := c.Kueue.KueueV1beta2().ClusterQueues()
	const check = "reconcile-blockers-dws"
	queue := func(name string, checks ...string) *kueuev1beta2.ClusterQueue {
		q := &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if len(checks) > 0 {
			q.Spec.AdmissionChecksStrategy = &kueuev1beta2.AdmissionChecksStrategy{}
			for _, c := range checks {
				q.Spec.AdmissionChecksStrategy.AdmissionChecks = append(q.Spec.AdmissionChecksStrategy.AdmissionChecks,
					kueuev1beta2.AdmissionCheckStrategyRule{Name: kueuev1beta2.AdmissionCheckReference(c)})
			}
		}
		return q
	}
	leaving := queue("reconcile-blockers-leaving", check)
	leaving.Finalizers = []string{"mlplatform.test/hold"} // stays Terminating until the cleanup lets go
	for _, q := range []*kueuev1beta2.ClusterQueue{
		queue("reconcile-blockers-vision", "reconcile-blockers-other", check), queue("reconcile-blockers-nlp", "reconcile-blockers-other"),
		queue("reconcile-blockers-plain"), leaving,
	} {
		if _, err := queues.Create(ctx, q, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx := context.Background()
			_, _ = queues.Patch(ctx, q.Name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
			_ = queues.Delete(ctx, q.Name, metav1.DeleteOptions{})
		})
	}
	if err := queues.Delete(ctx, leaving.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := reconcile.NewAdmissionChecks(c).Blockers(ctx, reconcile.Ref{Name: check})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ClusterQueue reconcile-blockers-vision"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
