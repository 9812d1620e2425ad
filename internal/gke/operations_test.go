package gke_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
)

var devPool = gke.NodePoolRef{Project: "p", Location: "us-central1", Cluster: "training", Name: "dev"}

// ops is an Operations on a fake clock: Sleep advances it and records the
// wait; after sleeps waits Sleep fails as a context that ended.
type ops struct {
	gke.Operations
	now    time.Time
	slept  []time.Duration
	polled []string // operation names read
	logged []string
	done   int // GetOperation answers RUNNING this many times, then DONE
	opErr  *rpcstatus.Status
}

func newOps(sleeps int) *ops {
	o := &ops{now: time.Unix(0, 0)}
	o.Operations = gke.Operations{API: o, Locks: &gke.ClusterLocks{}, Pacing: gke.DefaultPacing()}
	o.Now = func() time.Time { return o.now }
	o.Sleep = func(ctx context.Context, d time.Duration) error {
		if len(o.slept) >= sleeps {
			return context.DeadlineExceeded
		}
		o.slept = append(o.slept, d)
		o.now = o.now.Add(d)
		return nil
	}
	o.Logf = func(_ context.Context, msg string, _ map[string]any) { o.logged = append(o.logged, msg) }
	return o
}

func (o *ops) GetOperation(_ context.Context, name string) (*containerpb.Operation, error) {
	o.polled = append(o.polled, name)
	if len(o.polled) <= o.done {
		return &containerpb.Operation{Name: "op-1", Status: containerpb.Operation_RUNNING}, nil
	}
	return &containerpb.Operation{Name: "op-1", Status: containerpb.Operation_DONE, OperationType: containerpb.Operation_CREATE_NODE_POOL, Error: o.opErr}, nil
}

func busy(code codes.Code, msg, reason string) error {
	st := status.New(code, msg)
	if reason != "" {
		st, _ = st.WithDetails(&errdetails.ErrorInfo{Reason: reason})
	}
	return st.Err()
}

// refusing answers with errs in turn, then with op.
func refusing(calls *int, op *containerpb.Operation, errs ...error) func(context.Context) (*containerpb.Operation, error) {
	return func(context.Context) (*containerpb.Operation, error) {
		*calls++
		if *calls <= len(errs) {
			return nil, errs[*calls-1]
		}
		return op, nil
	}
}

// Every answer that means "GKE is busy" is retried with a growing jittered
// backoff; then the operation is polled, each wait a quarter longer.
func TestMutateRetriesWhileBusyThenPolls(t *testing.T) {
	t.Parallel()
	o := newOps(100)
	o.done = 3
	calls := 0
	err := o.Mutate(context.Background(), devPool, "create", refusing(&calls, &containerpb.Operation{Name: "op-1", Status: containerpb.Operation_PENDING},
		busy(codes.ResourceExhausted, "too many operations", ""),
		busy(codes.Aborted, "lost a race", ""),
		busy(codes.FailedPrecondition, "Cluster is busy", "CLUSTER_ALREADY_HAS_OPERATION"),
		busy(codes.FailedPrecondition, "Cluster is running incompatible operation operation-9.", ""),
		busy(codes.FailedPrecondition, "Another operation in progress.", "")))
	if err != nil {
		t.Fatal(err)
	}
	if calls != 6 {
		t.Errorf("%d calls, want 6 (5 refused)", calls)
	}
	retries, polls := o.slept[:5], o.slept[5:]
	for i, d := range retries {
		hi := min(o.RetryBase<<i, o.RetryMax)
		if d < hi/2 || d > hi {
			t.Errorf("backoff %d = %s, want in [%s, %s]", i+1, d, hi/2, hi)
		}
	}
	wantPolls := []time.Duration{50 * time.Millisecond, 62500 * time.Microsecond, 78125 * time.Microsecond, 97656250}
	if diff := cmp.Diff(wantPolls, polls); diff != "" {
		t.Errorf("poll waits (-want +got):\n%s", diff)
	}
	if got := o.polled[0]; got != "projects/p/locations/us-central1/operations/op-1" {
		t.Errorf("polled %q", got)
	}
	if diff := cmp.Diff([]string{"GKE is busy; retrying", "GKE is busy; retrying", "GKE is busy; retrying", "GKE is busy; retrying", "GKE is busy; retrying",
		"waiting for GKE operation", "waiting for GKE operation", "waiting for GKE operation", "waiting for GKE operation"}, o.logged); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
}

// Polls never wait longer than MaxPoll, and the operation is read by the
// name in its self link.
func TestMutatePollsUpToMaxPoll(t *testing.T) {
	t.Parallel()
	o := newOps(100)
	o.done, o.MaxPoll = 5, 80*time.Millisecond
	calls := 0
	op := &containerpb.Operation{Name: "op-1", SelfLink: "https://container.googleapis.com/v1/projects/p/zones/us-central1-a/operations/op-1"}
	if err := o.Mutate(context.Background(), devPool, "delete", refusing(&calls, op)); err != nil {
		t.Fatal(err)
	}
	if o.slept[len(o.slept)-1] != 80*time.Millisecond || o.slept[len(o.slept)-2] != 80*time.Millisecond {
		t.Errorf("poll waits %v, want them capped at 80ms", o.slept)
	}
	if got := o.polled[0]; got != "projects/p/zones/us-central1-a/operations/op-1" {
		t.Errorf("polled %q", got)
	}
}

// A refusal that is not "busy" is not retried; nil means nothing to do.
func TestMutateDoesNotRetryOtherErrors(t *testing.T) {
	t.Parallel()
	o := newOps(100)
	calls := 0
	err := o.Mutate(context.Background(), devPool, "update labels of", refusing(&calls, nil,
		busy(codes.FailedPrecondition, "Node pool is not in a state that allows this", "")))
	want := "update labels of node pool projects/p/locations/us-central1/clusters/training/nodePools/dev: rpc error: code = FailedPrecondition"
	if err == nil || !strings.HasPrefix(err.Error(), want) || status.Code(err) != codes.FailedPrecondition || calls != 1 {
		t.Fatalf("error = %v after %d calls, want one call and %q", err, calls, want)
	}
	if err := o.Mutate(context.Background(), devPool, "delete", refusing(&calls, nil)); err != nil || len(o.polled) != 0 {
		t.Errorf("nothing to do: error %v, %d polls", err, len(o.polled))
	}
}

// When ctx ends while GKE is busy, the error says how often and how long it
// was retried, and wraps GKE's last refusal.
func TestMutateGivesUpWhenCtxEnds(t *testing.T) {
	t.Parallel()
	o := newOps(3)
	calls := 0
	refusal := busy(codes.FailedPrecondition, "Cluster is running incompatible operation operation-1.", "CLUSTER_ALREADY_HAS_OPERATION")
	err := o.Mutate(context.Background(), devPool, "create", refusing(&calls, nil, refusal, refusal, refusal, refusal, refusal))
	var be *gke.BusyError
	if !errors.As(err, &be) || be.Attempts != 4 || be.Err != refusal || be.Elapsed != o.now.Sub(time.Unix(0, 0)) || calls != 4 {
		t.Fatalf("error = %#v after %d calls, want a BusyError after 4 attempts wrapping GKE's refusal", err, calls)
	}
	want := "GKE is busy with another operation on cluster projects/p/locations/us-central1/clusters/training; retried 4 times over "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q, want it to start %q", err, want)
	}
}

// A request that waits for this process's other requests on the cluster
// until ctx ends is not sent; the BusyError wraps a *QueuedError.
func TestMutateQueuedUntilCtxEnds(t *testing.T) {
	t.Parallel()
	o := newOps(100)
	unlock, err := o.Locks.Lock(context.Background(), devPool.ClusterName(), "projects/p/locations/us-central1/clusters/training/nodePools/other")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	calls := 0
	err = o.Mutate(ctx, devPool, "create", refusing(&calls, nil))
	var be *gke.BusyError
	var q *gke.QueuedError
	if !errors.As(err, &be) || !errors.As(err, &q) || !errors.Is(err, context.DeadlineExceeded) || be.Attempts != 0 || calls != 0 {
		t.Fatalf("error = %v after %d calls, want a BusyError wrapping a QueuedError, nothing sent", err, calls)
	}
	want := "retried 0 times over 0s: waiting for this process's other operations on the cluster to create node pool dev: context deadline exceeded"
	if !strings.HasSuffix(err.Error(), want) {
		t.Errorf("error %q, want it to end %q", err, want)
	}
}

// An operation that finishes in error is an *OperationError.
func TestMutateOperationError(t *testing.T) {
	t.Parallel()
	o := newOps(100)
	o.opErr = &rpcstatus.Status{Code: int32(codes.ResourceExhausted), Message: "GCE_STOCKOUT in zones/us-central1-a"}
	calls := 0
	err := o.Mutate(context.Background(), devPool, "create", refusing(&calls, &containerpb.Operation{Name: "op-1"}))
	var oe *gke.OperationError
	if !errors.As(err, &oe) {
		t.Fatalf("error = %v, want an OperationError", err)
	}
	want := &gke.OperationError{Op: "projects/p/locations/us-central1/operations/op-1", Type: "CREATE_NODE_POOL", NodePool: "dev",
		Code: codes.ResourceExhausted, Message: "GCE_STOCKOUT in zones/us-central1-a"}
	if diff := cmp.Diff(want, oe); diff != "" {
		t.Errorf("OperationError (-want +got):\n%s", diff)
	}
}
