// Package report turns the JSON of a Terraform plan (`terraform show -json
// PLANFILE`) into a review of what it does to the GPU platform: quota changes
// per ClusterQueue, flavor and resource; whether the queues may admit more
// GPUs than the pools can provide; what the pools cost; and what changed
// outside Terraform. It reads only the plan, makes no request and imports no
// Terraform package.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// The plan, as internal/tfplan reads it.
type (
	Plan           = tfplan.Plan
	ResourceChange = tfplan.ResourceChange
	Change         = tfplan.Change
	Configuration  = tfplan.Configuration
	ConfigModule   = tfplan.ConfigModule
	ModuleCall     = tfplan.ModuleCall
	ConfigResource = tfplan.ConfigResource
)

// ReadPlan decodes plan JSON (tfplan.ReadPlan).
func ReadPlan(r io.Reader) (Plan, error) { return tfplan.ReadPlan(r) }

// scalarText renders a leaf value for a sentence.
func scalarText(v any) string {
	switch x := v.(type) {
	case nil:
		return "(unset)"
	case string:
		return strconv.Quote(x)
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []any, map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// diffPaths lists the attribute paths whose values differ between a and b,
// with both values when the path is a leaf, sorted by path.
type pathDiff struct {
	Path          string
	Before, After any
}

func diffPaths(prefix string, a, b any) []pathDiff {
	var out []pathDiff
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			out = append(out, diffPaths(joinPath(prefix, k), av[k], bv[k])...)
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			break
		}
		for i := range av {
			out = append(out, diffPaths(fmt.Sprintf("%s[%d]", prefix, i), av[i], bv[i])...)
		}
		return out
	}
	if !sameJSON(a, b) {
		out = append(out, pathDiff{Path: prefix, Before: a, After: b})
	}
	return out
}

// joinPath appends an attribute name, or a map key in brackets when it is
// not a plain identifier (node labels like "cloud.google.com/gke-spot").
func joinPath(prefix, key string) string {
	plain := key != ""
	for _, r := range key {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	switch {
	case !plain:
		return prefix + "[" + strconv.Quote(key) + "]"
	case prefix == "":
		return key
	}
	return prefix + "." + key
}

func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

// kindOf names a resource type in words.
func kindOf(typ string) string {
	switch typ {
	case "mlplatform_cluster_queue":
		return "ClusterQueue"
	case "mlplatform_cohort":
		return "Cohort"
	case "mlplatform_resource_flavor":
		return "ResourceFlavor"
	case "mlplatform_topology":
		return "Topology"
	case "mlplatform_local_queue":
		return "LocalQueue"
	case "mlplatform_workload_priority_class":
		return "WorkloadPriorityClass"
	case "mlplatform_provisioning_admission_check":
		return "Flex-start admission check"
	case "mlplatform_team_namespace":
		return "Team namespace"
	case "mlplatform_training_network_policy":
		return "Network policy"
	case "mlplatform_gpu_pool":
		return "GPU pool"
	case "mlplatform_workload_identity":
		return "Workload Identity binding"
	case "mlplatform_multikueue_check":
		return "MultiKueue admission check"
	case "mlplatform_multikueue_cluster":
		return "MultiKueue cluster"
	}
	return strings.TrimPrefix(typ, "mlplatform_")
}
