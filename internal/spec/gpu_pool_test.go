package spec

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func validL4Spot() GPUPool {
	return GPUPool{
		Project: "ml-training", Location: "us-central1", Cluster: "training", Name: "l4-dev",
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

		// The newer GPUs: what GKE accepts is accepted.
		"H200 picked, MIG, hyperdisk": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.DiskType = "", GPU{Type: "nvidia-h200-141gb", Count: 8, PartitionSize: "1g.18gb"}, "hyperdisk-balanced"
		}, nil},
		"B200 flex-start compact in one zone": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.Capacity, p.Placement = "a4-highgpu-8g", GPU{Type: "nvidia-b200", Count: 8}, CapacityFlexStart, PlacementCompact
		}, nil},
		"H200 flex-start compact in one zone": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.Capacity, p.Placement = "", GPU{Type: "nvidia-h200-141gb", Count: 8}, CapacityFlexStart, PlacementCompact
		}, nil},
		"one T4 on 32 vCPUs":  {func(p *GPUPool) { p.MachineType, p.GPU = "n1-highmem-32", GPU{Type: "nvidia-tesla-t4", Count: 1} }, nil},
		"four T4 on 96 vCPUs": {func(p *GPUPool) { p.MachineType, p.GPU = "n1-standard-96", GPU{Type: "nvidia-tesla-t4", Count: 4} }, nil},
		"T4 pd-standard": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.DiskType = "n1-standard-8", GPU{Type: "nvidia-tesla-t4", Count: 2}, "pd-standard"
		}, nil},
		"T4 time-shared": {func(p *GPUPool) {
			p.MachineType, p.GPU = "n1-standard-4", GPU{Type: "nvidia-tesla-t4", Count: 1, Sharing: &GPUSharing{Strategy: SharingTimeSharing, MaxClients: 4}}
		}, nil},
		"T4 needs a machine": {func(p *GPUPool) { p.MachineType, p.GPU = "", GPU{Type: "nvidia-tesla-t4", Count: 4} }, []string{"machine_type"}},
		"T4 flex compact": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.Capacity, p.Placement = "n1-standard-8", GPU{Type: "nvidia-tesla-t4", Count: 1}, CapacityFlexStart, PlacementCompact
		}, []string{"placement"}},

		// One mistake, one error: a rule that reads a wrong attribute is skipped.
		"unknown gpu, machine set":       {func(p *GPUPool) { p.GPU.Type = "nvidia-k80" }, []string{"gpu.type"}},
		"unknown gpu, disk set":          {func(p *GPUPool) { p.GPU.Type, p.DiskType = "nvidia-k80", "pd-standard" }, []string{"gpu.type"}},
		"count not offered, machine set": {func(p *GPUPool) { p.GPU.Count = 3 }, []string{"gpu.count"}},
		"bad affinity with spot": {func(p *GPUPool) { p.Reservation = &Reservation{Affinity: "specifc", Name: "r1"} },
			[]string{"reservation.affinity"}},
		"bad capacity with reservation": {func(p *GPUPool) { p.Capacity, p.Reservation = "preemptible", &Reservation{Affinity: ReservationAny} },
			[]string{"capacity"}},
		"bad capacity with duration": {func(p *GPUPool) { p.Capacity, p.MaxRunDuration = "preemptible", time.Hour }, []string{"capacity"}},
		"bad capacity with queued":   {func(p *GPUPool) { p.Capacity, p.QueuedProvisioning = "preemptible", true }, []string{"capacity"}},
		"max zero, min above":        {func(p *GPUPool) { p.Autoscaling = Autoscaling{MinNodes: 2, MaxNodes: 0} }, []string{"autoscaling.max_nodes"}},
		"flex negative min":          {func(p *GPUPool) { p.Capacity, p.Autoscaling.MinNodes = CapacityFlexStart, -1 }, []string{"autoscaling.min_nodes"}},
		"queued compact flex two zones": {func(p *GPUPool) {
			p.Capacity, p.QueuedProvisioning, p.Placement = CapacityFlexStart, true, PlacementCompact
			p.NodeLocations = []string{"us-central1-a", "us-central1-b"}
		}, []string{"placement"}},
		"bad label key is not also reserved": {func(p *GPUPool) { p.Labels = map[string]string{"kubernetes.io/bad key": "x"} },
			[]string{`labels["kubernetes.io/bad key"]`}},
		"zones of two wrong regions": {func(p *GPUPool) { p.NodeLocations = []string{"europe-west4-a", "asia-east1-b"} }, []string{"node_locations"}},
		"bad location, zones not checked": {func(p *GPUPool) { p.Location, p.NodeLocations = "central", []string{"europe-west4-a"} },
			[]string{"location"}},

		// Accepted.
		"zonal cluster, its region's zones": {func(p *GPUPool) {
			p.Location, p.NodeLocations = "us-central1-c", []string{"us-central1-a", "us-central1-f"}
		}, nil},
		"shared reservation": {func(p *GPUPool) {
			p.Capacity, p.Reservation = CapacityReservation, &Reservation{Affinity: ReservationSpecific, Name: "projects/owner-project/reservations/h100"}
		}, nil},
		"reservation block": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.DiskType, p.NodeLocations = "a3-ultragpu-8g", GPU{Type: "nvidia-h200-141gb", Count: 8}, "", []string{"us-central1-b"}
			p.Capacity, p.Reservation = CapacityReservation, &Reservation{Affinity: ReservationSpecific, Name: "h200/reservationBlocks/block-1"}
		}, nil},
		"reservation block of an L4 reservation in two zones": {func(p *GPUPool) {
			p.NodeLocations = []string{"us-central1-a", "us-central1-b"}
			p.Capacity, p.Reservation = CapacityReservation, &Reservation{Affinity: ReservationSpecific, Name: "l4/reservationBlocks/block-1"}
		}, []string{"reservation.name", "node_locations"}},
		"compact with a policy of one's own": {func(p *GPUPool) {
			p.NodeLocations, p.Placement, p.PlacementPolicyName = []string{"us-central1-b"}, PlacementCompact, "l4-compact"
		}, nil},
		"policy name without compact placement": {func(p *GPUPool) { p.PlacementPolicyName = "l4-compact" }, []string{"placement_policy_name"}},
		"policy name invalid": {func(p *GPUPool) {
			p.NodeLocations, p.Placement, p.PlacementPolicyName = []string{"us-central1-b"}, PlacementCompact, "L4_Compact"
		}, []string{"placement_policy_name"}},
		"spot with reservation none":   {func(p *GPUPool) { p.Reservation = &Reservation{Affinity: ReservationNone} }, nil},
		"default service account":      {func(p *GPUPool) { p.ServiceAccount = "default" }, nil},
		"compute default account":      {func(p *GPUPool) { p.ServiceAccount = "123456789-compute@developer.gserviceaccount.com" }, nil},
		"domain-scoped project":        {func(p *GPUPool) { p.Project = "example.com:ml-training" }, nil},
		"node.kubernetes.io label":     {func(p *GPUPool) { p.Labels = map[string]string{"node.kubernetes.io/pool-kind": "gpu"} }, nil},
		"international resource label": {func(p *GPUPool) { p.ResourceLabels = map[string]string{"équipe": "vision"} }, nil},
		"hyperdisk on A3": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.DiskType = "a3-highgpu-8g", GPU{Type: "nvidia-h100-80gb", Count: 8}, "hyperdisk-balanced"
		}, nil},
		"pd-standard on A2": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.DiskType = "a2-highgpu-1g", GPU{Type: "nvidia-tesla-a100", Count: 1}, "pd-standard"
		}, nil},
		"large hyperdisk not bounded": {func(p *GPUPool) {
			p.MachineType, p.GPU, p.DiskType, p.DiskSizeGB = "a3-highgpu-8g", GPU{Type: "nvidia-h100-80gb", Count: 8}, "hyperdisk-balanced", 70000
		}, nil},
		"1000 nodes in one zone":    {func(p *GPUPool) { p.Autoscaling.MaxNodes = 1000 }, nil},
		"unset zones not bounded":   {func(p *GPUPool) { p.NodeLocations, p.Autoscaling.MaxNodes = nil, 5000 }, nil},
		"compact in one zone":       {func(p *GPUPool) { p.Placement = PlacementCompact }, nil},
		"flex-start 10 minutes":     {func(p *GPUPool) { p.Capacity, p.MaxRunDuration = CapacityFlexStart, 10*time.Minute }, nil},
		"flex-start 7 days":         {func(p *GPUPool) { p.Capacity, p.MaxRunDuration = CapacityFlexStart, MaxFlexStartRunDuration }, nil},
		"name of 40 characters":     {func(p *GPUPool) { p.Name = "l" + strings.Repeat("4", 39) }, nil},
		"pool without location set": {func(p *GPUPool) { p.Location, p.NodeLocations = "", []string{"europe-west4-a"} }, nil},
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

// ValidateLocation is the part of Validate that needs the cluster's
// location: a plan that takes it from the provider runs it alone.
func TestGPUPoolValidateLocation(t *testing.T) {
	t.Parallel()
	p := validL4Spot()
	p.NodeLocations = []string{"europe-west4-a", "us-central1-b", "US-EAST1-B"}
	var got []string
	for _, e := range p.ValidateLocation() {
		got = append(got, e.Path.String()+": "+e.Summary)
	}
	// The malformed zone is Validate's to report, once.
	if diff := cmp.Diff([]string{"node_locations: Zone Outside The Cluster's Region"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	p.Location = "not a location"
	if errs := p.ValidateLocation(); len(errs) != 0 {
		t.Errorf("with a malformed location: %v, want none (location is reported instead)", errs)
	}
}

func TestGPUPoolPlainChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		problem string
		ok      bool
	}{
		{"zone", poolZoneProblem("us-central1-a"), true},
		{"long region zone", poolZoneProblem("northamerica-northeast1-b"), true},
		{"region as zone", poolZoneProblem("us-central1"), false},
		{"zone with two letters", poolZoneProblem("us-central1-ab"), false},
		{"zone without digits", poolZoneProblem("us-central-a"), false},
		{"location region", poolLocationProblem("europe-west4"), true},
		{"location zone", poolLocationProblem("europe-west4-c"), true},
		{"location word", poolLocationProblem("global"), false},
		{"project", poolProjectProblem("mlplatform-sandbox"), true},
		{"project of 31", poolProjectProblem("a" + strings.Repeat("b", 30)), false},
		{"project ending with -", poolProjectProblem("ml-training-"), false},
		{"project from a digit", poolProjectProblem("1ml-training"), false},
		{"service account", poolServiceAccountProblem("nodes@p-123456.iam.gserviceaccount.com"), true},
		{"appspot account", poolServiceAccountProblem("my-project@appspot.gserviceaccount.com"), true},
		{"two @", poolServiceAccountProblem("a@b@c.iam.gserviceaccount.com"), false},
		{"nothing before @", poolServiceAccountProblem("@p.iam.gserviceaccount.com"), false},
		{"reservation", poolReservationProblem("h100-res"), true},
		{"reservation from a digit", poolReservationProblem("1h100"), false},
		{"shared reservation, bad name", poolReservationProblem("projects/owner-project/reservations/H100"), false},
		{"label key", poolResourceLabelKeyProblem("cost_center-1"), true},
		{"label key too long", poolResourceLabelKeyProblem("k" + strings.Repeat("e", 63)), false},
		{"label key empty", poolResourceLabelKeyProblem(""), false},
		{"label value empty", poolResourceLabelValueProblem(""), true},
		{"label value from a digit", poolResourceLabelValueProblem("123"), true},
		{"disk on a3", poolDiskTypeProblem("hyperdisk-balanced", "a3", "a3-highgpu-8g"), true},
		{"disk, family unknown", poolDiskTypeProblem("pd-standard", "", ""), true},
		{"hyperdisk-throughput", poolDiskTypeProblem("hyperdisk-throughput", "g2", "g2-standard-8"), false},
	} {
		if got := tc.problem == ""; got != tc.ok {
			t.Errorf("%s: ok = %v, want %v (%q)", tc.name, got, tc.ok, tc.problem)
		}
	}
	for key, refused := range map[string]bool{
		"node-role.kubernetes.io/gpu": true, "kubernetes.io/team": true, "k8s.io/x": true, "example.k8s.io/x": true,
		"node.kubernetes.io/pool-kind": false, "kubelet.kubernetes.io/x": false, "team": false, "example.com/kubernetes.io": false,
	} {
		if got := poolKubernetesLabelRefused(key); got != refused {
			t.Errorf("poolKubernetesLabelRefused(%q) = %v, want %v", key, got, refused)
		}
	}
}

func TestTopologyLabels(t *testing.T) {
	t.Parallel()
	pool := func(gpu string, count int, machine, capacity, placement string) GPUPool {
		return GPUPool{GPU: GPU{Type: gpu, Count: count}, MachineType: machine, Capacity: capacity, Placement: placement}
	}
	cases := map[string]struct {
		p    GPUPool
		want bool
	}{
		"A3 High on demand":            {pool("nvidia-h100-80gb", 8, "a3-highgpu-8g", CapacityOnDemand, ""), true},
		"A3 High, machine type picked": {pool("nvidia-h100-80gb", 8, "", CapacityReservation, ""), true},
		"A3 Mega reservation":          {pool("nvidia-h100-mega-80gb", 8, "a3-megagpu-8g", CapacityReservation, ""), true},
		"A3 High spot":                 {pool("nvidia-h100-80gb", 8, "a3-highgpu-8g", CapacitySpot, ""), false},
		"A3 High spot, compact":        {pool("nvidia-h100-80gb", 8, "a3-highgpu-8g", CapacitySpot, PlacementCompact), true},
		"A3 High flex-start":           {pool("nvidia-h100-80gb", 8, "a3-highgpu-8g", CapacityFlexStart, ""), true},
		"A2 (A100)":                    {pool("nvidia-tesla-a100", 8, "a2-highgpu-8g", CapacityReservation, PlacementCompact), false},
		"G2 (L4)":                      {pool("nvidia-l4", 1, "g2-standard-8", CapacityOnDemand, ""), false},
		"A4 by name":                   {pool("nvidia-b200", 8, "a4-highgpu-8g", CapacityReservation, ""), true},
		"A3 Ultra by name":             {pool("nvidia-h200-141gb", 8, "a3-ultragpu-8g", CapacitySpot, PlacementCompact), true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, tc.p.TopologyLabels()); diff != "" {
				t.Errorf("TopologyLabels (-want +got):\n%s", diff)
			}
		})
	}
}
