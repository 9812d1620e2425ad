package fakegcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
)

func TestOperationLifecycle(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	op := mustOp(t)(e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("np", "e2-standard-4", "", 0)}))

	// GKE: Name is the short id, SelfLink the full URL.
	if strings.Contains(op.Name, "/") || !strings.HasPrefix(op.Name, "operation-") {
		t.Errorf("op.Name = %q, want short id operation-…", op.Name)
	}
	if want := "https://container.googleapis.com/v1/" + parent + "/operations/" + op.Name; op.SelfLink != want {
		t.Errorf("op.SelfLink = %q, want %q", op.SelfLink, want)
	}
	if want := "https://container.googleapis.com/v1/" + poolName("c", "np"); op.TargetLink != want {
		t.Errorf("op.TargetLink = %q, want %q", op.TargetLink, want)
	}
	if op.OperationType != containerpb.Operation_CREATE_NODE_POOL || op.Location != location {
		t.Errorf("op type/location = %v/%q", op.OperationType, op.Location)
	}

	// Deterministic with the fake clock: RUNNING until the latency elapsed.
	if got := e.getOp(t, op); got.Status != containerpb.Operation_RUNNING {
		t.Fatalf("before clock advance: %v, want RUNNING", got.Status)
	}
	e.clk.Advance(latency - time.Nanosecond)
	if got := e.getOp(t, op); got.Status != containerpb.Operation_RUNNING || got.EndTime != "" {
		t.Fatalf("1ns before deadline: %v (end %q), want RUNNING", got.Status, got.EndTime)
	}
	if np := e.getPool(t, "c", "np"); np.Status != containerpb.NodePool_PROVISIONING {
		t.Fatalf("pool during op: %v, want PROVISIONING", np.Status)
	}
	e.clk.Advance(time.Nanosecond)
	done := e.getOp(t, op)
	if done.Status != containerpb.Operation_DONE || done.Error != nil || done.EndTime == "" {
		t.Fatalf("at deadline: status %v error %v end %q, want DONE without error", done.Status, done.Error, done.EndTime)
	}
	if np := e.getPool(t, "c", "np"); np.Status != containerpb.NodePool_RUNNING {
		t.Fatalf("pool after op: %v, want RUNNING", np.Status)
	}

	// Deprecated project/zone/operation_id addressing finds the same op.
	byID, err := e.cm.GetOperation(ctx, &containerpb.GetOperationRequest{ProjectId: project, Zone: location, OperationId: op.Name})
	if err != nil || byID.SelfLink != op.SelfLink {
		t.Fatalf("GetOperation by id: %v %v", byID, err)
	}
	list, err := e.cm.ListOperations(ctx, &containerpb.ListOperationsRequest{Parent: parent})
	if err != nil || len(list.Operations) != 1 || list.Operations[0].Name != op.Name {
		t.Fatalf("ListOperations = %v, %v", list, err)
	}
	_, err = e.cm.GetOperation(ctx, &containerpb.GetOperationRequest{Name: parent + "/operations/operation-404"})
	wantCode(t, err, codes.NotFound)
}

// TestOperationTypes checks each mutation is one operation of the GKE type.
func TestOperationTypes(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	np := poolName("c", "default-pool")
	tests := []struct {
		name string
		call func() (*containerpb.Operation, error)
		want containerpb.Operation_Type
	}{
		{"SetNodePoolSize", func() (*containerpb.Operation, error) {
			return e.cm.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: np, NodeCount: 2})
		}, containerpb.Operation_SET_NODE_POOL_SIZE},
		{"SetNodePoolAutoscaling", func() (*containerpb.Operation, error) {
			return e.cm.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: np, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 3}})
		}, containerpb.Operation_UPDATE_CLUSTER},
		{"SetNodePoolManagement", func() (*containerpb.Operation, error) {
			return e.cm.SetNodePoolManagement(ctx, &containerpb.SetNodePoolManagementRequest{Name: np, Management: &containerpb.NodeManagement{AutoRepair: true}})
		}, containerpb.Operation_SET_NODE_POOL_MANAGEMENT},
		{"UpdateNodePool labels", func() (*containerpb.Operation, error) {
			return e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: np, Labels: &containerpb.NodeLabels{Labels: map[string]string{"a": "b"}}})
		}, containerpb.Operation_UPDATE_CLUSTER},
		{"UpdateNodePool version", func() (*containerpb.Operation, error) {
			return e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: np, NodeVersion: "-"})
		}, containerpb.Operation_UPGRADE_NODES},
		{"DeleteNodePool", func() (*containerpb.Operation, error) {
			return e.cm.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: np})
		}, containerpb.Operation_DELETE_NODE_POOL},
		{"DeleteCluster", func() (*containerpb.Operation, error) {
			return e.cm.DeleteCluster(ctx, &containerpb.DeleteClusterRequest{Name: clusterName("c")})
		}, containerpb.Operation_DELETE_CLUSTER},
	}
	for _, tt := range tests { // sequential: they share one cluster
		op := mustOp(t)(tt.call())
		if op.OperationType != tt.want {
			t.Errorf("%s: op type %v, want %v", tt.name, op.OperationType, tt.want)
		}
		if done := e.finish(t, op); done.Error != nil {
			t.Errorf("%s: op error %v", tt.name, done.Error)
		}
	}
	_, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")})
	wantCode(t, err, codes.NotFound)
}
