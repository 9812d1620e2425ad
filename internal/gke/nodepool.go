package gke

import (
	"context"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// Node pool calls, one RPC each (UNAVAILABLE is waited out here, in call).
// Every mutating call returns a long-running operation: sending it under the
// per-cluster lock, sending it again while GKE is busy with another
// operation, and waiting for the operation is Operations' job
// (operations.go). Reads go through the client's read cache (cache.go):
// every node pool of a cluster comes from one ListNodePools per provider
// process, and every mutation, and every operation seen done, invalidates it.

// GetNodePool reads projects/P/locations/L/clusters/C/nodePools/N.
func (c *Client) GetNodePool(ctx context.Context, name string) (*containerpb.NodePool, error) {
	return c.nodePool(ctx, name)
}

// CreateNodePool creates np in cluster parent (projects/P/locations/L/clusters/C).
func (c *Client) CreateNodePool(ctx context.Context, parent string, np *containerpb.NodePool) (*containerpb.Operation, error) {
	return c.write(ctx, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.CM.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: parent, NodePool: np})
	})
}

// UpdateNodePool sends one field group; req.Name names the pool.
func (c *Client) UpdateNodePool(ctx context.Context, req *containerpb.UpdateNodePoolRequest) (*containerpb.Operation, error) {
	return c.write(ctx, func(ctx context.Context) (*containerpb.Operation, error) { return c.CM.UpdateNodePool(ctx, req) })
}

// SetNodePoolAutoscaling replaces the pool's autoscaling settings.
func (c *Client) SetNodePoolAutoscaling(ctx context.Context, name string, a *containerpb.NodePoolAutoscaling) (*containerpb.Operation, error) {
	return c.write(ctx, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.CM.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: name, Autoscaling: a})
	})
}

// SetNodePoolSize resizes a pool (nodes per zone). Never call it on a pool
// whose autoscaler is on: the autoscaler owns the node count.
func (c *Client) SetNodePoolSize(ctx context.Context, name string, perZone int32) (*containerpb.Operation, error) {
	return c.write(ctx, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.CM.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: name, NodeCount: perZone})
	})
}

// DeleteNodePool deletes the pool.
func (c *Client) DeleteNodePool(ctx context.Context, name string) (*containerpb.Operation, error) {
	return c.write(ctx, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.CM.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: name})
	})
}

// GetOperation reads projects/P/locations/L/operations/ID. An operation seen
// done has changed the cluster: cached reads are dropped.
func (c *Client) GetOperation(ctx context.Context, name string) (*containerpb.Operation, error) {
	op, err := call(ctx, c, func(ctx context.Context) (*containerpb.Operation, error) {
		return c.CM.GetOperation(ctx, &containerpb.GetOperationRequest{Name: name})
	})
	if err == nil && op.GetStatus() == containerpb.Operation_DONE {
		c.invalidate()
	}
	return op, err
}
