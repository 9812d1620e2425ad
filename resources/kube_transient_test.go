package resources_test

import (
	"context"
	"errors"
	"testing"
	"time"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// crd is a minimal namespaced CRD of group acc-transient.example.com.
func crd(plural, kind string) *apiextv1.CustomResourceDefinition {
	return &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + ".acc-transient.example.com"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "acc-transient.example.com", Scope: apiextv1.NamespaceScoped,
			Names: apiextv1.CustomResourceDefinitionNames{Plural: plural, Kind: kind},
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object",
					XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
}

// A CRD that exists but is not established (here: its kind clashes with
// another CRD's, so the API server does not accept its names) is waited
// for, and the request goes through once it is established; a kind with no
// CRD at all fails at once; one that stays unestablished fails after the
// bound with ErrCRDNotEstablished, never as "not found" (a refresh would
// take that for an object deleted).
func TestAccKubeWaitsForCRDEstablished(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	ctx := context.Background()
	ext, err := apiextclient.NewForConfig(env.REST)
	if err != nil {
		t.Fatal(err)
	}
	crds := ext.ApiextensionsV1().CustomResourceDefinitions()
	first, clash := crd("widgets", "Widget"), crd("gadgets", "Widget")
	for _, c := range []*apiextv1.CustomResourceDefinition{first, clash} {
		if _, err := crds.Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = crds.Delete(context.Background(), c.Name, metav1.DeleteOptions{}) })
		if c == first { // the first takes the kind; let it be established before the clash
			deadline := time.Now().Add(time.Minute)
			for established := false; !established; time.Sleep(50 * time.Millisecond) {
				got, err := crds.Get(ctx, c.Name, metav1.GetOptions{})
				if err != nil || time.Now().After(deadline) {
					t.Fatalf("CRD %s not established (err=%v)", c.Name, err)
				}
				for _, cond := range got.Status.Conditions {
					established = established || (cond.Type == apiextv1.Established && cond.Status == apiextv1.ConditionTrue)
				}
			}
		}
	}
	client := func(bound time.Duration) *kube.Client {
		c, err := kube.New(env.REST, "acc-transient", kube.WithRetry(retry.Policy{Bound: bound, Base: 100 * time.Millisecond, Max: time.Second}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	gvr := func(plural string) schema.GroupVersionResource {
		return schema.GroupVersionResource{Group: "acc-transient.example.com", Version: "v1", Resource: plural}
	}

	t.Run("no CRD at all fails at once", func(t *testing.T) {
		start := time.Now()
		_, err := client(time.Minute).Dynamic.Resource(gvr("nothings")).Namespace("default").List(ctx, metav1.ListOptions{})
		if !apierrors.IsNotFound(err) || time.Since(start) > 5*time.Second {
			t.Errorf("err = %v after %s, want NotFound at once", err, time.Since(start))
		}
	})
	t.Run("unestablished past the bound", func(t *testing.T) {
		start := time.Now()
		_, err := client(time.Second).Dynamic.Resource(gvr("gadgets")).Namespace("default").List(ctx, metav1.ListOptions{})
		var gave *retry.Error
		if !errors.As(err, &gave) || !errors.Is(err, kube.ErrCRDNotEstablished) || apierrors.IsNotFound(err) {
			t.Fatalf("err = %v, want a *retry.Error around ErrCRDNotEstablished, and not NotFound", err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("gave up after %s with a 1 s bound", d)
		}
	})
	t.Run("waited for until established", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			_, err := client(time.Minute).Dynamic.Resource(gvr("gadgets")).Namespace("default").List(ctx, metav1.ListOptions{})
			done <- err
		}()
		time.Sleep(time.Second)
		select {
		case err := <-done:
			t.Fatalf("the list returned before the CRD was established: %v", err)
		default:
		}
		if err := crds.Delete(ctx, first.Name, metav1.DeleteOptions{}); err != nil { // the clash is gone: gadgets gets its names
			t.Fatal(err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the list failed once the CRD was established: %v", err)
			}
		case <-time.After(50 * time.Second):
			t.Error("the list still waits 50 s after the CRD could be established")
		}
	})
}
