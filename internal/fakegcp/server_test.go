package fakegcp_test

import (
	"context"
	"net"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	admin "cloud.google.com/go/iam/admin/apiv1"
	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
)

func TestServerLifecycle(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New()
	srv.Stop() // safe before Start
	srv = fakegcp.New()
	if got := srv.Addr(); got != "" {
		t.Fatalf("Addr before Start = %q, want empty", got)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	host, port, err := net.SplitHostPort(srv.Addr())
	if err != nil || host != "127.0.0.1" || port == "0" {
		t.Fatalf("Addr = %q (%v), want 127.0.0.1:<bound port>", srv.Addr(), err)
	}
	if err := srv.Start("127.0.0.1:0"); err == nil {
		t.Fatal("second Start succeeded, want error")
	}
	srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	cm, err := container.NewClusterManagerClient(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cm.Close() }()
	if _, err := cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")}); err != nil {
		t.Fatalf("GetCluster over gRPC: %v", err)
	}
	srv.Stop()
	srv.Stop() // idempotent
	ctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")}); err == nil {
		t.Fatal("RPC after Stop succeeded")
	}
}

func TestRequestsCounting(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", true)
	ctx := context.Background()
	for range 2 {
		if _, err := e.cm.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: clusterName("c")}); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("nope")}) // errors count too
	_, _ = e.ic.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: "projects/-/serviceAccounts/x@y.iam.gserviceaccount.com"})
	want := map[string]int{
		"/google.container.v1.ClusterManager/ListNodePools": 2,
		"/google.container.v1.ClusterManager/GetCluster":    1,
		"/google.iam.admin.v1.IAM/GetIamPolicy":             1,
	}
	if diff := cmp.Diff(want, e.srv.Requests()); diff != "" {
		t.Errorf("Requests() mismatch (-want +got):\n%s", diff)
	}
	e.srv.ResetRequests()
	if diff := cmp.Diff(map[string]int{}, e.srv.Requests()); diff != "" {
		t.Errorf("after ResetRequests (-want +got):\n%s", diff)
	}
}

// TestWallClockOperation uses the default clock: the op finishes by itself.
func TestWallClockOperation(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New(fakegcp.WithOpLatency(20 * time.Millisecond))
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	cm, err := container.NewClusterManagerClient(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cm.Close() }()
	op := mustOp(t)(cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("cpu", "e2-standard-4", "", 0)}))
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := cm.GetOperation(ctx, &containerpb.GetOperationRequest{Name: opFullName(op)})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == containerpb.Operation_DONE {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("op still %v after 5s", got.Status)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("missing")}); status.Code(err) != codes.NotFound {
		t.Fatalf("want NotFound, got %v", err)
	}
}

func TestUnavailableInjection(t *testing.T) {
	t.Parallel()
	s := fakegcp.New()
	if err := s.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	ctx := context.Background()
	ic, err := admin.NewIamClient(ctx, s.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ic.Close() })
	named := func(id string) func(any) bool {
		return func(req any) bool {
			r, ok := req.(*adminpb.CreateServiceAccountRequest)
			return ok && r.GetAccountId() == id
		}
	}
	s.Unavailable("/google.iam.admin.v1.IAM/CreateServiceAccount", named("served-one"), 1, true)
	s.Unavailable("/google.iam.admin.v1.IAM/CreateServiceAccount", named("lost-one"), 1, false)
	create := func(id string) error {
		_, err := ic.CreateServiceAccount(ctx, &adminpb.CreateServiceAccountRequest{Name: "projects/p-fault", AccountId: id})
		return err
	}
	for _, tc := range []struct {
		id          string
		first, then codes.Code
	}{
		{"served-one", codes.Unavailable, codes.AlreadyExists}, // it took effect; only the answer was lost
		{"lost-one", codes.Unavailable, codes.OK},              // it never reached the service
		{"other-one", codes.OK, codes.AlreadyExists},           // not matched
	} {
		if got := status.Code(create(tc.id)); got != tc.first {
			t.Errorf("%s: first create %s, want %s", tc.id, got, tc.first)
		}
		if got := status.Code(create(tc.id)); got != tc.then {
			t.Errorf("%s: second create %s, want %s", tc.id, got, tc.then)
		}
	}
	if st, _ := status.FromError(create("served-one")); st.Code() == codes.Unavailable {
		t.Error("the fault fired more than n times")
	}
}
