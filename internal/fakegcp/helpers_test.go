package fakegcp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	admin "cloud.google.com/go/iam/admin/apiv1"
	"google.golang.org/api/iterator"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
)

const (
	project  = "my-proj"
	location = "us-central1"
	parent   = "projects/" + project + "/locations/" + location
	latency  = time.Minute
)

func clusterName(name string) string     { return parent + "/clusters/" + name }
func poolName(cluster, np string) string { return clusterName(cluster) + "/nodePools/" + np }

// fakeClock is a race-free manually advanced clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type env struct {
	srv *fakegcp.Server
	clk *fakeClock
	cm  *container.ClusterManagerClient
	ic  *admin.IamClient
}

// start runs a Server with a fake clock and op latency `latency` (opts may
// override) and connects the official clients to it.
func start(t *testing.T, opts ...fakegcp.Option) *env {
	t.Helper()
	clk := &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	srv := fakegcp.New(append([]fakegcp.Option{fakegcp.WithClock(clk.Now), fakegcp.WithOpLatency(latency)}, opts...)...)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	ctx := context.Background()
	cm, err := container.NewClusterManagerClient(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cm.Close() })
	ic, err := admin.NewIamClient(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ic.Close() })
	return &env{srv: srv, clk: clk, cm: cm, ic: ic}
}

func opFullName(op *containerpb.Operation) string {
	return "projects/" + project + "/locations/" + op.GetLocation() + "/operations/" + op.GetName()
}

func (e *env) getOp(t *testing.T, op *containerpb.Operation) *containerpb.Operation {
	t.Helper()
	got, err := e.cm.GetOperation(context.Background(), &containerpb.GetOperationRequest{Name: opFullName(op)})
	if err != nil {
		t.Fatalf("GetOperation: %v", err)
	}
	return got
}

// finish advances the clock past the op latency and returns the DONE op.
func (e *env) finish(t *testing.T, op *containerpb.Operation) *containerpb.Operation {
	t.Helper()
	e.clk.Advance(latency)
	got := e.getOp(t, op)
	if got.Status != containerpb.Operation_DONE {
		t.Fatalf("op %s: want DONE after %v, got %v", op.GetName(), latency, got.Status)
	}
	return got
}

// mustOp returns a checker that fails the test unless a mutating call
// returned a RUNNING operation: mustOp(t)(cm.CreateNodePool(ctx, req)).
func mustOp(t *testing.T) func(*containerpb.Operation, error) *containerpb.Operation {
	return func(op *containerpb.Operation, err error) *containerpb.Operation {
		t.Helper()
		if err != nil {
			t.Fatalf("mutating call: %v", err)
		}
		if op.Status != containerpb.Operation_RUNNING {
			t.Fatalf("want RUNNING op, got %v", op.Status)
		}
		return op
	}
}

// givenPool creates np in cluster "c" (which must exist) and finishes the
// operation.
func (e *env) givenPool(t *testing.T, np *containerpb.NodePool) {
	t.Helper()
	e.finish(t, mustOp(t)(e.cm.CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: np})))
}

// accountEmails follows the iterator to the end: the e-mail of every account
// listed, in order.
func accountEmails(t *testing.T, it *admin.ServiceAccountIterator) []string {
	t.Helper()
	var emails []string
	for {
		sa, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return emails
		}
		if err != nil {
			t.Fatal(err)
		}
		emails = append(emails, sa.Email)
	}
}

func (e *env) getPool(t *testing.T, cluster, np string) *containerpb.NodePool {
	t.Helper()
	got, err := e.cm.GetNodePool(context.Background(), &containerpb.GetNodePoolRequest{Name: poolName(cluster, np)})
	if err != nil {
		t.Fatalf("GetNodePool %s: %v", np, err)
	}
	return got
}

// wantCode fails unless err has the code and its message contains every sub.
func wantCode(t *testing.T, err error, code codes.Code, subs ...string) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("want %v, got %v", code, err)
	}
	msg := status.Convert(err).Message()
	for _, s := range subs {
		if !strings.Contains(msg, s) {
			t.Errorf("error message %q does not contain %q", msg, s)
		}
	}
}

func errorInfo(err error) *errdetails.ErrorInfo {
	for _, d := range status.Convert(err).Details() {
		if ei, ok := d.(*errdetails.ErrorInfo); ok {
			return ei
		}
	}
	return nil
}

func gpuPool(name, machine, accel string, count int64) *containerpb.NodePool {
	np := &containerpb.NodePool{Name: name, InitialNodeCount: 1, Config: &containerpb.NodeConfig{MachineType: machine}}
	if accel != "" {
		np.Config.Accelerators = []*containerpb.AcceleratorConfig{{AcceleratorType: accel, AcceleratorCount: count}}
	}
	return np
}

func statusCode(err error) codes.Code { return status.Code(err) }
