package reconcile

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestTrainingNetworkPoliciesLifecycle(t *testing.T) {
	ctx := context.Background()
	const ns = "team-vision"
	foreign := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team-own-policy"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	// an object with a platform name but without the label is not the platform's
	unlabelled := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: netpol.AllowPublicHTTPS},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
	client := fake.NewClientset(foreign)
	r := TrainingNetworkPolicies{API: client.NetworkingV1().NetworkPolicies}
	ref := Ref{Namespace: ns}
	names := func() []string {
		list, err := client.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range list.Items {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}

	if _, found, err := r.Observe(ctx, ref); err != nil || found {
		t.Fatalf("Observe before create: found=%v err=%v", found, err)
	}
	desired := spec.DefaultTrainingNetworkPolicy(ns)
	desired.PublicHTTPSEgress = true
	got, err := r.Apply(ctx, ref, desired)
	if err != nil {
		t.Fatal(err)
	}
	want := desired
	want.Rendered = netpol.Hashes(netpol.Render(desired))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Apply (-want +got):\n%s", d)
	}

	// public HTTPS and google APIs off: their objects go, the foreign one stays
	desired.PublicHTTPSEgress, desired.GoogleAPIs = false, "none"
	if _, err := r.Apply(ctx, ref, desired); err != nil {
		t.Fatal(err)
	}
	wantNames := []string{netpol.AllowDNS, netpol.AllowMetadata, netpol.AllowSameNamespace, netpol.DefaultDeny, "team-own-policy"}
	if d := cmp.Diff(wantNames, names()); d != "" {
		t.Errorf("objects after turning purposes off (-want +got):\n%s", d)
	}

	// a deleted object reads as its purpose off
	if err := client.NetworkingV1().NetworkPolicies(ns).Delete(ctx, netpol.AllowDNS, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r.Observe(ctx, ref); got.DNS {
		t.Error("dns reads on after its object was deleted")
	}
	if _, err := client.NetworkingV1().NetworkPolicies(ns).Create(ctx, unlabelled, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := r.Observe(ctx, ref); got.PublicHTTPSEgress {
		t.Error("an unlabelled object with a platform name reads as the platform's")
	}
	desired.PublicHTTPSEgress = true
	if _, err := r.Apply(ctx, ref, desired); err == nil {
		t.Error("Apply took over an unlabelled object with a platform name")
	}

	if err := r.Delete(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{netpol.AllowPublicHTTPS, "team-own-policy"}, names()); d != "" {
		t.Errorf("objects after Delete (-want +got):\n%s", d)
	}
}
