package multikueuetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// A wait's last read can meet its deadline inside client-go's rate limiter,
// which refuses to wait past it while ctx.Err() is still nil (CI met this in
// TestAccMultiKueueCheckSaysWhy: "read MultiKueueCluster nowhere while
// waiting for the check: client rate limiter Wait returned an error"). A
// client allowed one request a second makes it certain: the second read of
// each wait would have to wait past the 500ms deadline. Every wait must end
// as its deadline does, with the object's readiness, not the refusal.
func TestWaitsEndAtTheirDeadlineInTheRateLimiter(t *testing.T) {
	m := envs(t)
	slow, err := kube.New(m.Manager.REST, "wait-deadline-test", func(c *rest.Config) { c.QPS, c.Burst = 1, 1 })
	if err != nil {
		t.Fatal(err)
	}
	waits := map[string]func(context.Context) error{
		"multikueue check": func(ctx context.Context) error {
			return reconcile.NewMultiKueueChecks(slow).WaitReady(ctx, reconcile.Ref{Name: "no-such-check"},
				spec.MultiKueueCheck{Name: "no-such-check", Clusters: []string{"no-such-worker"}})
		},
		"multikueue cluster": func(ctx context.Context) error {
			return reconcile.MultiKueueClusters{Manager: slow}.WaitReady(ctx, reconcile.Ref{Name: "no-such-worker"}, spec.MultiKueueCluster{})
		},
		"local queue": func(ctx context.Context) error {
			return reconcile.NewLocalQueues(slow).WaitReady(ctx, reconcile.Ref{Namespace: "default", Name: "no-such-queue"}, spec.LocalQueue{})
		},
	}
	for name, wait := range waits {
		t.Run(name, func(t *testing.T) {
			time.Sleep(1100 * time.Millisecond) // the limiter's token back
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			err := wait(ctx)
			if !errors.Is(err, reconcile.ErrNotReady) {
				t.Fatalf("the wait ended with %v; want a not-ready error at its deadline", err)
			}
			if strings.Contains(err.Error(), "rate limiter") {
				t.Errorf("the limiter's refusal reached the user: %v", err)
			}
		})
	}
}
