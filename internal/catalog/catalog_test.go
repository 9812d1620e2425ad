package catalog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMachineTypesFor(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		accel string
		count int
		want  []string
	}{
		"one L4 has five shapes":  {"nvidia-l4", 1, []string{"g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16", "g2-standard-32"}},
		"two L4 is one shape":     {"nvidia-l4", 2, []string{"g2-standard-24"}},
		"eight H100":              {"nvidia-h100-80gb", 8, []string{"a3-highgpu-8g"}},
		"eight H100 mega":         {"nvidia-h100-mega-80gb", 8, []string{"a3-megagpu-8g"}},
		"sixteen A100":            {"nvidia-tesla-a100", 16, []string{"a2-megagpu-16g"}},
		"A100 80GB":               {"nvidia-a100-80gb", 4, []string{"a2-ultragpu-4g"}},
		"three L4 does not exist": {"nvidia-l4", 3, nil},
		"eight H200":              {"nvidia-h200-141gb", 8, []string{"a3-ultragpu-8g"}},
		"eight B200":              {"nvidia-b200", 8, []string{"a4-highgpu-8g"}},
		"one H200 does not exist": {"nvidia-h200-141gb", 1, nil},
		"one T4: N1 up to 32 vCPUs": {"nvidia-tesla-t4", 1, []string{
			"n1-standard-1", "n1-standard-2", "n1-standard-4", "n1-standard-8", "n1-standard-16", "n1-standard-32",
			"n1-highmem-2", "n1-highmem-4", "n1-highmem-8", "n1-highmem-16", "n1-highmem-32",
			"n1-highcpu-2", "n1-highcpu-4", "n1-highcpu-8", "n1-highcpu-16", "n1-highcpu-32"}},
		"four T4: every N1 size": {"nvidia-tesla-t4", 4, []string{
			"n1-standard-1", "n1-standard-2", "n1-standard-4", "n1-standard-8", "n1-standard-16", "n1-standard-32", "n1-standard-64", "n1-standard-96",
			"n1-highmem-2", "n1-highmem-4", "n1-highmem-8", "n1-highmem-16", "n1-highmem-32", "n1-highmem-64", "n1-highmem-96",
			"n1-highcpu-2", "n1-highcpu-4", "n1-highcpu-8", "n1-highcpu-16", "n1-highcpu-32", "n1-highcpu-64", "n1-highcpu-96"}},
		"three T4 does not exist": {"nvidia-tesla-t4", 3, nil},
		"unknown type":            {"nvidia-tesla-k80", 1, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, MachineTypesFor(tc.accel, tc.count)); diff != "" {
				t.Errorf("MachineTypesFor(%q, %d) (-want +got):\n%s", tc.accel, tc.count, diff)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	a, ok := Lookup("nvidia-h100-80gb")
	if !ok || a.MemoryGiB != 80 {
		t.Fatalf("Lookup(h100) = %+v, %v", a, ok)
	}
	if diff := cmp.Diff([]int{1, 2, 4, 8}, a.Counts()); diff != "" {
		t.Errorf("Counts (-want +got):\n%s", diff)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found something")
	}
	type found struct {
		Type   string
		Counts []int
		OK     bool
	}
	for name, want := range map[string]found{
		"g2-standard-48": {"nvidia-l4", []int{4}, true},
		"a3-ultragpu-8g": {"nvidia-h200-141gb", []int{8}, true},
		"a4-highgpu-8g":  {"nvidia-b200", []int{8}, true},
		"n1-standard-8":  {"nvidia-tesla-t4", []int{1, 2, 4}, true},
		"n1-highmem-64":  {"nvidia-tesla-t4", []int{4}, true},
		"n1-highcpu-96":  {"nvidia-tesla-t4", []int{4}, true},
		"n1-highmem-1":   {}, // no such N1 size
		"n2-standard-8":  {}, // GPUs attach to N1 only
	} {
		typ, counts, ok := LookupMachineType(name)
		if diff := cmp.Diff(want, found{typ, counts, ok}); diff != "" {
			t.Errorf("LookupMachineType(%q) (-want +got):\n%s", name, diff)
		}
	}
	t4, _ := Lookup("nvidia-tesla-t4")
	if diff := cmp.Diff([]int{1, 2, 4}, t4.Counts()); diff != "" {
		t.Errorf("T4 counts (-want +got):\n%s", diff)
	}
	if !t4.Attached || t4.AttachRule == "" {
		t.Errorf("T4 is not marked as attached to N1: %+v", t4)
	}
	for _, typ := range []string{"nvidia-h200-141gb", "nvidia-b200", "nvidia-h100-80gb", "nvidia-l4"} {
		if a, _ := Lookup(typ); a.Attached {
			t.Errorf("%s is marked attached; its GPUs are part of the machine shape", typ)
		}
	}
	// Callers cannot change the catalog through the returned slices.
	Accelerators()[0].MachineTypes[0].GPUsPerNode = 99
	if got := MachineTypesFor("nvidia-l4", 1); len(got) != 5 {
		t.Errorf("catalog changed through Accelerators(): %v", got)
	}
}

func TestPartitions(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		accel string
		want  []string
	}{
		"A100 40GB":                 {"nvidia-tesla-a100", []string{"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"}},
		"A100 80GB":                 {"nvidia-a100-80gb", []string{"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"}},
		"H100 80GB":                 {"nvidia-h100-80gb", []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "7g.80gb"}},
		"L4 has no MIG":             {"nvidia-l4", []string{}},
		"H100 mega has none listed": {"nvidia-h100-mega-80gb", []string{}},
		"H200 141GB":                {"nvidia-h200-141gb", []string{"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "7g.141gb"}},
		"B200":                      {"nvidia-b200", []string{"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "7g.180gb"}},
		"T4 has no MIG":             {"nvidia-tesla-t4", []string{}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a, _ := Lookup(tc.accel)
			if diff := cmp.Diff(tc.want, a.PartitionSizes()); diff != "" {
				t.Errorf("PartitionSizes(%q) (-want +got):\n%s", tc.accel, diff)
			}
		})
	}
	perGPU := map[string]int{}
	for _, size := range []string{"1g.5gb", "2g.10gb", "3g.20gb", "7g.40gb"} {
		a, _ := Lookup("nvidia-tesla-a100")
		p, _ := a.Partition(size)
		perGPU[size] = p.PerGPU
	}
	h, _ := Lookup("nvidia-h100-80gb")
	p, _ := h.Partition("1g.20gb")
	perGPU["h100 1g.20gb"] = p.PerGPU
	for _, c := range []struct{ accel, size string }{
		{"nvidia-h200-141gb", "1g.18gb"}, {"nvidia-h200-141gb", "1g.35gb"}, {"nvidia-h200-141gb", "2g.35gb"},
		{"nvidia-h200-141gb", "3g.71gb"}, {"nvidia-h200-141gb", "7g.141gb"},
		{"nvidia-b200", "1g.23gb"}, {"nvidia-b200", "1g.45gb"}, {"nvidia-b200", "2g.45gb"},
		{"nvidia-b200", "3g.90gb"}, {"nvidia-b200", "7g.180gb"},
	} {
		a, _ := Lookup(c.accel)
		p, _ := a.Partition(c.size)
		perGPU[c.accel+" "+c.size] = p.PerGPU
	}
	want := map[string]int{"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "7g.40gb": 1, "h100 1g.20gb": 4,
		"nvidia-h200-141gb 1g.18gb": 7, "nvidia-h200-141gb 1g.35gb": 4, "nvidia-h200-141gb 2g.35gb": 3,
		"nvidia-h200-141gb 3g.71gb": 2, "nvidia-h200-141gb 7g.141gb": 1,
		"nvidia-b200 1g.23gb": 7, "nvidia-b200 1g.45gb": 4, "nvidia-b200 2g.45gb": 3,
		"nvidia-b200 3g.90gb": 2, "nvidia-b200 7g.180gb": 1}
	if diff := cmp.Diff(want, perGPU); diff != "" {
		t.Errorf("partitions per GPU (-want +got):\n%s", diff)
	}
	Accelerators()[3].Partitions[0].PerGPU = 99
	if a, _ := Lookup("nvidia-tesla-a100"); a.Partitions[0].PerGPU != 7 {
		t.Error("catalog changed through Accelerators()")
	}
}

// The 4g sizes GKE's partitioner accepts are refused by the platform, for
// every MIG accelerator, and none is in an accelerator's offered sizes.
func TestNotOfferedPartitions(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"4g.20gb": "nvidia-tesla-a100",
		"4g.40gb": "nvidia-a100-80gb, nvidia-h100-80gb",
		"4g.71gb": "nvidia-h200-141gb",
		"4g.90gb": "nvidia-b200",
	}
	if diff := cmp.Diff(want, NotOfferedPartitions); diff != "" {
		t.Errorf("NotOfferedPartitions (-want +got):\n%s", diff)
	}
	for _, a := range Accelerators() {
		for size := range NotOfferedPartitions {
			if _, ok := a.Partition(size); ok {
				t.Errorf("%s offers %s, which is not offered", a.Type, size)
			}
		}
	}
}
