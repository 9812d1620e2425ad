package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
)

// Readiness is what a controller reports about an object: whether it is
// ready, and if not, why (its condition's reason and message).
type Readiness struct {
	Ready   bool
	Reason  string
	Message string
}

// ConditionReadiness reads the condition of type t.
func ConditionReadiness(conds []metav1.Condition, t string) Readiness {
	c := meta.FindStatusCondition(conds, t)
	if c == nil {
		return Readiness{Reason: "NoStatus", Message: "the controller has not reported status yet"}
	}
	return Readiness{Ready: c.Status == metav1.ConditionTrue, Reason: c.Reason, Message: c.Message}
}

// ErrNotReady is returned (wrapped) when an object does not become ready in time.
var ErrNotReady = errors.New("not ready")

// NotReadyError is an object the controller did not report ready in time.
type NotReadyError struct {
	Kind, Name string
	Waited     time.Duration
	Last       Readiness // the controller's last word
	Why        string    // Last in plain words ("" when there are none)
}

func (e *NotReadyError) Error() string {
	why := fmt.Sprintf("%s: %s", e.Last.Reason, e.Last.Message)
	if e.Why != "" {
		why = e.Why + " (Kueue says " + why + ")"
	}
	return fmt.Sprintf("%s %s is not active after %s: %s", e.Kind, e.Name, e.Waited.Round(time.Second), why)
}

func (e *NotReadyError) Unwrap() error { return ErrNotReady }

// WaitReady polls the object until o.Ready says so, or ctx ends. A kind
// without Ready, or a spec that does not await readiness (o.Awaits), returns
// at once.
func (o Object[S, O, AC]) WaitReady(ctx context.Context, ref Ref, desired S) error {
	if o.Ready == nil || (o.Awaits != nil && !o.Awaits(desired)) {
		return nil
	}
	var explain func(Readiness) string
	if o.Explain != nil {
		explain = o.Explain(desired)
	}
	poll := o.Poll
	if poll == 0 {
		poll = 200 * time.Millisecond
	}
	start := time.Now()
	var last Readiness
	for {
		obj, err := o.API(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			last = Readiness{Reason: "Deleted", Message: "the object was deleted while waiting for it"}
		case err != nil && !kube.DeadlineReached(ctx, err):
			return fmt.Errorf("read %s %s while waiting for it to become ready: %w", o.Kind, ref, err)
		case err == nil:
			if last = o.Ready(obj); last.Ready {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			e := &NotReadyError{Kind: o.Kind, Name: ref.String(), Waited: time.Since(start), Last: last}
			if explain != nil {
				e.Why = explain(last)
			}
			return e
		case <-time.After(poll):
		}
	}
}
