package doctor

import (
	"errors"
	"net/http"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"
)

const quotaTestCluster = "projects/p/locations/us-central1/clusters/training"

func quotaH100Pool(name string, spot, flex bool, maxNodes int32) *containerpb.NodePool {
	np := &containerpb.NodePool{Name: name, Status: containerpb.NodePool_RUNNING,
		Config: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g", Spot: spot,
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8}}},
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: maxNodes}}
	if flex {
		np.Config.FlexStart = proto.Bool(true)
	}
	return np
}

func quotaRegion(quotas map[string]float64) *computepb.Region {
	r := &computepb.Region{Name: proto.String("us-central1")}
	for m, l := range quotas {
		r.Quotas = append(r.Quotas, &computepb.Quota{Metric: proto.String(m), Limit: proto.Float64(l), Usage: proto.Float64(0)})
	}
	return r
}

func quotaSnapshot(pools []*containerpb.NodePool, quotas map[string]float64, global float64, regionErr error) *Snapshot {
	s := &Snapshot{Cluster: quotaTestCluster, Pools: pools, PoolsRead: Read{What: "GKE cluster " + quotaTestCluster},
		GKECluster: &containerpb.Cluster{Name: "training", CurrentMasterVersion: "1.33.5-gke.1080000",
			WorkloadIdentityConfig: &containerpb.WorkloadIdentityConfig{WorkloadPool: "p.svc.id.goog"},
			NetworkConfig:          &containerpb.NetworkConfig{DatapathProvider: containerpb.DatapathProvider_ADVANCED_DATAPATH}},
		GCP: GCPSnapshot{Computed: true,
			Regions:     map[string]*computepb.Region{"p/us-central1": quotaRegion(quotas)},
			RegionReads: map[string]Read{"p/us-central1": {What: "Compute Engine quotas of region us-central1 in project p", Err: regionErr}},
			Projects: map[string]*computepb.Project{"p": {Quotas: []*computepb.Quota{
				{Metric: proto.String(GlobalGPUMetric), Limit: proto.Float64(global)}}}},
			ProjectRead: map[string]Read{"p": {What: "Compute Engine quotas of project p"}}}}
	if regionErr != nil {
		s.GCP.RegionReads["p/us-central1"] = Read{What: "Compute Engine quotas of region us-central1 in project p", Err: regionErr, Fix: computeFix(regionErr, "p", "quota")}
	}
	return s
}

func TestQuota(t *testing.T) {
	t.Parallel()
	spot, flex, onDemand := quotaH100Pool("h100-spot", true, false, 2), quotaH100Pool("h100-flex", false, true, 2), quotaH100Pool("h100", false, false, 1)
	type finding struct{ ID, Object, Message string }
	for name, c := range map[string]struct {
		pools     []*containerpb.NodePool
		quotas    map[string]float64
		global    float64
		regionErr error
		want      []finding
		wantNote  string
	}{
		"spot and flex over the preemptible quota": {pools: []*containerpb.NodePool{spot, flex},
			quotas: map[string]float64{"PREEMPTIBLE_NVIDIA_H100_GPUS": 16, "NVIDIA_H100_GPUS": 64}, global: 100,
			want: []finding{{"DOC024", "quota PREEMPTIBLE_NVIDIA_H100_GPUS (us-central1, project p)",
				"pools h100-flex and h100-spot may scale to 32 H100 in us-central1 (project p); PREEMPTIBLE_NVIDIA_H100_GPUS is 16: " +
					"nodes past 16 GPUs stay Pending (16 over, 2 nodes of 8 GPUs)"}}},
		"within": {pools: []*containerpb.NodePool{spot, flex, onDemand},
			quotas: map[string]float64{"PREEMPTIBLE_NVIDIA_H100_GPUS": 32, "NVIDIA_H100_GPUS": 8}, global: 40},
		"no preemptible quota: spot on the standard one": {pools: []*containerpb.NodePool{spot, onDemand},
			quotas: map[string]float64{"PREEMPTIBLE_NVIDIA_H100_GPUS": 0, "NVIDIA_H100_GPUS": 16}, global: 100,
			want: []finding{{"DOC024", "quota NVIDIA_H100_GPUS (us-central1, project p)",
				"pools h100 and h100-spot may scale to 24 H100 in us-central1 (project p); NVIDIA_H100_GPUS is 16: nodes past 16 GPUs stay Pending " +
					"(8 over, 1 node of 8 GPUs); the region has no preemptible quota for them, so Spot and flex-start nodes draw on the standard NVIDIA_H100_GPUS"}}},
		"over GPUS_ALL_REGIONS": {pools: []*containerpb.NodePool{spot, onDemand},
			quotas: map[string]float64{"PREEMPTIBLE_NVIDIA_H100_GPUS": 64, "NVIDIA_H100_GPUS": 64}, global: 16,
			want: []finding{{"DOC024", "quota GPUS_ALL_REGIONS (all regions, project p)",
				"pools h100 and h100-spot may scale to 24 GPUs in all regions (project p); GPUS_ALL_REGIONS is 16: nodes past 16 GPUs stay Pending (8 over, 1 node of 8 GPUs)"}}},
		"the region lists no such metric: a note, no verdict": {pools: []*containerpb.NodePool{onDemand},
			quotas: map[string]float64{"CPUS": 24}, global: 0,
			wantNote: "region us-central1 of project p lists no NVIDIA_H100_GPUS quota"},
		"refused: could not read, never zero": {pools: []*containerpb.NodePool{spot},
			regionErr: &googleapi.Error{Code: http.StatusForbidden, Message: "Required 'compute.regions.get' permission for 'projects/p/regions/us-central1'"},
			want: []finding{{"DOC000", "Compute Engine quotas of region us-central1 in project p",
				"could not read Compute Engine quotas of region us-central1 in project p: googleapi: Error 403: Required 'compute.regions.get' permission " +
					"for 'projects/p/regions/us-central1', so DOC024 gpu-quota could not run"}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := Analyze(quotaSnapshot(c.pools, c.quotas, c.global, c.regionErr), Options{})
			var got []finding
			for _, f := range res.Findings {
				if f.ID == "DOC024" || f.ID == "DOC000" {
					got = append(got, finding{f.ID, f.Object(), f.Message})
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if c.wantNote != "" && !containsPrefix(res.Notes, c.wantNote) {
				t.Errorf("want a note %q; notes %q", c.wantNote, res.Notes)
			}
		})
	}
}

func containsPrefix(ss []string, p string) bool {
	for _, s := range ss {
		if len(s) >= len(p) && s[:len(p)] == p {
			return true
		}
	}
	return false
}

func TestComputeFix(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		err  error
		want string
	}{
		"401":   {&googleapi.Error{Code: 401}, "the Google credentials were refused (an expired or revoked token): renew them"},
		"403":   {&googleapi.Error{Code: 403}, "grant the identity doctor runs as compute.regions.get, compute.projects.get and compute.subnetworks.get on project p"},
		"other": {errors.New("dial tcp: connection refused"), "check the Google credentials and that Compute Engine answers"},
	} {
		got := computeFix(c.err, "p", "quota")
		if len(got) < len(c.want) || got[:len(c.want)] != c.want {
			t.Errorf("%s: %q, want it to start %q", name, got, c.want)
		}
	}
}

func TestGKEVersionLess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b     string
		less, ok bool
	}{
		{"1.31.6-gke.1020000", MinFlexStartVersion, true, true},
		{"1.32.2-gke.1651999", MinFlexStartVersion, true, true},
		{"1.32.2-gke.1652000", MinFlexStartVersion, false, true},
		{"1.33.5-gke.1080000", MinFlexStartVersion, false, true},
		{"1.32.10", MinFlexStartVersion, false, true},
		{"latest", MinFlexStartVersion, false, false},
	} {
		less, ok := gkeVersionLess(c.a, c.b)
		if diff := cmp.Diff([2]bool{c.less, c.ok}, [2]bool{less, ok}); diff != "" {
			t.Errorf("%s < %s (-want +got):\n%s", c.a, c.b, diff)
		}
	}
}
