// Package tfplan reads Terraform's JSON plan (`terraform show -json
// PLANFILE`): the resource changes, their values with what is known only
// after apply, and the provider configuration (the cluster) of each
// resource. It imports no Terraform package.
package tfplan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
	Actions []string `json:"actions"`
	// ReplacePaths are the attributes that force a replacement, each a path
	// of attribute names and indexes (Terraform's replace_paths).
	ReplacePaths [][]any `json:"replace_paths,omitempty"`
	Before       any     `json:"before"`
	After        any     `json:"after"`
	AfterUnknown any     `json:"after_unknown"`
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

// Node is a value of a plan object together with its unknown marks: a
// subtree of after_unknown, or true when the whole value is unknown.
type Node struct {
	V any // the value (JSON: map[string]any, []any, string, json.Number, bool, nil)
	U any // its unknown marks
}

// Unknown reports whether the whole value is known only after apply.
func (n Node) Unknown() bool { b, _ := n.U.(bool); return b }

// Null reports a known null.
func (n Node) Null() bool { return n.V == nil && !n.Unknown() }

// Get is the attribute or map element key of an object.
func (n Node) Get(key string) Node {
	if n.Unknown() {
		return Node{U: true}
	}
	m, _ := n.V.(map[string]any)
	um, _ := n.U.(map[string]any)
	var u any
	if um != nil {
		u = um[key]
	}
	return Node{V: m[key], U: u}
}

// Has reports whether an object carries the attribute (Terraform writes
// every attribute, null when unset; a hand-written or trimmed plan may not).
func (n Node) Has(key string) bool {
	m, ok := n.V.(map[string]any)
	if !ok || n.Unknown() {
		return true
	}
	_, has := m[key]
	return has
}

// List is the elements of a list or set.
func (n Node) List() []Node {
	l, _ := n.V.([]any)
	ul, _ := n.U.([]any)
	out := make([]Node, len(l))
	for i := range l {
		var u any
		if i < len(ul) {
			u = ul[i]
		}
		out[i] = Node{V: l[i], U: u}
	}
	return out
}

// Str is a known string: (value, true); null, unknown or not a string: false.
func (n Node) Str() (string, bool) {
	s, ok := n.V.(string)
	return s, ok && !n.Unknown()
}

// Integer is a known whole number.
func (n Node) Integer() (int64, bool) {
	if n.Unknown() {
		return 0, false
	}
	switch x := n.V.(type) {
	case json.Number:
		i, err := x.Int64()
		return i, err == nil
	case float64:
		return int64(x), x == float64(int64(x))
	}
	return 0, false
}

// StringMap is a known map of strings; unknown when any part is unknown.
func (n Node) StringMap() (m map[string]string, unknown bool) {
	if n.Unknown() {
		return nil, true
	}
	if um, ok := n.U.(map[string]any); ok {
		for _, v := range um {
			if b, _ := v.(bool); b {
				return nil, true
			}
		}
	}
	raw, _ := n.V.(map[string]any)
	m = make(map[string]string, len(raw))
	for k, v := range raw {
		s, _ := v.(string)
		m[k] = s
	}
	return m, false
}

// Side is one side of a change: before (the state Terraform refreshed) or
// after (what apply will leave).
type Side int

// The sides.
const (
	Before Side = iota
	After
)

// Object is the change's object on side s.
func (c ResourceChange) Object(s Side) Node {
	if s == Before {
		return Node{V: c.Change.Before}
	}
	return Node{V: c.Change.After, U: c.Change.AfterUnknown}
}

// EachObject calls fn with each managed resource's object on side s,
// skipping data sources and objects that are null there (created or
// destroyed).
func EachObject(changes []ResourceChange, s Side, fn func(c ResourceChange, obj Node)) {
	for _, c := range changes {
		if c.Mode != "" && c.Mode != "managed" {
			continue
		}
		if obj := c.Object(s); !obj.Null() {
			fn(c, obj)
		}
	}
}

// ClusterKeys maps a resource's configuration address (its address without
// instance keys) to its provider configuration key, which stands for the
// cluster it is in; nil when the plan has no configuration or all of it is
// in one provider configuration (one cluster: nothing to tell apart). A
// module's own entry (its prefix, "module.team_europe.") is the key all its
// resources share, for resources the configuration no longer has (deleted).
type ClusterKeys map[string]string

// ClusterKeysOf reads the plan's configuration.
func ClusterKeysOf(p Plan) ClusterKeys {
	if p.Configuration == nil {
		return nil
	}
	out := ClusterKeys{}
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

// Of is the provider configuration key of the resource at addr, "" when
// unknown (a plan without configuration, or of one cluster). A resource the
// configuration no longer has (deleted) takes its module's key.
func (k ClusterKeys) Of(addr string) string {
	if k == nil {
		return ""
	}
	a := StripKeys(addr)
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

// StripKeys drops the instance keys of an address:
// module.team["nlp"].mlplatform_cluster_queue.this[0] →
// module.team.mlplatform_cluster_queue.this.
func StripKeys(addr string) string {
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

// ModulePath is the module part of an address ("" in the root module):
// module.team["nlp"].mlplatform_local_queue.gpu → module.team["nlp"].
func ModulePath(addr string) string {
	end := 0
	for strings.HasPrefix(addr[end:], "module.") {
		i := end + len("module.")
		for i < len(addr) && addr[i] != '.' && addr[i] != '[' {
			i++
		}
		if i < len(addr) && addr[i] == '[' {
			i += len(addr[i:]) - len(afterKey(addr[i:]))
		}
		if i >= len(addr) || addr[i] != '.' {
			break
		}
		end = i + 1
	}
	return addr[:end]
}

// afterKey is what follows the instance key s starts with: `["a.b"].x` → `.x`.
func afterKey(s string) string {
	quoted := false
	for i := 1; i < len(s); i++ {
		switch {
		case quoted && s[i] == '\\':
			i++
		case s[i] == '"':
			quoted = !quoted
		case !quoted && s[i] == ']':
			return s[i+1:]
		}
	}
	return ""
}

// Declaration splits a resource instance's address into where it is
// declared: the module calls leading to it, outermost first, and the
// resource's "TYPE.NAME", both without instance keys.
// module.team["a"].mlplatform_cluster_queue.q[0] is ([team], mlplatform_cluster_queue.q);
// ok is false for data sources and addresses that are not a resource's.
func Declaration(addr string) (calls []string, resource string, ok bool) {
	mod := ModulePath(addr)
	for rest := mod; rest != ""; {
		rest = strings.TrimPrefix(rest, "module.")
		i := strings.IndexAny(rest, ".[")
		calls = append(calls, rest[:i])
		rest = rest[i:]
		if rest[0] == '[' {
			rest = afterKey(rest)
		}
		rest = strings.TrimPrefix(rest, ".")
	}
	res := addr[len(mod):]
	if i := strings.IndexByte(res, '['); i >= 0 {
		res = res[:i]
	}
	typ, name, found := strings.Cut(res, ".")
	if !found || typ == "data" || typ == "module" || typ == "" || name == "" || strings.Contains(name, ".") {
		return nil, "", false
	}
	return calls, res, true
}
