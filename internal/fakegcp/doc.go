// Package fakegcp is an in-process fake of GKE's ClusterManager
// (google.container.v1) and of the IAM admin API (google.iam.admin.v1:
// service accounts and their IAM policies). Both are served over real gRPC on
// one loopback listener, so the official Go clients
// (cloud.google.com/go/container/apiv1 and cloud.google.com/go/iam/admin/apiv1)
// talk to it unchanged via Server.ClientOptions; the Compute Engine REST
// client (cloud.google.com/go/compute/apiv1) reaches Server.Compute at
// http://Server.ComputeAddr(). It is used by tests and by
// the long-running local sandbox, so it does not depend on package testing.
//
//	srv := fakegcp.New(fakegcp.WithOpLatency(time.Second))
//	if err := srv.Start("127.0.0.1:0"); err != nil { ... }
//	defer srv.Stop()
//	srv.Container.AddCluster("my-proj", "us-central1", "ml", true)
//	cm, err := container.NewClusterManagerClient(ctx, srv.ClientOptions()...)
//
// # Faithful to GKE / IAM
//
//   - Mutating calls return an Operation in RUNNING that becomes DONE after
//     the configured latency. Operation.Name is the short id
//     ("operation-…"), SelfLink the full URL; GetOperation takes
//     "projects/P/locations/L/operations/ID". Failed operations are DONE with
//     Operation.Error set.
//   - One mutating operation per cluster: a concurrent mutation gets
//     FAILED_PRECONDITION "Cluster is running incompatible operation <op>."
//     with ErrorInfo reason CLUSTER_ALREADY_HAS_OPERATION. Optionally
//     (WithMaxConcurrentNodePoolOps) operations on different node pools may
//     overlap up to a limit, then RESOURCE_EXHAUSTED.
//   - Machine type / accelerator pairing for A2, A3, G2 (fixed type and count;
//     omitted accelerators are filled in) and N1 (T4, P4, V100).
//   - Server-side additions: the nvidia.com/gpu=present:NoSchedule taint on
//     GPU pools, the goog-gke-node-pool-provisioning-model resource label,
//     disk/image/metadata/management defaults, a new node pool etag on every
//     change, PROVISIONING/RECONCILING/STOPPING/ERROR pool states.
//   - UpdateNodePool accepts one field group per request.
//   - IAM policies: etag read-modify-write (stale etag: ABORTED, no etag:
//     blind write), NOT_FOUND for unknown service accounts, and
//     "Identity Pool does not exist" unless some cluster of the project has
//     Workload Identity enabled.
//   - GCEStockout reproduces the error text of a GPU stockout.
//
// # Simplified
//
//   - Operations complete lazily: the state change is applied by the first
//     RPC that observes the clock after the deadline (clients poll, so this is
//     invisible to them). The clock is injectable (WithClock).
//   - Only the RPCs listed in container.go, cluster.go, nodepool*.go and
//     iam.go exist; the others return UNIMPLEMENTED. No auth, no
//     pagination, no Compute Engine resources behind pools (instance group
//     URLs are synthetic; sizes are kept in NodePoolSize).
//   - Compute Engine (compute.go): three REST methods over HTTP on a
//     listener of their own (ComputeAddr): regions.get and projects.get
//     with settable GPU quotas, subnetworks.get with settable Private
//     Google Access, and 401/403 in Compute's error body on demand; the
//     quotas do not limit what the Container fake creates.
//   - Error messages other than those named above are plausible, not copied.
//     Operation types for node pool updates are approximations
//     (UPDATE_CLUSTER, UPGRADE_NODES for version/image changes).
//   - Validation is a subset: resource name syntax, spot vs preemptible,
//     accelerators, autoscaling limits, queued provisioning prerequisites.
//   - State lives in memory only and is lost on Stop.
package fakegcp
