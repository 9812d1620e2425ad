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
