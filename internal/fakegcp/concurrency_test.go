package fakegcp_test

import (
	"context"
	"testing"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
)

type mutation func(ctx context.Context, e *env, cluster, pool string) (*containerpb.Operation, error)

// mutations are every mutating RPC, addressed at pool (or its cluster).
var mutations = map[string]mutation{
	"CreateNodePool": func(ctx context.Context, e *env, c, p string) (*containerpb.Operation, error) {
		return e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName(c), NodePool: gpuPool(p+"-new", "e2-standard-4", "", 0)})
	},
	"UpdateNodePool": func(ctx context.Context, e *env, c, p string) (*containerpb.Operation, error) {
		return e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: poolName(c, p), Labels: &containerpb.NodeLabels{Labels: map[string]string{"k": "v"}}})
	},
	"SetNodePoolSize": func(ctx context.Context, e *env, c, p string) (*containerpb.Operation, error) {
		return e.cm.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: poolName(c, p), NodeCount: 5})
	},
	"SetNodePoolAutoscaling": func(ctx context.Context, e *env, c, p string) (*containerpb.Operation, error) {
		return e.cm.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: poolName(c, p), Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 4}})
	},
	"SetNodePoolManagement": func(ctx context.Context, e *env, c, p string) (*containerpb.Operation, error) {
		return e.cm.SetNodePoolManagement(ctx, &containerpb.SetNodePoolManagementRequest{Name: poolName(c, p), Management: &containerpb.NodeManagement{}})
	},
	"DeleteNodePool": func(ctx context.Context, e *env, c, p string) (*containerpb.Operation, error) {
		return e.cm.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: poolName(c, p)})
	},
	"DeleteCluster": func(ctx context.Context, e *env, c, _ string) (*containerpb.Operation, error) {
		return e.cm.DeleteCluster(ctx, &containerpb.DeleteClusterRequest{Name: clusterName(c)})
	},
}

func wantIncompatible(t *testing.T, err error, running *containerpb.Operation) {
	t.Helper()
	wantCode(t, err, codes.FailedPrecondition, "Cluster is running incompatible operation "+running.Name+".")
	want := &errdetails.ErrorInfo{Reason: "CLUSTER_ALREADY_HAS_OPERATION", Domain: "container.googleapis.com"}
	if diff := cmp.Diff(want, errorInfo(err), protocmp.Transform()); diff != "" {
		t.Errorf("ErrorInfo (-want +got):\n%s", diff)
	}
}

// TestOneOperationPerCluster: classic GKE rejects every second mutation while
// one runs, whatever node pool it targets; it works again once DONE.
func TestOneOperationPerCluster(t *testing.T) {
	t.Parallel()
	for name, second := range mutations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			ctx := context.Background()
			e.srv.Container.AddCluster(project, location, "c", false)
			e.srv.Container.AddCluster(project, location, "other", false)
			first := mustOp(t)(e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("first", "e2-standard-4", "", 0)}))

			_, err := second(ctx, e, "c", "default-pool")
			wantIncompatible(t, err, first)
			// Another cluster is independent.
			mustOp(t)(second(ctx, e, "other", "default-pool"))

			e.finish(t, first)
			mustOp(t)(second(ctx, e, "c", "default-pool"))
		})
	}
}

func TestClusterOperationBlocksNodePools(t *testing.T) {
	t.Parallel()
	e := start(t, fakegcp.WithMaxConcurrentNodePoolOps(5))
	ctx := context.Background()
	op := mustOp(t)(e.cm.CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent, Cluster: &containerpb.Cluster{Name: "c", InitialNodeCount: 1}}))
	_, err := e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("np", "e2-standard-4", "", 0)})
	wantIncompatible(t, err, op)
	e.finish(t, op)
	mustOp(t)(e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("np", "e2-standard-4", "", 0)}))
}

// TestMaxConcurrentNodePoolOps: with N>0, different pools overlap up to N;
// then RESOURCE_EXHAUSTED; the same pool and cluster-level ops still conflict.
func TestMaxConcurrentNodePoolOps(t *testing.T) {
	t.Parallel()
	e := start(t, fakegcp.WithMaxConcurrentNodePoolOps(2))
	ctx := context.Background()
	e.srv.Container.AddCluster(project, location, "c", false)
	create := func(name string) (*containerpb.Operation, error) {
		return e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool(name, "e2-standard-4", "", 0)})
	}
	a := mustOp(t)(create("a"))
	mustOp(t)(create("b"))
	_, err := create("c")
	wantCode(t, err, codes.ResourceExhausted)
	_, err = mutations["SetNodePoolSize"](ctx, e, "c", "a")
	wantIncompatible(t, err, a)
	_, err = mutations["DeleteCluster"](ctx, e, "c", "")
	wantIncompatible(t, err, a)

	e.clk.Advance(latency) // a and b finish
	mustOp(t)(create("c"))
	mustOp(t)(mutations["SetNodePoolSize"](ctx, e, "c", "a"))

	// Back to classic at runtime.
	e.srv.Container.SetMaxConcurrentNodePoolOps(0)
	_, err = mutations["SetNodePoolSize"](ctx, e, "c", "default-pool")
	if got := errorInfo(err).GetReason(); got != "CLUSTER_ALREADY_HAS_OPERATION" {
		t.Fatalf("classic mode: want CLUSTER_ALREADY_HAS_OPERATION, got %v", err)
	}
}

// TestMaxConcurrentOps records the most operations that ran at once per
// cluster: 1 in classic mode, up to the limit with concurrent node-pool ops.
func TestMaxConcurrentOps(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		limit int
		want  int
	}{"classic": {0, 1}, "two at a time": {2, 2}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := start(t, fakegcp.WithMaxConcurrentNodePoolOps(tc.limit))
			ctx := context.Background()
			e.srv.Container.AddCluster(project, location, "c", false)
			if got := e.srv.Container.MaxConcurrentOps(clusterName("c")); got != 0 {
				t.Fatalf("before any operation: %d", got)
			}
			for _, p := range []string{"a", "b", "c"} {
				_, _ = e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool(p, "e2-standard-4", "", 0)})
			}
			e.clk.Advance(latency)
			_, _ = e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("d", "e2-standard-4", "", 0)})
			if got := e.srv.Container.MaxConcurrentOps(clusterName("c")); got != tc.want {
				t.Errorf("MaxConcurrentOps = %d, want %d", got, tc.want)
			}
		})
	}
}
