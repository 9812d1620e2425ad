package spec

import (
	"slices"
	"strings"
)

// GKE's topology node labels, highest level first (GKE "Topology-aware
// scheduling", Cluster Toolkit examples/gke-a4/kueue-configuration.yaml.tftpl:
// the Topology gke-default with exactly these four levels).
const (
	GKETopologyBlock    = "cloud.google.com/gce-topology-block"
	GKETopologySubblock = "cloud.google.com/gce-topology-subblock"
	GKETopologyHost     = "cloud.google.com/gce-topology-host"
	HostnameLabel       = "kubernetes.io/hostname"
)

// GKETopologyLevels are the levels of the usual GKE Topology, highest first.
func GKETopologyLevels() []string {
	return []string{GKETopologyBlock, GKETopologySubblock, GKETopologyHost, HostnameLabel}
}

// IsGKETopologyLabel reports whether label is one of the topology labels GKE
// itself puts on nodes (block, subblock, host), not kubernetes.io/hostname.
func IsGKETopologyLabel(label string) bool {
	return label == GKETopologyBlock || label == GKETopologySubblock || label == GKETopologyHost
}

// MaxTopologyLevels is Kueue's limit on Topology.spec.levels
// (apis/kueue/v1beta2/topology_types.go: MaxItems=16).
const MaxTopologyLevels = 16

// Topology is a Kueue Topology (kueue.x-k8s.io/v1beta2): the node labels
// that say where a node is, highest level first. A ResourceFlavor naming it
// makes its quota topology-aware: workloads asking for
// kueue.x-k8s.io/podset-required-topology get all their pods inside one
// domain of the level they name.
type Topology struct {
	Name   string
	Levels []string // node labels, highest level first
}

// Validate mirrors the Topology CRD's rules (apis/kueue/v1beta2/topology_types.go:
// 1 to 16 levels, unique, kubernetes.io/hostname only as the lowest; each
// nodeLabel a label key) and GKE's order of its own levels, which Kueue does
// not check: a Topology listing a host above its block would group nodes by
// host first and never find a block.
func (t Topology) Validate() FieldErrors {
	var errs FieldErrors
	validateObjectName(&errs, Path{"name"}, "Topology", t.Name)
	switch n := len(t.Levels); {
	case n == 0:
		errs.add(Path{"levels"}, "No Topology Levels",
			"a Topology needs at least one level: list node labels highest first; on GKE usually %s.", quotedList(GKETopologyLevels()))
		return errs
	case n > MaxTopologyLevels:
		errs.add(Path{"levels"}, "Too Many Topology Levels",
			"levels has %d entries; Kueue accepts at most %d: keep the levels workloads ask for.", n, MaxTopologyLevels)
	}
	seen := map[string]int{}
	for i, l := range t.Levels {
		p := Path{"levels", i}
		if l == "" {
			errs.add(p, "Empty Topology Level", "levels[%d] is empty; write a node label key, e.g. %q.", i, GKETopologyBlock)
			continue
		}
		if problem := QualifiedNameProblem(l); problem != "" {
			errs.add(p, "Invalid Node Label",
				"%q is not a node label key: %s. A level is the key of a label nodes carry, e.g. %q.", l, problem, GKETopologyBlock)
			continue
		}
		if j, dup := seen[l]; dup {
			errs.add(p, "Duplicate Topology Level", "%q is already levels[%d]; each level must be a different node label: remove one.", l, j)
			continue
		}
		seen[l] = i
		if l == HostnameLabel && i != len(t.Levels)-1 {
			errs.add(p, "Hostname Not Lowest",
				"%q can only be the lowest level (Kueue's rule: one node is the smallest domain); move it to the end of levels.", HostnameLabel)
		}
	}
	t.validateGKEOrder(&errs, seen)
	return errs
}

// validateGKEOrder reports GKE's levels out of their order (block above
// subblock above host above hostname).
func (t Topology) validateGKEOrder(errs *FieldErrors, at map[string]int) {
	gke := GKETopologyLevels()
	for a := 0; a < len(gke); a++ {
		for b := a + 1; b < len(gke); b++ {
			ia, okA := at[gke[a]]
			ib, okB := at[gke[b]]
			if okA && okB && ib < ia && gke[b] != HostnameLabel { // hostname out of place is reported above
				errs.add(Path{"levels", ib}, "GKE Topology Levels Out Of Order",
					"%q is listed above %q, but on GKE a %s lies inside a %s: list levels highest first, %s.",
					gke[b], gke[a], levelWord(gke[b]), levelWord(gke[a]), quotedList(GKETopologyLevels()))
				return
			}
		}
	}
}

func levelWord(label string) string {
	if label == HostnameLabel {
		return "node"
	}
	return strings.TrimPrefix(label, "cloud.google.com/gce-topology-")
}

func quotedList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = `"` + x + `"`
	}
	return strings.Join(q, ", ")
}

// LowestLevel is the Topology's last level ("" when it has none).
func (t Topology) LowestLevel() string {
	if len(t.Levels) == 0 {
		return ""
	}
	return t.Levels[len(t.Levels)-1]
}

// HasLevel reports whether label is one of the Topology's levels.
func (t Topology) HasLevel(label string) bool { return slices.Contains(t.Levels, label) }
