package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func l4Spot() spec.GPUPool {
	return spec.GPUPool{
		Project: "p", Location: "us-central1", Cluster: "c", Name: "l4-dev",
		NodeLocations: []string{"us-central1-a"}, MachineType: "g2-standard-8",
		GPU: spec.GPU{Type: "nvidia-l4", Count: 1, Driver: spec.GPUDriverDefault}, Capacity: spec.CapacitySpot,
		Autoscaling:      spec.Autoscaling{MaxNodes: 4, LocationPolicy: spec.LocationPolicyAny},
		Labels:           map[string]string{"team": "vision"},
		Taints:           []spec.Taint{{Key: "cloud.google.com/gke-spot", Value: "true", Effect: "NoSchedule"}},
		ResourceLabels:   map[string]string{"owner": "ml-infra"},
		WorkloadIdentity: true,
	}
}

// asServed adds what GKE adds to a created pool: the GPU taint, goog-gke*
// resource labels, disk and service account defaults, a status.
func asServed(np *containerpb.NodePool) *containerpb.NodePool {
	np = proto.Clone(np).(*containerpb.NodePool)
	np.Config.Taints = append(np.Config.Taints, &containerpb.NodeTaint{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE})
	np.Config.ResourceLabels["goog-gke-node-pool-provisioning-model"] = "spot"
	np.Config.DiskSizeGb, np.Config.DiskType, np.Config.ServiceAccount = 100, "pd-balanced", "default"
	np.Status, np.Version = containerpb.NodePool_RUNNING, "1.33.5-gke.1080000"
	return np
}

// busyAPI refuses the first n mutations as GKE does while another
// operation runs, then answers with a finished operation.
type busyAPI struct {
	reconcile.NodePoolAPI
	n, calls int
}

func (b *busyAPI) SetNodePoolAutoscaling(context.Context, string, *containerpb.NodePoolAutoscaling) (*containerpb.Operation, error) {
	b.calls++
	if b.calls <= b.n {
		st, _ := status.New(codes.FailedPrecondition, "Cluster is running incompatible operation operation-1.").
			WithDetails(&errdetails.ErrorInfo{Reason: "CLUSTER_ALREADY_HAS_OPERATION"})
		return nil, st.Err()
	}
	return &containerpb.Operation{Name: "op", Status: containerpb.Operation_DONE}, nil
}

func (b *busyAPI) GetNodePool(context.Context, string) (*containerpb.NodePool, error) {
	p := l4Spot()
	np := asServed(reconcile.BuildNodePool(p))
	np.Autoscaling.TotalMaxNodeCount = 1
	return np, nil
}

func TestRetryWhileBusy(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		busy     int
		deadline int // sleeps allowed before the timeout
		wantErr  string
	}{
		"succeeds after two refusals": {busy: 2, deadline: 100},
		"gives up at the timeout":     {busy: 1000, deadline: 5, wantErr: "GKE is busy with another operation on cluster projects/p/locations/us-central1/clusters/c; retried 5 times"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			api := &busyAPI{n: tc.busy}
			g := reconcile.NewGPUPools(api, &gke.ClusterLocks{})
			var slept []time.Duration
			g.Sleep = func(ctx context.Context, d time.Duration) error {
				slept = append(slept, d)
				if len(slept) >= tc.deadline {
					return context.DeadlineExceeded
				}
				return nil
			}
			_, err := g.Update(context.Background(), reconcile.RefOf(l4Spot()), l4Spot(), l4Spot())
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var busy *gke.BusyError
				if !errors.As(err, &busy) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want BusyError %q", err, tc.wantErr)
				}
			}
			for i, d := range slept {
				hi := min(g.RetryBase<<i, g.RetryMax)
				if d < hi/2 || d > hi {
					t.Errorf("backoff %d = %s, want in [%s, %s]", i+1, d, hi/2, hi)
				}
			}
		})
	}
}

// A create that GKE accepts but cannot finish (stockout) leaves no pool.
func TestCreateStockoutCleansUp(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New(fakegcp.WithOpLatency(10 * time.Millisecond))
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.Container.AddCluster("p", "us-central1", "c", true)
	srv.Container.SetFailNodePoolCreate(func(np *containerpb.NodePool) *rpcstatus.Status {
		return fakegcp.GCEStockout("p", np.Locations[0])
	})
	ctx := context.Background()
	c, err := gke.New(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	c.EnableReadCache() // as the provider's own client
	t.Cleanup(func() { _ = c.Close() })
	g := reconcile.NewGPUPools(c, c.NodePoolLocks())
	p := l4Spot()
	p.Cluster = "c"
	_, err = g.Create(ctx, reconcile.RefOf(p), p)
	var failed *reconcile.CreateFailedError
	if !errors.As(err, &failed) || !failed.Cleaned {
		t.Fatalf("Create error = %v, want a cleaned-up CreateFailedError", err)
	}
	if zone, ok := failed.Stockout(); !ok || zone != "us-central1-a" {
		t.Errorf("Stockout() = %q, %v", zone, ok)
	}
	for _, want := range []string{"no spot capacity for 1 × nvidia-l4 (g2-standard-8) in zone us-central1-a", "deleted the half-created pool"} {
		if !strings.Contains(failed.Plain(), want) {
			t.Errorf("Plain() = %q, want it to contain %q", failed.Plain(), want)
		}
	}
	if _, found, err := g.Observe(ctx, reconcile.RefOf(p), p); err != nil || found {
		t.Fatalf("after the failed create: found=%v err=%v, want no pool", found, err)
	}
	srv.Container.SetFailNodePoolCreate(nil)
	got, err := g.Create(ctx, reconcile.RefOf(p), p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Observed.Status != "RUNNING" {
		t.Errorf("status after the second create = %s", got.Observed.Status)
	}
}

// Every machine shape in the catalog is one GKE accepts: the fake's own
// pairing table is the oracle (the fake does not import the catalog).
func TestCatalogAgreesWithGKE(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New(fakegcp.WithOpLatency(0))
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.Container.AddCluster("ml-training", "us-central1", "c", true)
	ctx := context.Background()
	c, err := gke.New(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	c.EnableReadCache() // as the provider's own client
	t.Cleanup(func() { _ = c.Close() })
	g := reconcile.NewGPUPools(c, c.NodePoolLocks())
	for _, a := range catalog.Accelerators() {
		for i, m := range a.MachineTypes {
			p := spec.GPUPool{Project: "ml-training", Location: "us-central1", Cluster: "c", Name: fmt.Sprintf("%s-%d", a.Type, i),
				MachineType: m.Name, GPU: spec.GPU{Type: a.Type, Count: m.GPUsPerNode}, Capacity: spec.CapacityOnDemand,
				Autoscaling: spec.Autoscaling{MaxNodes: 1}, WorkloadIdentity: true}
			if errs := p.Validate(); len(errs) > 0 {
				t.Errorf("%s: spec rejects a catalog entry: %v", m.Name, errs)
				continue
			}
			if _, err := g.Create(ctx, reconcile.RefOf(p), p); err != nil {
				t.Errorf("GKE rejects %d × %s on %s: %v", m.GPUsPerNode, a.Type, m.Name, err)
			}
		}
	}
}
