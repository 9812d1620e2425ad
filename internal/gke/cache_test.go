package gke_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
)

const (
	cluster = "projects/p/locations/us-central1/clusters/training"
	list    = "/google.container.v1.ClusterManager/ListNodePools"
	get     = "/google.container.v1.ClusterManager/GetCluster"
)

func startGKE(t *testing.T) (*fakegcp.Server, *gke.Client) {
	t.Helper()
	srv := fakegcp.New(fakegcp.WithOpLatency(20 * time.Millisecond))
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.Container.AddCluster("p", "us-central1", "training", true)
	c, err := gke.New(context.Background(), srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	c.EnableReadCache() // as the provider's own client
	t.Cleanup(func() { _ = c.Close() })
	return srv, c
}

// wait polls the operation as internal/reconcile does.
func wait(t *testing.T, c *gke.Client, op *containerpb.Operation, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	name := "projects/p/locations/us-central1/operations/" + op.GetName()
	for op.GetStatus() != containerpb.Operation_DONE {
		time.Sleep(5 * time.Millisecond)
		if op, err = c.GetOperation(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
}

func pool(name string, maxNodes int32) *containerpb.NodePool {
	return &containerpb.NodePool{
		Name: name, InitialNodeCount: 0,
		Config: &containerpb.NodeConfig{
			MachineType:  "g2-standard-8",
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1}},
		},
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: maxNodes, LocationPolicy: containerpb.NodePoolAutoscaling_ANY},
	}
}

// observed is what a read returns, or "absent".
func observed(t *testing.T, c *gke.Client, name string) string {
	t.Helper()
	np, err := c.GetNodePool(context.Background(), cluster+"/nodePools/"+name)
	switch {
	case status.Code(err) == codes.NotFound:
		return "absent"
	case err != nil:
		t.Fatal(err)
	}
	return fmt.Sprintf("%s max=%d", np.GetStatus(), np.GetAutoscaling().GetTotalMaxNodeCount())
}

// An apply reads (cache filled: the pool is absent), creates, and reads
// again at once: every read after a write sees it, never the cached list.
func TestNodePoolReadsAfterWritesAreFresh(t *testing.T) {
	t.Parallel()
	_, c := startGKE(t)
	ctx := context.Background()
	var got []string
	got = append(got, observed(t, c, "dev"))
	op, err := c.CreateNodePool(ctx, cluster, pool("dev", 2))
	wait(t, c, op, err)
	got = append(got, observed(t, c, "dev"))
	op, err = c.SetNodePoolAutoscaling(ctx, cluster+"/nodePools/dev",
		&containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 5, LocationPolicy: containerpb.NodePoolAutoscaling_ANY})
	wait(t, c, op, err)
	got = append(got, observed(t, c, "dev"))
	op, err = c.DeleteNodePool(ctx, cluster+"/nodePools/dev")
	wait(t, c, op, err)
	got = append(got, observed(t, c, "dev"))
	want := []string{"absent", "RUNNING max=2", "RUNNING max=5", "absent"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// While an operation runs, a poll of the pool is never answered from the
// cache: it sees PROVISIONING, then RUNNING.
func TestNodePoolInTransitionIsPolled(t *testing.T) {
	t.Parallel()
	srv, c := startGKE(t)
	srv.Container.SetOpLatency(150 * time.Millisecond)
	op, err := c.CreateNodePool(context.Background(), cluster, pool("slow", 2))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for !seen["RUNNING max=2"] && time.Now().Before(deadline) {
		seen[observed(t, c, "slow")] = true
		time.Sleep(10 * time.Millisecond)
	}
	if !seen["PROVISIONING max=2"] || !seen["RUNNING max=2"] {
		t.Errorf("poll saw %v, want PROVISIONING then RUNNING", seen)
	}
	wait(t, c, op, nil)
}

// A plan: any number of pools of one cluster cost one ListNodePools, and
// the cluster one GetCluster, however many readers ask at once.
func TestPlanReadsEachClusterOnce(t *testing.T) {
	t.Parallel()
	srv, c := startGKE(t)
	ctx := context.Background()
	for _, name := range []string{"a", "b", "c"} {
		op, err := c.CreateNodePool(ctx, cluster, pool(name, 1))
		wait(t, c, op, err)
	}
	srv.ResetRequests()
	done := make(chan struct{})
	for range 10 {
		go func() {
			defer func() { done <- struct{}{} }()
			for _, name := range []string{"a", "b", "c"} {
				if got := observed(t, c, name); got != "RUNNING max=1" {
					t.Errorf("pool %s: %s", name, got)
				}
			}
			if _, err := c.WorkloadIdentity(ctx, cluster); err != nil {
				t.Error(err)
			}
		}()
	}
	for range 10 {
		<-done
	}
	got := srv.Requests()
	if diff := cmp.Diff(map[string]int{list: 1, get: 1}, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
