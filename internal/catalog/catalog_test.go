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
	typ, n, ok := LookupMachineType("g2-standard-48")
	if typ != "nvidia-l4" || n != 4 || !ok {
		t.Errorf("LookupMachineType(g2-standard-48) = %q, %d, %v", typ, n, ok)
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
	want := map[string]int{"1g.5gb": 7, "2g.10gb": 3, "3g.20gb": 2, "7g.40gb": 1, "h100 1g.20gb": 4}
	if diff := cmp.Diff(want, perGPU); diff != "" {
		t.Errorf("partitions per GPU (-want +got):\n%s", diff)
	}
	Accelerators()[3].Partitions[0].PerGPU = 99
	if a, _ := Lookup("nvidia-tesla-a100"); a.Partitions[0].PerGPU != 7 {
		t.Error("catalog changed through Accelerators()")
	}
}
