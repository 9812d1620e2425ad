package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
)

// The rules of GPU sharing: MIG partitions (containerpb
// AcceleratorConfig.gpu_partition_size) and time-sharing or MPS
// (gpu_sharing_config), from GKE's "Running multi-instance GPUs" and "Share
// GPUs with multiple workloads" (../shared/reference/GKE-KUEUE-FACTS.md).

// minSharedClients: one client per GPU shares nothing; GKE's guides share
// among 2 or more, and the platform refuses fewer.
const minSharedClients = 2

// mpsWithMIG: the platform does not combine MPS with MIG partitions. GKE
// documents time-sharing on top of MIG ("time-sharing GPUs with
// multi-instance GPUs"); its MPS guide shares whole GPUs and shows no MIG.
// What GKE's API answers to both at once is not recorded (the fake accepts
// it), so this is the platform's documented assumption, one switch here.
const mpsWithMIG = false

// validateSharing checks partition_size and sharing against the
// accelerator a (known to the catalog).
func (p GPUPool) validateSharing(a catalog.Accelerator, errs *FieldErrors) {
	g := p.GPU
	if g.PartitionSize != "" {
		p.validatePartitionSize(a, errs)
	}
	s := g.Sharing
	if s == nil {
		return
	}
	strategyOK := slices.Contains(SharingStrategies, s.Strategy)
	switch {
	case strategyOK:
	case s.Strategy == "":
		// Required: the schema reports it missing or empty.
	case strings.EqualFold(strings.ReplaceAll(s.Strategy, "-", "_"), SharingTimeSharing):
		errs.add(Path{"gpu", "sharing", "strategy"}, "Invalid GPU Sharing Strategy",
			"strategy %q is written %q here (GKE's node label spells it time-sharing); set %v.",
			s.Strategy, SharingTimeSharing, set("strategy", SharingTimeSharing))
	default:
		errs.add(Path{"gpu", "sharing", "strategy"}, "Invalid GPU Sharing Strategy",
			"strategy %q is not one of %s: %q gives each container turns on the whole GPU, %q runs them side by side with a fixed share of memory and compute each.%s",
			s.Strategy, strings.Join(SharingStrategies, ", "), SharingTimeSharing, SharingMPS, poolCaseHint(s.Strategy, SharingStrategies))
	}
	switch {
	case s.MaxClients < minSharedClients:
		what := "no sharing"
		if s.MaxClients < 1 {
			what = "no container at all"
		}
		errs.add(Path{"gpu", "sharing", "max_shared_clients_per_gpu"}, "Too Few Shared Clients",
			"max_shared_clients_per_gpu is %d, which is %s; set 2 to %d containers per GPU, or remove sharing to give each container whole GPUs.",
			s.MaxClients, what, catalog.MaxSharedClientsPerGPU)
	case s.MaxClients > catalog.MaxSharedClientsPerGPU:
		errs.add(Path{"gpu", "sharing", "max_shared_clients_per_gpu"}, "Too Many Shared Clients",
			"GKE lets at most %d containers share a GPU, not %d; lower max_shared_clients_per_gpu.",
			catalog.MaxSharedClientsPerGPU, s.MaxClients)
	}
	if s.Strategy == SharingMPS && g.PartitionSize != "" && !mpsWithMIG {
		errs.add(Path{"gpu", "sharing", "strategy"}, "MPS Does Not Combine With MIG",
			"GKE shares MIG partitions with time-sharing only, not MPS; set %v, or remove partition_size and share whole GPUs with MPS.",
			set("strategy", SharingTimeSharing))
	}
}

func (p GPUPool) validatePartitionSize(a catalog.Accelerator, errs *FieldErrors) {
	size := p.GPU.PartitionSize
	if _, ok := a.Partition(size); ok {
		return
	}
	at := Path{"gpu", "partition_size"}
	if len(a.Partitions) == 0 {
		errs.add(at, "GPU Has No MIG Partitions",
			"%s cannot be partitioned (MIG is offered on %s). To run several containers on one %s, remove partition_size and set %v.",
			a.Type, strings.Join(migTypes(), ", "), a.Type, set("sharing", obj("strategy", SharingTimeSharing, "max_shared_clients_per_gpu", 4)))
		return
	}
	offered := make([]string, len(a.Partitions))
	for i, pt := range a.Partitions {
		offered[i] = fmt.Sprintf("%s (%d per GPU)", pt.Size, pt.PerGPU)
	}
	lower := strings.ToLower(strings.TrimSpace(size))
	switch {
	case lower != size && slices.Contains(a.PartitionSizes(), lower):
		errs.add(at, "Partition Size Not Offered", "partition sizes are written in lower case: set %v.", set("partition_size", lower))
	case catalog.NotOfferedPartitions[size] != "":
		errs.add(at, "Partition Size Not Offered",
			"%s gives one partition per GPU with 4 of its 7 compute slices, and a node has one partition size, so the other 3 would sit idle; the platform does not offer it. Use one of %s.",
			size, strings.Join(offered, ", "))
	default:
		hint := ""
		if others := typesWithPartition(size); len(others) > 0 {
			hint = fmt.Sprintf(" (%s is a size of %s.)", size, strings.Join(others, ", "))
		}
		errs.add(at, "Partition Size Not Offered", "%s is partitioned into %s; %q is not one of them.%s",
			a.Type, strings.Join(offered, ", "), size, hint)
	}
}

// migTypes are the accelerators with MIG partitions.
func migTypes() []string {
	var out []string
	for _, a := range catalog.Accelerators() {
		if len(a.Partitions) > 0 {
			out = append(out, a.Type)
		}
	}
	return out
}

// typesWithPartition are the accelerators that offer a partition size.
func typesWithPartition(size string) []string {
	var out []string
	for _, a := range catalog.Accelerators() {
		if _, ok := a.Partition(size); ok {
			out = append(out, a.Type)
		}
	}
	return out
}
