package fakegcp_test

import (
	"context"
	"regexp"
	"testing"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
)

var gpuTaint = &containerpb.NodeTaint{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}

// TestServerAddedTaintsLabelsAndDefaults: GKE adds the GPU taint, the
// provisioning-model resource label (keeping user labels) and defaults.
func TestServerAddedTaintsLabelsAndDefaults(t *testing.T) {
	t.Parallel()
	e := start(t, fakegcp.WithMaxConcurrentNodePoolOps(100))
	e.srv.Container.AddCluster(project, location, "c", true)
	userTaint := &containerpb.NodeTaint{Key: "team", Value: "ml", Effect: containerpb.NodeTaint_NO_EXECUTE}
	tests := []struct {
		name       string
		pool       *containerpb.NodePool
		wantTaints []*containerpb.NodeTaint
		wantLabels map[string]string
	}{
		{
			name:       "cpu-on-demand",
			pool:       gpuPool("cpu-on-demand", "e2-standard-4", "", 0),
			wantLabels: map[string]string{"goog-gke-node-pool-provisioning-model": "on-demand"},
		},
		{
			name: "l4-spot",
			pool: func() *containerpb.NodePool {
				np := gpuPool("l4-spot", "g2-standard-4", "nvidia-l4", 1)
				np.Config.Spot = true
				np.Config.ResourceLabels = map[string]string{"cost-center": "ml"}
				return np
			}(),
			wantTaints: []*containerpb.NodeTaint{gpuTaint},
			wantLabels: map[string]string{"cost-center": "ml", "goog-gke-node-pool-provisioning-model": "spot"},
		},
		{
			name: "h100-flex",
			pool: func() *containerpb.NodePool {
				np := gpuPool("h100-flex", "a3-highgpu-8g", "nvidia-h100-80gb", 8)
				np.Config.FlexStart = new(true)
				np.Config.Taints = []*containerpb.NodeTaint{userTaint}
				return np
			}(),
			wantTaints: []*containerpb.NodeTaint{userTaint, gpuTaint},
			wantLabels: map[string]string{"goog-gke-node-pool-provisioning-model": "flex-start"},
		},
		{
			name: "a100-queued",
			pool: func() *containerpb.NodePool {
				np := gpuPool("a100-queued", "a2-highgpu-1g", "nvidia-tesla-a100", 1)
				np.InitialNodeCount = 0
				np.Autoscaling = &containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 4}
				np.QueuedProvisioning = &containerpb.NodePool_QueuedProvisioning{Enabled: true}
				np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
				np.Config.Taints = []*containerpb.NodeTaint{gpuTaint} // user-supplied: not duplicated
				return np
			}(),
			// Recorded (k8s-config-connector containernodepool-queuedprovisioning/_http.log):
			// the gke-queued taint, and "on-demand" without flex_start.
			wantTaints: []*containerpb.NodeTaint{gpuTaint, {Key: "cloud.google.com/gke-queued", Value: "true", Effect: containerpb.NodeTaint_NO_SCHEDULE}},
			wantLabels: map[string]string{"goog-gke-node-pool-provisioning-model": "on-demand"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mustOp(t)(e.cm.CreateNodePool(context.Background(), &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: tt.pool}))
			np := e.getPool(t, "c", tt.name)
			if diff := cmp.Diff(tt.wantTaints, np.Config.Taints, protocmp.Transform()); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantLabels, np.Config.ResourceLabels); diff != "" {
				t.Errorf("resource labels (-want +got):\n%s", diff)
			}
			wantDefaults := &containerpb.NodePool{
				Config: &containerpb.NodeConfig{
					DiskSizeGb: 100, DiskType: "pd-balanced", ImageType: "COS_CONTAINERD", ServiceAccount: "default",
					OauthScopes: []string{
						"https://www.googleapis.com/auth/devstorage.read_only", "https://www.googleapis.com/auth/logging.write",
						"https://www.googleapis.com/auth/monitoring", "https://www.googleapis.com/auth/service.management.readonly",
						"https://www.googleapis.com/auth/servicecontrol", "https://www.googleapis.com/auth/trace.append",
					},
					Metadata:               map[string]string{"disable-legacy-endpoints": "true"},
					WorkloadMetadataConfig: &containerpb.WorkloadMetadataConfig{Mode: containerpb.WorkloadMetadataConfig_GKE_METADATA},
				},
				Management:        &containerpb.NodeManagement{AutoRepair: true, AutoUpgrade: true},
				MaxPodsConstraint: &containerpb.MaxPodsConstraint{MaxPodsPerNode: 110},
				Locations:         []string{"us-central1-a", "us-central1-b", "us-central1-c"},
				Version:           "1.33.5-gke.1080000",
				SelfLink:          "https://container.googleapis.com/v1/" + poolName("c", tt.name),
			}
			got := &containerpb.NodePool{
				Config: &containerpb.NodeConfig{
					DiskSizeGb: np.Config.DiskSizeGb, DiskType: np.Config.DiskType, ImageType: np.Config.ImageType,
					ServiceAccount: np.Config.ServiceAccount, OauthScopes: np.Config.OauthScopes, Metadata: np.Config.Metadata,
					WorkloadMetadataConfig: np.Config.WorkloadMetadataConfig,
				},
				Management: np.Management, MaxPodsConstraint: np.MaxPodsConstraint, Locations: np.Locations,
				Version: np.Version, SelfLink: np.SelfLink,
			}
			if diff := cmp.Diff(wantDefaults, got, protocmp.Transform()); diff != "" {
				t.Errorf("defaults (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGCEStockoutMessage(t *testing.T) {
	t.Parallel()
	st := fakegcp.GCEStockout("my-proj", "us-central1-b")
	re := regexp.MustCompile(`^Google Compute Engine: Not all instances running in IGM after 30m0s\. Expected 1, running 0, transitioning 0\. ` +
		`Current errors: \[GCE_STOCKOUT\]: Instance 'gke-[-a-z0-9]+' creation failed: The zone 'projects/my-proj/zones/us-central1-b' ` +
		`does not have enough resources available to fulfill the request\. Try a different zone, or try again later\.$`)
	if st.Code != int32(codes.ResourceExhausted) || !re.MatchString(st.Message) {
		t.Fatalf("GCEStockout = code %d %q", st.Code, st.Message)
	}
}

// TestNodePoolCreateFailureInjection: the op ends DONE with the injected
// error, and the pool is left in ERROR with the message.
func TestNodePoolCreateFailureInjection(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", false)
	stockout := fakegcp.GCEStockout(project, "us-central1-a")
	e.srv.Container.SetFailNodePoolCreate(func(np *containerpb.NodePool) *rpcstatus.Status {
		if len(np.GetConfig().GetAccelerators()) > 0 {
			return stockout
		}
		return nil
	})
	ctx := context.Background()
	op := mustOp(t)(e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("l4", "g2-standard-4", "nvidia-l4", 1)}))
	done := e.finish(t, op)
	if diff := cmp.Diff(stockout, done.Error, protocmp.Transform()); diff != "" {
		t.Errorf("op.Error (-want +got):\n%s", diff)
	}
	if done.Error.GetCode() != 8 || done.StatusMessage != stockout.Message {
		t.Errorf("op: code %d, status message %q", done.Error.GetCode(), done.StatusMessage)
	}
	np := e.getPool(t, "c", "l4")
	if np.Status != containerpb.NodePool_ERROR || np.StatusMessage != stockout.Message {
		t.Errorf("pool: status %v message %q, want ERROR with the stockout message", np.Status, np.StatusMessage)
	}
	// The hook is selective: a CPU pool succeeds.
	op = mustOp(t)(e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("cpu", "e2-standard-4", "", 0)}))
	if done := e.finish(t, op); done.Error != nil {
		t.Errorf("cpu pool op error: %v", done.Error)
	}
	// A failed pool can be deleted.
	mustOp(t)(e.cm.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: poolName("c", "l4")}))
}

func TestUpdateNodePool(t *testing.T) {
	t.Parallel()
	labels := &containerpb.NodeLabels{Labels: map[string]string{"team": "ml"}}
	tests := []struct {
		name     string
		req      *containerpb.UpdateNodePoolRequest
		wantCode codes.Code
		wantMsg  []string
		check    func(t *testing.T, np *containerpb.NodePool) // after the op is DONE
	}{
		{name: "nothing", req: &containerpb.UpdateNodePoolRequest{}, wantCode: codes.InvalidArgument},
		{
			name:     "labels+taints",
			req:      &containerpb.UpdateNodePoolRequest{Labels: labels, Taints: &containerpb.NodeTaints{}},
			wantCode: codes.InvalidArgument, wantMsg: []string{"labels", "taints"},
		},
		{
			name:     "version+resource_labels",
			req:      &containerpb.UpdateNodePoolRequest{NodeVersion: "1.34.0-gke.1", ResourceLabels: &containerpb.ResourceLabels{}},
			wantCode: codes.InvalidArgument, wantMsg: []string{"node_version/image_type", "resource_labels"},
		},
		{
			name:     "locations+workload_metadata",
			req:      &containerpb.UpdateNodePoolRequest{Locations: []string{"us-central1-a"}, WorkloadMetadataConfig: &containerpb.WorkloadMetadataConfig{}},
			wantCode: codes.InvalidArgument, wantMsg: []string{"locations", "workload_metadata_config"},
		},
		{
			name:     "accelerators+machine_type",
			req:      &containerpb.UpdateNodePoolRequest{MachineType: "g2-standard-4", Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1}}},
			wantCode: codes.InvalidArgument, wantMsg: []string{"accelerators", "machine_type"},
		},
		{
			name: "labels",
			req:  &containerpb.UpdateNodePoolRequest{Labels: labels},
			check: func(t *testing.T, np *containerpb.NodePool) {
				if diff := cmp.Diff(labels.Labels, np.Config.Labels); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "labels with current version echoed",
			req:  &containerpb.UpdateNodePoolRequest{Labels: labels, NodeVersion: "1.33.5-gke.1080000", ImageType: "cos_containerd"},
		},
		{
			name: "resource_labels keep provisioning model",
			req:  &containerpb.UpdateNodePoolRequest{ResourceLabels: &containerpb.ResourceLabels{Labels: map[string]string{"env": "dev"}}},
			check: func(t *testing.T, np *containerpb.NodePool) {
				want := map[string]string{"env": "dev", "goog-gke-node-pool-provisioning-model": "on-demand"}
				if diff := cmp.Diff(want, np.Config.ResourceLabels); diff != "" {
					t.Errorf("resource labels (-want +got):\n%s", diff)
				}
			},
		},
		{
			name: "version",
			req:  &containerpb.UpdateNodePoolRequest{NodeVersion: "1.34.1-gke.100"},
			check: func(t *testing.T, np *containerpb.NodePool) {
				if np.Version != "1.34.1-gke.100" {
					t.Errorf("version = %q", np.Version)
				}
			},
		},
		{
			name: "locations",
			req:  &containerpb.UpdateNodePoolRequest{Locations: []string{"us-central1-f"}},
			check: func(t *testing.T, np *containerpb.NodePool) {
				if diff := cmp.Diff([]string{"us-central1-f"}, np.Locations); diff != "" || len(np.InstanceGroupUrls) != 1 {
					t.Errorf("locations (-want +got):\n%s, igs %v", diff, np.InstanceGroupUrls)
				}
			},
		},
		{
			name:     "locations outside region",
			req:      &containerpb.UpdateNodePoolRequest{Locations: []string{"europe-west4-a"}},
			wantCode: codes.InvalidArgument,
		},
		{
			name: "machine type to GPU shape",
			req:  &containerpb.UpdateNodePoolRequest{MachineType: "g2-standard-24", DiskSizeGb: 200},
			check: func(t *testing.T, np *containerpb.NodePool) {
				if np.Config.MachineType != "g2-standard-24" || np.Config.DiskSizeGb != 200 || len(np.Config.Accelerators) != 1 ||
					np.Config.Accelerators[0].AcceleratorCount != 2 {
					t.Errorf("config = %v", np.Config)
				}
				if diff := cmp.Diff([]*containerpb.NodeTaint{gpuTaint}, np.Config.Taints, protocmp.Transform()); diff != "" {
					t.Errorf("taints (-want +got):\n%s", diff)
				}
			},
		},
		{
			name:     "accelerators invalid for machine type",
			req:      &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-t4", AcceleratorCount: 1}}},
			wantCode: codes.InvalidArgument, wantMsg: []string{`"e2-medium"`, `"nvidia-tesla-t4"`},
		},
		{
			name:     "stale etag",
			req:      &containerpb.UpdateNodePoolRequest{Labels: labels, Etag: "stale"},
			wantCode: codes.Aborted,
		},
		{
			name:     "not simulated",
			req:      &containerpb.UpdateNodePoolRequest{FastSocket: &containerpb.FastSocket{}},
			wantCode: codes.Unimplemented,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t) // own server: each subtest drives its own clock
			e.srv.Container.AddCluster(project, location, "c", false)
			ctx := context.Background()
			const pool = "default-pool" // e2-medium seeded by AddCluster
			req := tt.req
			req.Name = poolName("c", pool)
			op, err := e.cm.UpdateNodePool(ctx, req)
			if tt.wantCode != codes.OK {
				wantCode(t, err, tt.wantCode, tt.wantMsg...)
				return
			}
			mustOp(t)(op, err)
			if np := e.getPool(t, "c", pool); np.Status != containerpb.NodePool_RECONCILING {
				t.Errorf("pool during update: %v, want RECONCILING", np.Status)
			}
			e.clk.Advance(latency)
			np := e.getPool(t, "c", pool)
			if np.Status != containerpb.NodePool_RUNNING {
				t.Errorf("pool after update: %v, want RUNNING", np.Status)
			}
			if tt.check != nil {
				tt.check(t, np)
			}
		})
	}
}

// TestNodePoolEtagChangesOnEveryMutation and etag-guarded updates.
func TestNodePoolEtagChangesOnEveryMutation(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	name := poolName("c", "np")
	seen := map[string]string{}
	observe := func(step string) string {
		t.Helper()
		etag := e.getPool(t, "c", "np").Etag
		if prev, dup := seen[etag]; dup || etag == "" {
			t.Errorf("%s: etag %q not new (seen at %q)", step, etag, prev)
		}
		seen[etag] = step
		return etag
	}
	steps := []struct {
		name string
		call func(etag string) (*containerpb.Operation, error)
	}{
		{"create", func(string) (*containerpb.Operation, error) {
			return e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("np", "e2-standard-4", "", 0)})
		}},
		{"update labels (etag-guarded)", func(etag string) (*containerpb.Operation, error) {
			return e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: name, Etag: etag, Labels: &containerpb.NodeLabels{Labels: map[string]string{"a": "1"}}})
		}},
		{"set size", func(string) (*containerpb.Operation, error) {
			return e.cm.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: name, NodeCount: 3})
		}},
		{"set autoscaling", func(string) (*containerpb.Operation, error) {
			return e.cm.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: name, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 2}})
		}},
		{"set management", func(string) (*containerpb.Operation, error) {
			return e.cm.SetNodePoolManagement(ctx, &containerpb.SetNodePoolManagementRequest{Name: name, Management: &containerpb.NodeManagement{AutoRepair: true}})
		}},
		{"update taints", func(string) (*containerpb.Operation, error) {
			return e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: name, Taints: &containerpb.NodeTaints{}})
		}},
	}
	etag := ""
	for _, st := range steps {
		op := mustOp(t)(st.call(etag))
		observe(st.name + " (running)")
		e.finish(t, op)
		etag = observe(st.name + " (done)")
	}
	_, err := e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: name, Etag: "0123abcd", Labels: &containerpb.NodeLabels{}})
	wantCode(t, err, codes.Aborted, "etag")
	op := mustOp(t)(e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: name, Etag: etag, Labels: &containerpb.NodeLabels{}}))
	e.finish(t, op)
}

func TestSetNodePoolSizeAndAutoscaling(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	name := poolName("c", "default-pool")
	if n, ok := e.srv.Container.NodePoolSize(name); !ok || n != 3 {
		t.Fatalf("seeded size = %d, %v; want 3", n, ok)
	}
	_, err := e.cm.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: name, NodeCount: -1})
	wantCode(t, err, codes.InvalidArgument)
	_, err = e.cm.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: name, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: 5, MaxNodeCount: 2}})
	wantCode(t, err, codes.InvalidArgument)
	_, err = e.cm.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: name, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 2, TotalMaxNodeCount: 6}})
	wantCode(t, err, codes.InvalidArgument)

	as := &containerpb.NodePoolAutoscaling{Enabled: true, MinNodeCount: 1, MaxNodeCount: 5, LocationPolicy: containerpb.NodePoolAutoscaling_ANY}
	op := mustOp(t)(e.cm.SetNodePoolAutoscaling(ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: name, Autoscaling: as}))
	if np := e.getPool(t, "c", "default-pool"); np.Autoscaling != nil {
		t.Errorf("autoscaling applied before op DONE: %v", np.Autoscaling)
	}
	e.finish(t, op)
	if diff := cmp.Diff(as, e.getPool(t, "c", "default-pool").Autoscaling, protocmp.Transform()); diff != "" {
		t.Errorf("autoscaling (-want +got):\n%s", diff)
	}

	// Resizing an autoscaled pool is allowed, as in GKE.
	op = mustOp(t)(e.cm.SetNodePoolSize(ctx, &containerpb.SetNodePoolSizeRequest{Name: name, NodeCount: 4}))
	if n, _ := e.srv.Container.NodePoolSize(name); n != 3 {
		t.Errorf("size before op DONE = %d, want 3", n)
	}
	e.finish(t, op)
	if n, _ := e.srv.Container.NodePoolSize(name); n != 4 {
		t.Errorf("size after op DONE = %d, want 4", n)
	}
}

func TestNodePoolReadsAndDelete(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", false)
	ctx := context.Background()
	mustOp(t)(e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("gpu", "n1-standard-4", "nvidia-tesla-t4", 1)}))
	e.clk.Advance(latency)
	_, err := e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("c"), NodePool: gpuPool("gpu", "e2-standard-4", "", 0)})
	wantCode(t, err, codes.AlreadyExists)

	poolNames := func() []string {
		t.Helper()
		resp, err := e.cm.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: clusterName("c")})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, np := range resp.NodePools {
			names = append(names, np.Name)
		}
		return names
	}
	if diff := cmp.Diff([]string{"default-pool", "gpu"}, poolNames()); diff != "" {
		t.Errorf("ListNodePools (-want +got):\n%s", diff)
	}
	c, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")})
	if err != nil || len(c.NodePools) != 2 {
		t.Fatalf("GetCluster: %v, %v", c, err)
	}
	// Deprecated project/zone/cluster/pool addressing.
	if _, err := e.cm.GetNodePool(ctx, &containerpb.GetNodePoolRequest{ProjectId: project, Zone: location, ClusterId: "c", NodePoolId: "gpu"}); err != nil {
		t.Errorf("GetNodePool by ids: %v", err)
	}

	op := mustOp(t)(e.cm.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: poolName("c", "gpu")}))
	if np := e.getPool(t, "c", "gpu"); np.Status != containerpb.NodePool_STOPPING {
		t.Errorf("pool during delete: %v, want STOPPING", np.Status)
	}
	e.finish(t, op)
	if diff := cmp.Diff([]string{"default-pool"}, poolNames()); diff != "" {
		t.Errorf("ListNodePools after delete (-want +got):\n%s", diff)
	}

	notFound := []struct {
		name string
		call func() error
	}{
		{"GetNodePool deleted", func() error {
			_, err := e.cm.GetNodePool(ctx, &containerpb.GetNodePoolRequest{Name: poolName("c", "gpu")})
			return err
		}},
		{"DeleteNodePool deleted", func() error {
			_, err := e.cm.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: poolName("c", "gpu")})
			return err
		}},
		{"UpdateNodePool missing", func() error {
			_, err := e.cm.UpdateNodePool(ctx, &containerpb.UpdateNodePoolRequest{Name: poolName("c", "nope"), Labels: &containerpb.NodeLabels{}})
			return err
		}},
		{"GetCluster missing", func() error {
			_, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("nope")})
			return err
		}},
		{"ListNodePools missing cluster", func() error {
			_, err := e.cm.ListNodePools(ctx, &containerpb.ListNodePoolsRequest{Parent: clusterName("nope")})
			return err
		}},
		{"CreateNodePool missing cluster", func() error {
			_, err := e.cm.CreateNodePool(ctx, &containerpb.CreateNodePoolRequest{Parent: clusterName("nope"), NodePool: gpuPool("x", "e2-standard-4", "", 0)})
			return err
		}},
	}
	for _, tt := range notFound {
		if err := tt.call(); err == nil || codes.NotFound != statusCode(err) {
			t.Errorf("%s: want NotFound, got %v", tt.name, err)
		}
	}
}

// TestUpdateNodePoolKeepsGPUTaint: GKE's nvidia.com/gpu taint is server-owned:
// replacing the taints of a GPU pool keeps it, and attaching GPUs adds it.
func TestUpdateNodePoolKeepsGPUTaint(t *testing.T) {
	t.Parallel()
	userTaint := &containerpb.NodeTaint{Key: "team", Value: "ml", Effect: containerpb.NodeTaint_NO_EXECUTE}
	tests := []struct {
		name       string
		pool       *containerpb.NodePool
		req        *containerpb.UpdateNodePoolRequest
		wantTaints []*containerpb.NodeTaint
	}{
		{
			name:       "replace taints of GPU pool",
			pool:       gpuPool("np", "n1-standard-4", "nvidia-tesla-t4", 1),
			req:        &containerpb.UpdateNodePoolRequest{Taints: &containerpb.NodeTaints{Taints: []*containerpb.NodeTaint{userTaint}}},
			wantTaints: []*containerpb.NodeTaint{userTaint, gpuTaint},
		},
		{
			name:       "clear taints of GPU pool",
			pool:       gpuPool("np", "g2-standard-4", "nvidia-l4", 1),
			req:        &containerpb.UpdateNodePoolRequest{Taints: &containerpb.NodeTaints{}},
			wantTaints: []*containerpb.NodeTaint{gpuTaint},
		},
		{
			name:       "attach GPUs to N1 pool",
			pool:       gpuPool("np", "n1-standard-4", "", 0),
			req:        &containerpb.UpdateNodePoolRequest{Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-t4", AcceleratorCount: 1}}},
			wantTaints: []*containerpb.NodeTaint{gpuTaint},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			e.srv.Container.AddCluster(project, location, "c", false)
			e.givenPool(t, tt.pool)
			tt.req.Name = poolName("c", "np")
			e.finish(t, mustOp(t)(e.cm.UpdateNodePool(context.Background(), tt.req)))
			if diff := cmp.Diff(tt.wantTaints, e.getPool(t, "c", "np").Config.Taints, protocmp.Transform()); diff != "" {
				t.Errorf("taints (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNodePoolEtagChangesOnDeleteAndClusterCreate covers the mutations
// TestNodePoolEtagChangesOnEveryMutation does not: a pool entering STOPPING,
// and the pools of a new cluster becoming RUNNING.
func TestNodePoolEtagChangesOnDeleteAndClusterCreate(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	op := mustOp(t)(e.cm.CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent, Cluster: &containerpb.Cluster{Name: "c", InitialNodeCount: 1}}))
	provisioning := e.getPool(t, "c", "default-pool").Etag
	e.finish(t, op)
	running := e.getPool(t, "c", "default-pool").Etag
	if running == provisioning {
		t.Errorf("etag %q unchanged when CreateCluster completed", running)
	}
	mustOp(t)(e.cm.DeleteNodePool(ctx, &containerpb.DeleteNodePoolRequest{Name: poolName("c", "default-pool")}))
	if stopping := e.getPool(t, "c", "default-pool").Etag; stopping == running {
		t.Errorf("etag %q unchanged by DeleteNodePool", stopping)
	}
}
