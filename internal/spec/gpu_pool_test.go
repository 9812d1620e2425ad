package spec

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func validL4Spot() GPUPool {
	return GPUPool{
		Project: "p", Location: "us-central1", Cluster: "c", Name: "l4-dev",
		MachineType: "g2-standard-8", GPU: GPU{Type: "nvidia-l4", Count: 1, Driver: GPUDriverDefault},
		Capacity: CapacitySpot, Autoscaling: Autoscaling{MaxNodes: 4},
		NodeLocations: []string{"us-central1-a"},
	}
}

func TestGPUPoolValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		edit func(*GPUPool)
		want []string // paths of the errors, in order
	}{
		"valid":                  {func(*GPUPool) {}, nil},
		"bad name":               {func(p *GPUPool) { p.Name = "L4_Dev" }, []string{"name"}},
		"unknown gpu":            {func(p *GPUPool) { p.GPU.Type = "nvidia-tesla-k80" }, []string{"gpu.type"}},
		"count not offered":      {func(p *GPUPool) { p.GPU.Count = 3 }, []string{"gpu.count"}},
		"machine does not match": {func(p *GPUPool) { p.MachineType = "a3-highgpu-8g" }, []string{"machine_type"}},
		"machine ambiguous":      {func(p *GPUPool) { p.MachineType = "" }, []string{"machine_type"}},
		"machine picked":         {func(p *GPUPool) { p.MachineType, p.GPU.Count = "", 2 }, nil},
		"reservation missing":    {func(p *GPUPool) { p.Capacity = CapacityReservation }, []string{"reservation"}},
		"specific without name": {func(p *GPUPool) {
			p.Capacity, p.Reservation = CapacityReservation, &Reservation{Affinity: ReservationSpecific}
		}, []string{"reservation.name"}},
		"reservation with spot":     {func(p *GPUPool) { p.Reservation = &Reservation{Affinity: ReservationAny} }, []string{"reservation"}},
		"run duration without flex": {func(p *GPUPool) { p.MaxRunDuration = time.Hour }, []string{"max_run_duration"}},
		"run duration too long": {func(p *GPUPool) {
			p.Capacity, p.MaxRunDuration = CapacityFlexStart, 8*24*time.Hour
		}, []string{"max_run_duration"}},
		"flex with min nodes": {func(p *GPUPool) { p.Capacity, p.Autoscaling.MinNodes = CapacityFlexStart, 1 }, []string{"autoscaling.min_nodes"}},
		"min above max":       {func(p *GPUPool) { p.Autoscaling.MinNodes = 5 }, []string{"autoscaling.min_nodes"}},
		"max zero":            {func(p *GPUPool) { p.Autoscaling.MaxNodes = 0 }, []string{"autoscaling.max_nodes"}},
		"queued compact": {func(p *GPUPool) {
			p.Capacity, p.QueuedProvisioning, p.Placement = CapacityFlexStart, true, PlacementCompact
		}, []string{"placement"}},
		"queued without flex": {func(p *GPUPool) { p.QueuedProvisioning = true }, []string{"queued_provisioning"}},
		"zone elsewhere":      {func(p *GPUPool) { p.NodeLocations = []string{"europe-west4-a"} }, []string{"node_locations"}},
		"reserved node label": {func(p *GPUPool) { p.Labels = map[string]string{"cloud.google.com/gke-spot": "true"} }, []string{`labels["cloud.google.com/gke-spot"]`}},
		"gpu taint":           {func(p *GPUPool) { p.Taints = []Taint{{Key: GPUTaintKey, Value: "present", Effect: "NoSchedule"}} }, []string{`taints["nvidia.com/gpu"]`}},
		"bad taint effect":    {func(p *GPUPool) { p.Taints = []Taint{{Key: "dedicated", Effect: "NoRun"}} }, []string{`taints["dedicated"].effect`}},
		"bad resource label":  {func(p *GPUPool) { p.ResourceLabels = map[string]string{"Team": "x"} }, []string{`resource_labels["Team"]`}},
		"goog resource label": {func(p *GPUPool) { p.ResourceLabels = map[string]string{"goog-x": "x"} }, []string{`resource_labels["goog-x"]`}},
		"small disk":          {func(p *GPUPool) { p.DiskSizeGB = 5 }, []string{"disk.size_gb"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := validL4Spot()
			tc.edit(&p)
			var got []string
			for _, e := range p.Validate() {
				got = append(got, e.Path.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("error paths (-want +got):\n%s\nerrors: %v", diff, p.Validate())
			}
		})
	}
}

func TestGPUPoolDerived(t *testing.T) {
	t.Parallel()
	p := validL4Spot()
	p.QueuedProvisioning = true
	p.Taints = []Taint{{Key: "team", Value: "vision", Effect: "NoSchedule"}, {Key: "b", Effect: "NoExecute"}}
	want := []Toleration{
		{Key: GPUTaintKey, Operator: "Exists", Effect: "NoSchedule"},
		{Key: QueuedTaintKey, Operator: "Exists", Effect: "NoSchedule"},
		{Key: "b", Operator: "Exists", Effect: "NoExecute"},
		{Key: "team", Operator: "Equal", Value: "vision", Effect: "NoSchedule"},
	}
	if diff := cmp.Diff(want, p.WorkloadTolerations()); diff != "" {
		t.Errorf("WorkloadTolerations (-want +got):\n%s", diff)
	}
	p.ResourceLabels = map[string]string{"team": "vision", CostLabelPool: "override"}
	wantLabels := map[string]string{"team": "vision", CostLabelPool: "override", CostLabelGPU: "nvidia-l4", CostLabelCapacity: "spot"}
	if diff := cmp.Diff(wantLabels, p.EffectiveResourceLabels()); diff != "" {
		t.Errorf("EffectiveResourceLabels (-want +got):\n%s", diff)
	}
	if m, ok := PickMachineType("nvidia-h100-80gb", 8); !ok || m != "a3-highgpu-8g" {
		t.Errorf("PickMachineType(h100, 8) = %q, %v", m, ok)
	}
}
