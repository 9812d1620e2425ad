package spec

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
)

// GPUPool.Validate, continued: the rules for the pool's nodes (placement,
// zones, node labels, taints, resource labels, disk).

func (p GPUPool) validatePlacement(errs *FieldErrors) {
	if n := p.PlacementPolicyName; n != "" {
		// containerpb NodePool.PlacementPolicy.policy_name: "If set, refers to
		// the name of a custom resource policy supplied by the user. The
		// resource policy must be in the same project and region as the node
		// pool." A Compute Engine name: RFC 1035, at most 63 characters.
		switch problem := poolNameProblem(n, poolComputeNameMaxLen); {
		case p.Placement != PlacementCompact:
			errs.add(Path{"placement_policy_name"}, "Placement Policy Without Compact Placement",
				"placement_policy_name names a compact placement policy, so it needs %v; set it, or remove placement_policy_name.", set("placement", PlacementCompact))
		case problem != "":
			errs.add(Path{"placement_policy_name"}, "Invalid Placement Policy Name",
				"%q is not a Compute Engine resource policy name: %s. Write the name of a compact placement policy in the pool's project and region, e.g. \"h200-compact\".", n, problem)
		}
	}
	switch {
	case p.Placement == "":
	case !slices.Contains(Placements, p.Placement):
		// containerpb NodePool.PlacementPolicy.Type: COMPACT is the only type.
		errs.add(Path{"placement"}, "Invalid Placement",
			"placement %q is not a placement GKE offers: the only one is \"compact\", which places the nodes close together. Leave placement out for GKE's default placement.%s",
			p.Placement, poolCaseHint(p.Placement, Placements))
	case p.QueuedProvisioning:
		// GKE: queued provisioning pools cannot use compact placement
		// (cluster-toolkit gke-node-pool: "placement_policy cannot be
		// COMPACT when enable_queued_provisioning is true").
		errs.add(Path{"placement"}, "Compact Placement With Queued Provisioning",
			"GKE does not allow compact placement on a queued-provisioning pool. Remove placement, or set %v.", set("queued_provisioning", false))
	case p.Capacity == CapacityFlexStart && !poolCompactFlexStart(p.machineTypeOrGPU()):
		// "Compact placement with DWS Flex Start is only supported for A3
		// Ultra, A4, and H4D machine types" (GoogleCloudPlatform
		// cluster-toolkit gke-node-pool precondition): of this provider's
		// machine types, a3-ultragpu-8g and a4-highgpu-8g.
		errs.add(Path{"placement"}, "Compact Placement With Flex-Start",
			"GKE offers compact placement for flex-start nodes only on A3 Ultra, A4 and H4D machines, not on %s. Remove placement, or use another capacity.",
			p.machineTypeOrGPU())
	case len(p.NodeLocations) > 1:
		// "Compact placement is only available for node pools operating in
		// a single zone" (GKE compact placement limitations for Standard,
		// as cluster-toolkit's gke-node-pool checks it).
		errs.add(Path{"node_locations"}, "Compact Placement Needs One Zone",
			"compact placement keeps every node in one zone, but node_locations lists %d (%s). List one zone, e.g. [%q], or remove placement.",
			len(p.NodeLocations), strings.Join(p.NodeLocations, ", "), p.NodeLocations[0])
	}
}

// poolCompactFlexStart reports whether GKE offers compact placement for
// flex-start nodes of the machine type: A3 Ultra and A4 (not A4X).
func poolCompactFlexStart(machineType string) bool {
	return strings.HasPrefix(machineType, "a3-ultragpu-") || strings.HasPrefix(machineType, "a4-")
}

// machineTypeOrGPU names the pool's machines for messages.
func (p GPUPool) machineTypeOrGPU() string {
	if p.MachineType != "" {
		return p.MachineType
	}
	if mt, ok := PickMachineType(p.GPU.Type, p.GPU.Count); ok {
		return mt
	}
	return p.GPU.Type + " machines"
}

func (p GPUPool) validateZones(errs *FieldErrors) {
	for _, z := range p.NodeLocations {
		if problem := poolZoneProblem(z); problem != "" {
			example := "us-central1-a"
			switch {
			case poolZoneOK(strings.ToLower(z)):
				example = strings.ToLower(z)
			case poolRegionOK(z):
				example = z + "-a"
			case p.Location != "" && poolLocationProblem(p.Location) == "":
				example = poolRegionOf(p.Location) + "-a"
			}
			errs.add(Path{"node_locations"}, "Invalid Zone", "%q is not a zone: %s. Write zones such as %q.", z, problem, example)
		}
	}
}

func (p GPUPool) validateNodeLabels(errs *FieldErrors) {
	// Kubernetes label syntax (containerpb NodeConfig.labels: "Labels must
	// use a valid Kubernetes syntax and character set").
	validateLabels(errs, Path{"labels"}, p.Labels)
	total := 0
	for _, k := range sortedKeys(p.Labels) {
		total += len(k) + len(p.Labels[k])
		if QualifiedNameProblem(k) != "" || LabelValueProblem(p.Labels[k]) != "" {
			continue // reported by validateLabels
		}
		switch {
		case strings.HasPrefix(k, ServerOwnedNodeLabelPfx):
			// GKE sets cloud.google.com/gke-* labels on its nodes itself
			// (and the provider leaves them to GKE).
			errs.add(Path{"labels", Key(k)}, "Reserved Node Label",
				"GKE sets node labels beginning with %q itself; remove %q (node_selector already selects the pool).", ServerOwnedNodeLabelPfx, k)
		case slices.Contains(poolKubeletLabels, k):
			errs.add(Path{"labels", Key(k)}, "Node Label Set By Kubernetes",
				"the kubelet and GKE set %q on every node themselves; remove it (node_selector selects the pool's nodes).", k)
		case poolKubernetesLabelRefused(k):
			errs.add(Path{"labels", Key(k)}, "Reserved Node Label",
				"the kubelet refuses to start with labels under kubernetes.io or k8s.io other than kubelet.kubernetes.io/ and node.kubernetes.io/ ones, so nodes labelled %q would never join the cluster. Use a prefix of your own, e.g. %q.",
				k, "example.com/"+k[strings.Index(k, "/")+1:])
		}
	}
	if total > poolMaxNodeLabelChars {
		errs.add(Path{"labels"}, "Node Labels Too Long",
			"GKE accepts at most %d characters of node labels (keys and values together); these have %d. Shorten or remove some.", poolMaxNodeLabelChars, total)
	}
}

func (p GPUPool) validateTaints(errs *FieldErrors) {
	for _, t := range p.Taints {
		path := Path{"taints", Key(t.Key)}
		// Kubernetes taints (containerpb NodeConfig.taints): the key a
		// qualified name, the value a label value, the effect NoSchedule,
		// PreferNoSchedule or NoExecute.
		problem := QualifiedNameProblem(t.Key)
		switch {
		case problem != "":
			errs.add(path, "Invalid Taint Key",
				"taint key %q is not valid: %s. Use e.g. \"dedicated\" or \"example.com/team\".", t.Key, problem)
		case t.Key == GPUTaintKey:
			errs.add(path, "GPU Taint Is Added By GKE",
				"GKE taints every GPU node with nvidia.com/gpu=present:NoSchedule itself; remove this taint (workload_tolerations already tolerates it).")
		case t.Key == QueuedTaintKey:
			// The provider treats it as GKE's (reconcile serverTaint).
			errs.add(path, "Queued Taint Is Added By GKE",
				"GKE taints queued-provisioning nodes with %s itself; remove this taint (with %v, workload_tolerations tolerates it).",
				QueuedTaintKey, set("queued_provisioning", true))
		case slices.Contains(poolKubernetesTaints, t.Key):
			errs.add(path, "Taint Managed By Kubernetes",
				"Kubernetes adds and removes %q on nodes itself (it marks nodes that are not ready, under pressure, cordoned or shut down); as a pool taint it would fight the node controller. Use a key of your own, e.g. \"example.com/dedicated\".", t.Key)
		}
		if t.Value != "" {
			if problem := LabelValueProblem(t.Value); problem != "" {
				errs.add(append(slices.Clone(path), "value"), "Invalid Taint Value",
					"taint value %q is not valid: %s. Use at most 63 letters, digits, '-', '_' and '.', e.g. \"true\" or \"vision\".", t.Value, problem)
			}
		}
		if !slices.Contains(TaintEffects, t.Effect) {
			errs.add(append(slices.Clone(path), "effect"), "Invalid Taint Effect",
				"taint effect %q is not one of %s.%s", t.Effect, strings.Join(TaintEffects, ", "), poolCaseHint(t.Effect, TaintEffects))
		}
	}
}

func (p GPUPool) validateResourceLabels(errs *FieldErrors) {
	for _, k := range sortedKeys(p.ResourceLabels) {
		v := p.ResourceLabels[k]
		path := Path{"resource_labels", Key(k)}
		switch {
		case strings.HasPrefix(k, "goog-"):
			// Google's services set goog-* labels (GKE's goog-gke-*,
			// goog-k8s-*); the provider leaves them to Google.
			errs.add(path, "Reserved Resource Label",
				"labels beginning with \"goog-\" are set by Google Cloud itself (GKE adds goog-gke-* ones); rename %q, e.g. %q.", k, strings.TrimPrefix(k, "goog-"))
		case k == PoolMarkerLabel || k == PoolCreationLabel:
			errs.add(path, "Reserved Resource Label",
				"%q marks the node pools mlplatform created, and is set by the provider itself; rename it.", k)
		default:
			if problem := poolResourceLabelKeyProblem(k); problem != "" {
				errs.add(path, "Invalid Resource Label Key",
					"%q is not a valid Google Cloud label key: %s. Keys are 1 to 63 lower-case letters, digits, '_' and '-', starting with a letter, e.g. \"cost-center\".", k, problem)
			} else if problem := poolResourceLabelValueProblem(v); problem != "" {
				errs.add(path, "Invalid Resource Label Value",
					"label %q has value %q, which is not a valid Google Cloud label value: %s. Values are up to 63 lower-case letters, digits, '_' and '-', e.g. %q.",
					k, v, problem, poolSuggestLabelValue(v))
			}
		}
	}
	if n := len(p.EffectiveResourceLabels()) + 2; n > poolMaxResourceLabels {
		errs.add(Path{"resource_labels"}, "Too Many Resource Labels",
			"Google Cloud allows %d labels on a resource; with the 3 default cost labels and the provider's %s and %s this pool has %d. Remove %d.",
			poolMaxResourceLabels, PoolMarkerLabel, PoolCreationLabel, n, n-poolMaxResourceLabels)
	}
}

// poolSuggestLabelValue turns v into a valid Google Cloud label value.
func poolSuggestLabelValue(v string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(v) {
		if poolIsLabelRune(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := b.String()
	if n := utf8.RuneCountInString(out); n > poolLabelMaxChars {
		out = string([]rune(out)[:poolLabelMaxChars])
	}
	return out
}

func (p GPUPool) validateDisk(errs *FieldErrors) {
	if p.DiskSizeGB != 0 && p.DiskSizeGB < poolMinDiskGB {
		errs.add(Path{"disk", "size_gb"}, "Disk Too Small",
			"GKE needs a boot disk of at least %d GB (got %d); GPU images want 100 or more, e.g. %v.", poolMinDiskGB, p.DiskSizeGB, set("size_gb", 200))
	} else if p.DiskSizeGB > poolMaxPDDiskGB && (p.DiskType == "" || strings.HasPrefix(p.DiskType, "pd-")) {
		errs.add(Path{"disk", "size_gb"}, "Disk Too Large",
			"a Persistent Disk holds at most 64 TiB (%d GB); %d is more. Use a smaller size_gb, and Cloud Storage or Filestore for data.", poolMaxPDDiskGB, p.DiskSizeGB)
	}
	if p.DiskType == "" {
		return
	}
	family, machine := "", ""
	if a, ok := catalog.Lookup(p.GPU.Type); ok && len(a.MachineTypes) > 0 {
		// Each accelerator comes on one machine series.
		machine = p.machineTypeOrGPU()
		family = poolFamily(a.MachineTypes[0].Name)
	}
	if problem := poolDiskTypeProblem(p.DiskType, family, machine); problem != "" {
		errs.add(Path{"disk", "type"}, "Invalid Disk Type", "%s.", problem)
	}
}

// poolExampleProject is the project for example e-mails.
func poolExampleProject(project string) string {
	if project == "" {
		return "PROJECT"
	}
	return project
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return poolOrList(s)
}
