package reconcile_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Every server default GKE adds to a created pool (as the fake answers it,
// anchored in recorded GKE traffic: recorded_container_test.go in fakegcp)
// is either modelled in the spec read back or ignored by design: a pool
// created from a spec, read back as GKE serves it, differs in nothing.
func TestServedPoolHasNoDrift(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New(fakegcp.WithOpLatency(0))
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.Container.AddCluster("ml-train-prod", "us-central1", "c", true)
	ctx := context.Background()
	c, err := gke.New(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	g := reconcile.NewGPUPools(c, c.NodePoolLocks())
	g.Poll = time.Millisecond

	base := func(name string) spec.GPUPool {
		return spec.GPUPool{Project: "ml-train-prod", Location: "us-central1", Cluster: "c", Name: name, MachineType: "g2-standard-8", Capacity: spec.CapacityOnDemand,
			NodeLocations: []string{"us-central1-a"}, GPU: spec.GPU{Type: "nvidia-l4", Count: 1},
			Autoscaling: spec.Autoscaling{MaxNodes: 2}, WorkloadIdentity: true}
	}
	pools := map[string]spec.GPUPool{
		"on demand, every default": base("l4-on-demand"),
		"spot, labels, taints": func() spec.GPUPool {
			p := base("l4-spot")
			p.Capacity, p.Labels, p.ResourceLabels = spec.CapacitySpot, map[string]string{"team": "vision"}, map[string]string{"owner": "ml"}
			p.Taints = []spec.Taint{{Key: "team", Value: "vision", Effect: "NoSchedule"}}
			return p
		}(),
		"flex-start": func() spec.GPUPool {
			p := base("l4-flex")
			p.Capacity, p.MaxRunDuration = spec.CapacityFlexStart, 24*time.Hour
			return p
		}(),
		"flex-start, queued (GKE adds the gke-queued taint and location policy ANY)": func() spec.GPUPool {
			p := base("l4-queued")
			p.Capacity, p.QueuedProvisioning = spec.CapacityFlexStart, true
			return p
		}(),
		"A100 at MIG 1g.5gb with time-sharing": func() spec.GPUPool {
			p := base("a100-mig")
			p.GPU, p.MachineType = spec.GPU{Type: "nvidia-tesla-a100", Count: 1, PartitionSize: "1g.5gb",
				Sharing: &spec.GPUSharing{Strategy: spec.SharingTimeSharing, MaxClients: 3}}, "a2-highgpu-1g"
			return p
		}(),
		"L4 with MPS": func() spec.GPUPool {
			p := base("l4-mps")
			p.GPU.Sharing = &spec.GPUSharing{Strategy: spec.SharingMPS, MaxClients: 4}
			return p
		}(),
		"H100 with disk and driver": func() spec.GPUPool {
			p := base("h100")
			p.GPU, p.MachineType = spec.GPU{Type: "nvidia-h100-80gb", Count: 8, Driver: spec.GPUDriverLatest}, "a3-highgpu-8g"
			p.DiskSizeGB, p.DiskType = 500, "pd-ssd"
			return p
		}(),
	}
	for name, p := range pools {
		t.Run(name, func(t *testing.T) {
			// One cluster runs one operation at a time: creates are serialized
			// by the reconciler's locks, so the subtests may run together.
			t.Parallel()
			if errs := p.Validate(); len(errs) > 0 {
				t.Fatalf("the test's spec is not valid: %v", errs)
			}
			res, err := g.Create(ctx, reconcile.RefOf(p), p)
			if err != nil {
				t.Fatal(err)
			}
			if d := g.Diff(p, res.Observed); len(d) > 0 {
				t.Errorf("after create, Diff = %v, want none: a server default is read as drift", d)
			}
			got, found, err := g.Observe(ctx, reconcile.RefOf(p), p)
			if err != nil || !found {
				t.Fatalf("Observe: found=%v err=%v", found, err)
			}
			if d := g.Diff(p, got); len(d) > 0 {
				t.Errorf("on read, Diff = %v, want none", d)
			}
			// Flex-start pools, queued ones too, are created with flex_start
			// (GKE's docs: --flex-start with --enable-queued-provisioning).
			if model := got.EffectiveResourceLabels["goog-gke-node-pool-provisioning-model"]; p.Capacity == spec.CapacityFlexStart && model != "flex-start" {
				t.Errorf("provisioning model %q, want flex-start", model)
			}
			again, err := g.Update(ctx, reconcile.RefOf(p), p, p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got.Spec, again.Observed.Spec); diff != "" {
				t.Errorf("an update with nothing to change changed what is read back (-before +after):\n%s", diff)
			}
		})
	}
}
