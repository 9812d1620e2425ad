package gke

import (
	"context"
	"strings"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// The client's read cache (internal/readcache), one per provider process:
// a plan reads a cluster once (GetCluster, for Workload Identity and the
// endpoint) and its node pools once (ListNodePools, however many
// mlplatform_gpu_pool resources it has). Any node pool mutation, and any
// operation seen DONE, drops both; a pool list with a pool in transition
// (PROVISIONING, RECONCILING, STOPPING) is never kept, so polls see each
// state. Callers get copies: nothing they do changes what others read.

// invalidate drops every cached read.
func (c *Client) invalidate() {
	c.clusters.Invalidate()
	c.pools.Invalidate()
}

// write runs a mutation between invalidations, waiting out UNAVAILABLE. A
// mutation GKE took before it answered UNAVAILABLE is seen by its retry: an
// operation in progress, which Operations.Mutate waits out, or
// ALREADY_EXISTS and NOT_FOUND, which internal/reconcile handles.
func (c *Client) write(ctx context.Context, rpc func(context.Context) (*containerpb.Operation, error)) (*containerpb.Operation, error) {
	c.invalidate()
	defer c.invalidate()
	return call(ctx, c, rpc)
}

func (c *Client) cluster(ctx context.Context, name string) (*containerpb.Cluster, error) {
	cl, err := c.clusters.Get(ctx, name, func(ctx context.Context) (*containerpb.Cluster, error) {
		return call(ctx, c, func(ctx context.Context) (*containerpb.Cluster, error) {
			return c.CM.GetCluster(ctx, &containerpb.GetClusterRequest{Name: name})
		})
	})
	if err != nil {
		return nil, err
	}
	return proto.Clone(cl).(*containerpb.Cluster), nil
}

// nodePool finds the pool in its cluster's (cached) pool list.
func (c *Client) nodePool(ctx context.Context, name string) (*containerpb.NodePool, error) {
	cluster, _, ok := strings.Cut(name, "/nodePools/")
	if !ok {
		// Not a full resource name: ask GKE, which explains what is wrong.
		return call(ctx, c, func(ctx context.Context) (*containerpb.NodePool, error) {
			return c.CM.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: name})
		})
	}
	pools, err := c.pools.Get(ctx, cluster, func(ctx context.Context) ([]*containerpb.NodePool, error) {
		resp, err := call(ctx, c, func(ctx context.Context) (*containerpb.ListNodePoolsResponse, error) {
			return c.CM.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: cluster})
		})
		return resp.GetNodePools(), err
	})
	if err != nil {
		return nil, err
	}
	short := name[strings.LastIndex(name, "/")+1:]
	for _, np := range pools {
		if np.GetName() == short {
			return proto.Clone(np).(*containerpb.NodePool), nil
		}
	}
	return nil, status.Errorf(codes.NotFound, "Not found: node pool %q.", name)
}

func settled(pools []*containerpb.NodePool) bool {
	for _, np := range pools {
		switch np.GetStatus() {
		case containerpb.NodePool_PROVISIONING, containerpb.NodePool_RECONCILING, containerpb.NodePool_STOPPING:
			return false
		}
	}
	return true
}
