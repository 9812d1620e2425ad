package fakegcp

import (
	"fmt"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func notFound(what string) error {
	return status.Errorf(codes.NotFound, "Not found: %s.", what)
}

// nodePoolNotFound is GKE's answer for a node pool that does not exist
// (recorded: containernodepool-queuedprovisioning/_http.log).
func nodePoolNotFound(pool string) error {
	return status.Errorf(codes.NotFound, "Not found: node pool %q not found.", pool)
}

func invalidArg(format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, format, args...)
}

// incompatible is GKE's answer to a mutating call while another operation
// holds the cluster (or the same node pool).
func incompatible(opName string) error {
	st := status.New(codes.FailedPrecondition,
		fmt.Sprintf("Cluster is running incompatible operation %s.", opName))
	st, _ = st.WithDetails(&errdetails.ErrorInfo{
		Reason: "CLUSTER_ALREADY_HAS_OPERATION",
		Domain: "container.googleapis.com",
	})
	return st.Err()
}

// tooManyNodePoolOps is returned when MaxConcurrentNodePoolOps is exceeded.
func tooManyNodePoolOps(clusterKey string, limit int) error {
	return status.Errorf(codes.ResourceExhausted,
		"Too many concurrent node pool operations on cluster %s (limit %d). Please retry later.", clusterKey, limit)
}

// GCEStockout returns the error GKE reports in a CREATE_NODE_POOL operation
// when Compute Engine cannot find capacity in zone (RESOURCE_EXHAUSTED, as
// seen for GPU pools). Use it from Container.FailNodePoolCreate.
func GCEStockout(project, zone string) *rpcstatus.Status {
	return &rpcstatus.Status{
		Code: int32(codes.ResourceExhausted),
		Message: fmt.Sprintf("Google Compute Engine: Not all instances running in IGM after 30m0s. "+
			"Expected 1, running 0, transitioning 0. Current errors: [GCE_STOCKOUT]: "+
			"Instance 'gke-%s-%s' creation failed: The zone 'projects/%s/zones/%s' does not have enough "+
			"resources available to fulfill the request. Try a different zone, or try again later.",
			randHex(4), randHex(2), project, zone),
	}
}
