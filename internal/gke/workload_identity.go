package gke

import (
	"context"
	"fmt"
	"sort"

	"cloud.google.com/go/container/apiv1/containerpb"
)

// WorkloadIdentity is what a Workload Identity binding needs to know about
// its cluster.
type WorkloadIdentity struct {
	// Pool is the cluster's workload pool (PROJECT.svc.id.goog), or "" when
	// Workload Identity is not enabled on the cluster.
	Pool string
	// PoolsWithoutMetadataServer are the node pools whose nodes do not run
	// the GKE metadata server, so pods there get no Workload Identity token.
	PoolsWithoutMetadataServer []string
}

// WorkloadIdentity reads cluster (projects/P/locations/L/clusters/C) and its
// node pools.
func (c *Client) WorkloadIdentity(ctx context.Context, cluster string) (WorkloadIdentity, error) {
	cl, err := c.cluster(ctx, cluster)
	if err != nil {
		return WorkloadIdentity{}, fmt.Errorf("read cluster %s: %w", cluster, err)
	}
	out := WorkloadIdentity{Pool: cl.GetWorkloadIdentityConfig().GetWorkloadPool()}
	for _, np := range cl.GetNodePools() {
		if np.GetConfig().GetWorkloadMetadataConfig().GetMode() != containerpb.WorkloadMetadataConfig_GKE_METADATA {
			out.PoolsWithoutMetadataServer = append(out.PoolsWithoutMetadataServer, np.GetName())
		}
	}
	sort.Strings(out.PoolsWithoutMetadataServer)
	return out, nil
}
