package resources_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// getDeleter is a typed client for one kind.
type getDeleter[O any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (O, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// deleteOutOfBand deletes an object as an operator would (kubectl delete)
// and waits until it is gone, finalizers included.
func deleteOutOfBand[O any](t *testing.T, api getDeleter[O], name string) {
	t.Helper()
	ctx := context.Background()
	if err := api.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := api.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	}); err != nil {
		t.Fatalf("%s not gone a minute after delete: %v", name, err)
	}
}
