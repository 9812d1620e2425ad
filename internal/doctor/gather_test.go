package doctor

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	kueuefake "sigs.k8s.io/kueue/client-go/clientset/versioned/fake"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
)

// Gather writes nothing: every request it sends is a LIST, but one, the
// webhook probe, a create of ResourceFlavor ProbeFlavor that is a
// server-side dry run (DryRun: All), which the API server never stores.
func TestGatherOnlyListsAndDryRuns(t *testing.T) {
	t.Parallel()
	core := kubefake.NewClientset()
	kq := kueuefake.NewClientset()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList"})
	kc := &kube.Client{Host: "fake", Core: core, Kueue: kq, Dynamic: dyn}
	if _, err := Gather(context.Background(), Sources{Kube: kc}, Options{}); err != nil {
		t.Fatal(err)
	}
	probes := 0
	for _, a := range slices.Concat(core.Actions(), kq.Actions(), dyn.Actions()) {
		if a.GetVerb() == "list" {
			continue
		}
		c, ok := a.(k8stesting.CreateActionImpl)
		if ok && a.GetResource().Resource == "resourceflavors" && slices.Equal(c.CreateOptions.DryRun, []string{metav1.DryRunAll}) {
			probes++
			continue
		}
		t.Errorf("doctor sent %s %s (options %+v): it may only list, and dry-run its webhook probe", a.GetVerb(), a.GetResource(), a)
	}
	if probes != 1 {
		t.Errorf("%d dry-run webhook probes, want 1", probes)
	}
}

// An API server that refuses every read is not "unreachable": the error says
// the credentials were refused, and what to use instead.
func TestGatherRefused(t *testing.T) {
	t.Parallel()
	core := kubefake.NewClientset()
	kq := kueuefake.NewClientset()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList"})
	refuse := func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewUnauthorized("token expired")
	}
	core.PrependReactor("*", "*", refuse)
	kq.PrependReactor("*", "*", refuse)
	dyn.PrependReactor("*", "*", refuse)
	_, err := Gather(context.Background(), Sources{Kube: &kube.Client{Host: "https://k", Core: core, Kueue: kq, Dynamic: dyn}}, Options{})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "token expired") || !strings.Contains(err.Error(), "use credentials that may list") {
		t.Errorf("err = %v, want ErrRefused naming the cause and what to do", err)
	}
}

// The probe counts as answered when the API server refused the object for
// its own reasons (it exists, it is invalid, a webhook denied it); a webhook
// the API server could not call is not answered.
func TestGatherWebhookProbe(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "resourceflavors"}
	for name, c := range map[string]struct {
		err      error
		answered bool
	}{
		"stored":     {nil, true},
		"exists":     {apierrors.NewAlreadyExists(gr, ProbeFlavor), true},
		"invalid":    {apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "ResourceFlavor"}, ProbeFlavor, nil), true},
		"denied":     {apierrors.NewForbidden(gr, ProbeFlavor, errors.New(`admission webhook "vresourceflavor.kb.io" denied the request`)), true},
		"no RBAC":    {apierrors.NewForbidden(gr, ProbeFlavor, errors.New("User cannot create resource")), false},
		"not called": {apierrors.NewInternalError(errors.New(`failed calling webhook "mresourceflavor.kb.io": connection refused`)), false},
	} {
		kq := kueuefake.NewClientset()
		kq.PrependReactor("create", "resourceflavors", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, c.err })
		dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{crdGVR: "CustomResourceDefinitionList"})
		s, err := Gather(context.Background(), Sources{Kube: &kube.Client{Host: "fake", Core: kubefake.NewClientset(), Kueue: kq, Dynamic: dyn}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Webhook.ok() != c.answered {
			t.Errorf("%s: probe answered %v, want %v (err %v)", name, s.Webhook.ok(), c.answered, s.Webhook.Err)
		}
	}
}
