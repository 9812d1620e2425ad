package gke

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// Node-pool operations. Every mutating node-pool request goes through
// Operations.Mutate, which
//   - takes the node pool's lock and then its cluster's (ClusterLocks), so
//     this process sends one mutation per cluster at a time;
//   - sends the request and, while GKE refuses it as busy (see retryable),
//     sends it again after a jittered exponential backoff, releasing the
//     locks in between, until ctx ends;
//   - polls the long-running operation the request started until it is
//     DONE, each wait a quarter longer than the last, up to MaxPoll.
//
// It fails with a *BusyError when ctx ends while GKE is busy (wrapping a
// *QueuedError when ctx ended while the request waited for the locks), and
// with an *OperationError when the operation finished in error.

// OperationReader reads a long-running operation (Client satisfies it).
type OperationReader interface {
	GetOperation(ctx context.Context, name string) (*containerpb.Operation, error)
}

// Locker serializes mutations per cluster and node pool (ClusterLocks).
type Locker interface {
	Lock(ctx context.Context, cluster, nodePool string) (unlock func(), err error)
}

// NodePoolRef names a node pool.
type NodePoolRef struct{ Project, Location, Cluster, Name string }

// ClusterName is projects/P/locations/L/clusters/C.
func (r NodePoolRef) ClusterName() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", r.Project, r.Location, r.Cluster)
}

// NodePoolName is projects/P/locations/L/clusters/C/nodePools/N.
func (r NodePoolRef) NodePoolName() string { return r.ClusterName() + "/nodePools/" + r.Name }

func (r NodePoolRef) String() string { return r.NodePoolName() }

// Pacing is how Operations waits, and where it reports progress.
type Pacing struct {
	// Logf receives progress (operation polling, retries). Default: discard.
	Logf func(ctx context.Context, msg string, fields map[string]any)
	// Sleep waits d or until ctx ends (injectable for tests).
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
	// Poll is the first operation poll interval; it grows by a quarter each
	// poll up to MaxPoll, so an operation is seen done at most ~25% after it
	// finished (the next pool on the cluster waits for that).
	Poll, MaxPoll time.Duration
	// RetryBase and RetryMax bound the jittered exponential backoff between
	// attempts while GKE is busy; retries stop when ctx (the caller's
	// deadline) ends.
	RetryBase, RetryMax time.Duration
}

// DefaultPacing is the production pacing.
func DefaultPacing() Pacing {
	return Pacing{
		Logf:  func(context.Context, string, map[string]any) {},
		Sleep: retry.Sleep, Now: time.Now,
		Poll: 50 * time.Millisecond, MaxPoll: 5 * time.Second,
		RetryBase: 250 * time.Millisecond, RetryMax: 20 * time.Second,
	}
}

// Operations sends mutating node-pool requests one at a time per cluster,
// retries them while GKE is busy, and waits for their operations.
type Operations struct {
	API   OperationReader
	Locks Locker
	Pacing
}

// BusyError: GKE kept refusing the request because of other operations on
// the cluster until ctx ended.
type BusyError struct {
	Cluster  string
	Attempts int
	Elapsed  time.Duration
	Err      error // GKE's last refusal, or a *QueuedError
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("GKE is busy with another operation on cluster %s; retried %d times over %s: %v",
		e.Cluster, e.Attempts, e.Elapsed.Round(time.Millisecond), e.Err)
}

func (e *BusyError) Unwrap() error { return e.Err }

// QueuedError: ctx ended while the request waited for this process's other
// requests on the cluster (Locker); this attempt was not sent.
type QueuedError struct {
	Action   string // e.g. "create", "update labels of"
	NodePool string // the node pool's short name
	Err      error  // ctx's error
}

func (e *QueuedError) Error() string {
	return fmt.Sprintf("waiting for this process's other operations on the cluster to %s node pool %s: %v", e.Action, e.NodePool, e.Err)
}

func (e *QueuedError) Unwrap() error { return e.Err }

// OperationError is a GKE operation that finished in error.
type OperationError struct {
	Op       string // operation resource name
	Type     string // e.g. CREATE_NODE_POOL
	NodePool string
	Code     codes.Code
	Message  string
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("GKE operation %s (%s) on node pool %s failed: %s: %s", e.Op, e.Type, e.NodePool, e.Code, e.Message)
}

// retryable reports the answers that mean "GKE is busy, try again": another
// operation holds the cluster (FAILED_PRECONDITION, CLUSTER_ALREADY_HAS_OPERATION),
// too many concurrent operations or quota (RESOURCE_EXHAUSTED), a lost
// read-modify-write race (ABORTED).
func retryable(err error) bool {
	st, ok := status.FromError(err)
	if !ok {
		return false
	}
	switch st.Code() {
	case codes.ResourceExhausted, codes.Aborted:
		return true
	case codes.FailedPrecondition:
		for _, d := range st.Details() {
			if ei, ok := d.(*errdetails.ErrorInfo); ok && ei.GetReason() == "CLUSTER_ALREADY_HAS_OPERATION" {
				return true
			}
		}
		return strings.Contains(st.Message(), "incompatible operation") || strings.Contains(st.Message(), "operation in progress")
	}
	return false
}

// untilCtxEnds is the retry bound: retries while GKE is busy stop when ctx
// ends, not before.
const untilCtxEnds = time.Duration(math.MaxInt64)

func (o *Operations) logf(ctx context.Context, msg string, fields map[string]any) {
	if o.Logf != nil {
		o.Logf(ctx, msg, fields)
	}
}

// Mutate sends call, one mutating request for pool, under the pool's and
// its cluster's locks, sends it again while GKE is busy, and waits for its
// operation. what names the action in messages ("create", "update labels
// of"). call returning a nil operation and a nil error means there was
// nothing to do.
func (o *Operations) Mutate(ctx context.Context, pool NodePoolRef, what string, call func(ctx context.Context) (*containerpb.Operation, error)) error {
	start := o.Now()
	attempts := 0
	var refused error // GKE's last busy answer
	p := retry.Policy{
		Bound: untilCtxEnds, Base: o.RetryBase, Max: o.RetryMax, Sleep: o.Sleep, Now: o.Now,
		Logf: func(ctx context.Context, _ string, f map[string]any) {
			o.logf(ctx, "GKE is busy; retrying", map[string]any{"node_pool": pool.Name, "action": what,
				"attempt": f["attempt"], "wait": f["next_in"], "error": f["error"]})
		},
	}
	err := p.Loop(ctx, nil, func(ctx context.Context, cancel context.CancelFunc) retry.Attempt {
		attempts++
		unlock, err := o.Locks.Lock(ctx, pool.ClusterName(), pool.NodePoolName())
		if err != nil {
			return retry.Attempt{Err: &BusyError{Cluster: pool.ClusterName(), Attempts: attempts - 1, Elapsed: o.Now().Sub(start),
				Err: &QueuedError{Action: what, NodePool: pool.Name, Err: err}}}
		}
		defer unlock()
		op, err := call(ctx)
		switch {
		case err == nil:
			defer cancel() // this attempt's context is ours once it succeeded
			if op == nil {
				return retry.Attempt{}
			}
			return retry.Attempt{Err: o.wait(ctx, pool, op, what)}
		case retryable(err):
			refused = err
			return retry.Attempt{Err: err, Waiting: "GKE to finish another operation on cluster " + pool.ClusterName()}
		}
		return retry.Attempt{Err: fmt.Errorf("%s node pool %s: %w", what, pool, err)}
	})
	// With no bound but ctx, Loop gives up only in the sleep after a busy
	// answer, when ctx ends.
	if gaveUp, ok := err.(*retry.Error); ok && refused != nil {
		return &BusyError{Cluster: pool.ClusterName(), Attempts: gaveUp.Attempts, Elapsed: gaveUp.Waited, Err: refused}
	}
	return err
}

// opName is the resource name GetOperation takes: GKE returns the short id
// in Operation.Name and the full URL in SelfLink.
func opName(op *containerpb.Operation, pool NodePoolRef) string {
	if i := strings.Index(op.GetSelfLink(), "projects/"); i >= 0 {
		return op.GetSelfLink()[i:]
	}
	if strings.HasPrefix(op.GetName(), "projects/") {
		return op.GetName()
	}
	return "projects/" + pool.Project + "/locations/" + pool.Location + "/operations/" + op.GetName()
}

// wait polls op until it is DONE, logging progress.
func (o *Operations) wait(ctx context.Context, pool NodePoolRef, op *containerpb.Operation, what string) error {
	name, start, poll := opName(op, pool), o.Now(), o.Poll
	for op.GetStatus() != containerpb.Operation_DONE {
		if err := o.Sleep(ctx, poll); err != nil {
			return fmt.Errorf("GKE operation %s (%s node pool %s) was still %s after %s: %w",
				name, what, pool.Name, op.GetStatus(), o.Now().Sub(start).Round(time.Second), err)
		}
		poll = min(poll*5/4, o.MaxPoll)
		next, err := o.API.GetOperation(ctx, name)
		if err != nil {
			if retryable(err) || status.Code(err) == codes.Unavailable {
				continue
			}
			return fmt.Errorf("read GKE operation %s: %w", name, err)
		}
		op = next
		o.logf(ctx, "waiting for GKE operation", map[string]any{"node_pool": pool.Name, "action": what, "operation": name,
			"type": op.GetOperationType().String(), "status": op.GetStatus().String(), "elapsed": o.Now().Sub(start).Round(time.Millisecond).String()})
	}
	if e := op.GetError(); e != nil && e.GetCode() != 0 {
		return &OperationError{Op: name, Type: op.GetOperationType().String(), NodePool: pool.Name, Code: codes.Code(e.GetCode()), Message: e.GetMessage()}
	}
	return nil
}
