package report

// GPU sharing on GKE: a pool whose GPUs are MIG-partitioned
// (gpu.partition_size) or shared (gpu.sharing: time-sharing or MPS) still
// reports every slice or share as one nvidia.com/gpu, so one node reports
// allocatable_gpus_per_node = gpu.count × partitions per GPU × clients per
// GPU, and a Kueue quota on a flavor of such a pool counts slices or shares,
// not GPUs.

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Slicing is how a pool's nodes report nvidia.com/gpu (model.Slicing).
type Slicing = model.Slicing

// Units a pool's nvidia.com/gpu stands for.
const (
	unitGPUs   = model.UnitGPUs
	unitSlices = model.UnitSlices
	unitShares = model.UnitShares
)

// FlavorSharing is the slicing of the pools a flavor's node labels select,
// after the plan (before, for a flavor the plan removes).
type FlavorSharing struct {
	Flavor   string
	Slicing  Slicing  // the pools' common slicing; meaningful when !Disagree
	Disagree bool     // the matched pools differ in slicing
	Pools    []string // "pool: slicing" for each matched pool
	GPUs     []int64  // gpu.count of each matched pool, where known
}

// unit is the word quota and capacity on the flavor count in.
func (f *FlavorSharing) unit() string {
	if f == nil {
		return unitGPUs
	}
	if f.Disagree || f.Slicing.Unit == "" {
		return gpuResource + " units"
	}
	return f.Slicing.Unit
}

// flavorSharing lists the flavors whose matched pools are sliced, shared,
// of unknown slicing or of differing slicing; flavors of whole-GPU pools
// only are left out.
func flavorSharing(before, after snapshot) map[string]*FlavorSharing {
	out := map[string]*FlavorSharing{}
	seen := map[string]bool{}
	for _, s := range []snapshot{after, before} {
		for _, f := range s.Flavors {
			if seen[f.Name] {
				continue
			}
			seen[f.Name] = true
			if f.LabelsUnknown {
				continue
			}
			fs := &FlavorSharing{Flavor: f.Name}
			first := true
			for _, p := range s.Pools {
				if p.Cluster != f.Cluster || p.standsFor(f) != model.Yes {
					continue
				}
				sl := p.slicing()
				fs.Pools = append(fs.Pools, "pool "+p.Name+": "+sl.Describe())
				if p.CountKnown {
					fs.GPUs = append(fs.GPUs, p.GPUCount)
				}
				if first {
					fs.Slicing, first = sl, false
				} else if !fs.Slicing.Same(sl) {
					fs.Disagree = true
				}
			}
			if first || (!fs.Disagree && fs.Slicing.Unit == unitGPUs) {
				continue
			}
			out[f.Name] = fs
		}
	}
	return out
}

// gpuEquivalent renders n slices or shares as whole GPUs: "1 GPU",
// "3/7 GPU", "1 3/7 GPUs"; "" when n is not a whole number or the ratio is
// not known.
func gpuEquivalent(n Qty, perGPU int64) string {
	if n.State != qKnown || n.Invalid() || perGPU <= 0 {
		return ""
	}
	v, ok := n.IntValue()
	if !ok {
		return ""
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	whole, rest := v/perGPU, v%perGPU
	if rest == 0 {
		if whole == 1 {
			return sign + "1 GPU"
		}
		return sign + itoa(whole) + " GPUs"
	}
	g := gcd(rest, perGPU)
	frac := itoa(rest/g) + "/" + itoa(perGPU/g)
	if whole == 0 {
		return sign + frac + " GPU"
	}
	return sign + itoa(whole) + " " + frac + " GPUs"
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// inUnits renders a quota on the flavor in its unit with the whole-GPU
// equivalent: "+7 slices (= 1 GPU)". s is the rendering of q without a unit.
func (f *FlavorSharing) inUnits(s string, q Qty) string {
	switch {
	case f == nil || q.State != qKnown:
		return s
	case f.Disagree:
		return s + " (unit unclear: pools disagree)"
	case f.Slicing.Unit == "":
		return s + " (slicing " + unknownText + ")"
	}
	s += " " + f.Slicing.Unit
	if eq := gpuEquivalent(q, f.Slicing.PerGPU); eq != "" {
		s += " (= " + eq + ")"
	} else if f.Slicing.PerGPU == 0 {
		s += " (GPU equivalent " + unknownText + ")"
	}
	return s
}

// notes are what a user of the flavor should know, in sentences.
func (f *FlavorSharing) notes() []string {
	if f.Disagree {
		return []string{warn + f.Flavor + ": its pools disagree (" + strings.Join(f.Pools, "; ") +
			"), so its quota counts slices, shares or GPUs depending on the node a workload lands on; no GPU equivalent is shown."}
	}
	s := f.Slicing
	if s.Unit == "" {
		return []string{f.Flavor + ": " + strings.Join(f.Pools, "; ") + "; its quota's unit is " + unknownText + "."}
	}
	note := fmt.Sprintf("%s: %s; its quota counts %s.", f.Flavor, strings.Join(f.Pools, "; "), s.Unit)
	switch s.Strategy {
	case spec.SharingTimeSharing:
		note += " Time-sharing: a container may request at most 1 " + gpuResource +
			"; a pod asking for more is admitted by Kueue and then fails at the node (UnexpectedAdmissionError)."
	case spec.SharingMPS:
		multi := false
		for _, n := range f.GPUs {
			multi = multi || n > 1
		}
		note += " MPS: a container may request more than 1 " + gpuResource + " only on a single-GPU node"
		if multi {
			note += " (this flavor's pools have nodes of more than 1 GPU, so at most 1 there)"
		}
		note += "; a pod asking for more fails at the node (UnexpectedAdmissionError)."
	}
	return []string{note}
}

// PoolSharing is the cost of one sliced or shared pool per GPU-hour and
// per slice- or share-hour.
type PoolSharing struct {
	Pool            string
	Slicing         [2]string // before, after: in words, "" when absent
	PerNode, AtMax  Delta
	PerGPU, PerUnit MoneyDelta
}

func poolSharingSide(p *poolState, prices pricing.Table) (desc string, perNode, atMax Qty, perGPU, perUnit Money) {
	if p == nil {
		return "", Qty{}, Qty{}, Money{}, Money{}
	}
	sl := p.slicing()
	desc = sl.Describe()
	perNode, _ = p.perNode()
	atMax, _ = p.units()
	if p.Capacity == "" || p.GPUType == "" {
		m := Money{State: qUnknown, Why: "gpu type or capacity " + unknownText}
		return desc, perNode, atMax, m, m
	}
	price, ok := prices.HourlyPerGPU(p.GPUType, p.Capacity)
	if !ok {
		m := Money{State: qUnknown, Why: fmt.Sprintf("no price for %s %s", p.GPUType, p.Capacity)}
		return desc, perNode, atMax, m, m
	}
	perGPU = Money{State: qKnown, USD: price}
	switch {
	case sl.PerGPU > 0:
		perUnit = Money{State: qKnown, USD: price / float64(sl.PerGPU)}
	default:
		perUnit = Money{State: qUnknown, Why: "allocatable_gpus_per_node " + unknownText}
	}
	return desc, perNode, atMax, perGPU, perUnit
}

func poolSharing(before, after snapshot, prices pricing.Table) []PoolSharing {
	b, a, sorted := poolsByLabel(before.Pools, after.Pools)
	out := make([]PoolSharing, 0, len(sorted))
	for _, n := range sorted {
		if (b[n] == nil || b[n].slicing().Unit == unitGPUs) && (a[n] == nil || a[n].slicing().Unit == unitGPUs) {
			continue
		}
		ps := PoolSharing{Pool: n}
		ps.Slicing[0], ps.PerNode.Before, ps.AtMax.Before, ps.PerGPU.Before, ps.PerUnit.Before = poolSharingSide(b[n], prices)
		ps.Slicing[1], ps.PerNode.After, ps.AtMax.After, ps.PerGPU.After, ps.PerUnit.After = poolSharingSide(a[n], prices)
		out = append(out, ps)
	}
	return out
}
