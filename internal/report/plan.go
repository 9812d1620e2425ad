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
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Plan is the part of Terraform's JSON plan format the report reads.
type Plan struct {
	FormatVersion   string           `json:"format_version"`
	ResourceChanges []ResourceChange `json:"resource_changes"`
	ResourceDrift   []ResourceChange `json:"resource_drift"`
	// Configuration is read for each resource's provider configuration:
	// the cluster it is in, on a platform of several clusters (one provider
	// alias each). Absent in hand-written or trimmed plans, which are read
	// as one cluster.
	Configuration *Configuration `json:"configuration,omitempty"`
}

// Configuration is the part of the plan's configuration the report reads.
type Configuration struct {
	RootModule ConfigModule `json:"root_module"`
}

// ConfigModule is a module of the configuration: its resources and calls.
type ConfigModule struct {
	Resources   []ConfigResource      `json:"resources,omitempty"`
	ModuleCalls map[string]ModuleCall `json:"module_calls,omitempty"`
}

// ModuleCall is a module block.
type ModuleCall struct {
	Module ConfigModule `json:"module"`
}

// ConfigResource is a resource block: its address within its module and
// the key of its provider configuration. Terraform writes a child module's
// resource with the key of the configuration passed to the module
// (providers = { mlplatform = mlplatform.europe } gives "mlplatform.europe").
type ConfigResource struct {
	Address           string `json:"address"`
	ProviderConfigKey string `json:"provider_config_key"`
}

// ResourceChange is one entry of resource_changes or resource_drift.
type ResourceChange struct {
	Address string `json:"address"`
	Mode    string `json:"mode"`
	Type    string `json:"type"`
	Name    string `json:"name"`
	Change  Change `json:"change"`
}

// Change holds an object before and after, and which parts of after are
// unknown until apply (after_unknown mirrors after, true at unknown parts).
type Change struct {
	Actions      []string `json:"actions"`
	Before       any      `json:"before"`
	After        any      `json:"after"`
	AfterUnknown any      `json:"after_unknown"`
}

// ReadPlan decodes plan JSON. Numbers keep their exact text.
func ReadPlan(r io.Reader) (Plan, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Plan{}, fmt.Errorf("reading the plan: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return Plan{}, errors.New("the plan is empty: pass the output of `terraform show -json PLANFILE`")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return Plan{}, fmt.Errorf("the input is not plan JSON (expected the output of `terraform show -json PLANFILE`): %w", err)
	}
	if p.FormatVersion == "" {
		return Plan{}, errors.New("the input has no format_version, so it is not a Terraform JSON plan: " +
			"run `terraform plan -out plan.tfplan` and then `terraform show -json plan.tfplan`")
	}
	return p, nil
}

// node is a value of a plan object together with its unknown marks: a
// subtree of after_unknown, or true when the whole value is unknown.
type node struct {
	v any
	u any
}

func (n node) unknown() bool { b, _ := n.u.(bool); return b }

func (n node) null() bool { return n.v == nil && !n.unknown() }

func (n node) get(key string) node {
	if n.unknown() {
		return node{u: true}
	}
	m, _ := n.v.(map[string]any)
	um, _ := n.u.(map[string]any)
	var u any
	if um != nil {
		u = um[key]
	}
	return node{v: m[key], u: u}
}

func (n node) list() []node {
	l, _ := n.v.([]any)
	ul, _ := n.u.([]any)
	out := make([]node, len(l))
	for i := range l {
		var u any
		if i < len(ul) {
			u = ul[i]
		}
		out[i] = node{v: l[i], u: u}
	}
	return out
}

// str is a known string: (value, true); null, unknown or not a string: false.
func (n node) str() (string, bool) {
	s, ok := n.v.(string)
	return s, ok && !n.unknown()
}

// integer is a known whole number.
func (n node) integer() (int64, bool) {
	if n.unknown() {
		return 0, false
	}
	switch x := n.v.(type) {
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	case float64:
		return int64(x), x == float64(int64(x))
	}
	return 0, false
}

// stringMap is a known map of strings; unknown when any part is unknown.
func (n node) stringMap() (m map[string]string, unknown bool) {
	if n.unknown() {
		return nil, true
	}
	if um, ok := n.u.(map[string]any); ok {
		for _, v := range um {
			if b, _ := v.(bool); b {
				return nil, true
			}
		}
	}
	raw, _ := n.v.(map[string]any)
	m = make(map[string]string, len(raw))
	for k, v := range raw {
		s, _ := v.(string)
		m[k] = s
	}
	return m, false
}

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

// clusterKeys maps a resource's configuration address (its address without
// instance keys) to its provider configuration key, which stands for the
// cluster it is in; nil when the plan has no configuration or all of it is
// in one provider configuration (one cluster: nothing to tell apart). A
// module's own entry (its prefix, "module.team_europe.") is the key all its
// resources share, for resources the configuration no longer has (deleted).
type clusterKeys map[string]string

func clusterKeysOf(p Plan) clusterKeys {
	if p.Configuration == nil {
		return nil
	}
	out := clusterKeys{}
	distinct := map[string]bool{}
	var walk func(prefix string, m ConfigModule)
	walk = func(prefix string, m ConfigModule) {
		for _, r := range m.Resources {
			out[prefix+r.Address] = r.ProviderConfigKey
			distinct[r.ProviderConfigKey] = true
			if prev, ok := out[prefix]; !ok {
				out[prefix] = r.ProviderConfigKey
			} else if prev != r.ProviderConfigKey {
				out[prefix] = "" // the module spans clusters
			}
		}
		for name, call := range m.ModuleCalls {
			walk(prefix+"module."+name+".", call.Module)
		}
	}
	walk("", p.Configuration.RootModule)
	if len(distinct) <= 1 {
		return nil
	}
	return out
}

// of is the provider configuration key of the resource at addr, "" when
// unknown (a plan without configuration, or of one cluster). A resource the
// configuration no longer has (deleted) takes its module's key.
func (k clusterKeys) of(addr string) string {
	if k == nil {
		return ""
	}
	a := stripKeys(addr)
	if v, ok := k[a]; ok {
		return v
	}
	parts := strings.Split(a, ".")
	i := 0
	for i+1 < len(parts) && parts[i] == "module" {
		i += 2
	}
	if i == 0 {
		return "" // a root resource: no module to go by
	}
	return k[strings.Join(parts[:i], ".")+"."]
}

// stripKeys drops the instance keys of an address:
// module.team["nlp"].mlplatform_cluster_queue.this[0] →
// module.team.mlplatform_cluster_queue.this.
func stripKeys(addr string) string {
	var b strings.Builder
	depth, quoted := 0, false
	for i := 0; i < len(addr); i++ {
		ch := addr[i]
		switch {
		case quoted && ch == '\\':
			i++
		case quoted:
			quoted = ch != '"'
		case ch == '"' && depth > 0:
			quoted = true
		case ch == '[':
			depth++
		case ch == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(ch)
		}
	}
	return b.String()
}
