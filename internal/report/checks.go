package report

// Platform checks: cross-resource rules on the planned values of the whole
// configuration (every resource_changes entry's after object, which holds
// drift as the plan has it: refreshed values Terraform keeps, or the
// configuration it puts back). One resource cannot see another at plan time;
// the plan as a whole can. A value known only after apply is never guessed:
// the rule reports it could not decide.

import (
	"fmt"
	"sort"
	"strings"
)

// Severity of a finding.
type Severity string

// Severities, most severe first. Error: given the plan, it will break.
// Warning: it breaks unless something outside this configuration saves it.
// Undecided: a value the rule needs is known only after apply; neither a
// pass nor a failure.
const (
	SevError     Severity = "error"
	SevWarning   Severity = "warning"
	SevUndecided Severity = "undecided"
)

func (s Severity) rank() int {
	switch s {
	case SevError:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// Finding is one result of a check.
type Finding struct {
	ID        string // stable identifier, e.g. MLP001; see docs/guides/checks.md
	Slug      string // short name, e.g. queue-selects-no-namespace
	Severity  Severity
	Resources []string // addresses of the resources involved
	What      string   // what will happen, in the platform's words
	Fix       string   // what to change; for undecided, how to have it decided
}

// checkDef is one rule.
type checkDef struct {
	ID, Slug string
	run      func(c *checkCtx)
}

// CheckCount is the number of checks the report runs.
func CheckCount() int { return len(checkDefs) }

// checkCtx holds the configuration's planned values and collects findings.
type checkCtx struct {
	cur      checkDef
	findings []Finding

	namespaces []*nsState
	queues     []*cqState
	cohorts    []*quotaOwner
	lqs        []*lqState
	flavors    []*flavorCheck
	pools      []*poolCheck
	provChecks []*provCheckState
	policies   []*netpolState
	identities []*wiState
	mkChecks   []*mkCheckState

	mk      []MultiKueueTeam // multiKueue(), computed once
	mkDone  bool
	mkLoose []MultiKueueTeam // undecided managers or LocalQueues that belong to no team
}

func (c *checkCtx) add(sev Severity, resources []string, what, fix string) {
	c.findings = append(c.findings, Finding{ID: c.cur.ID, Slug: c.cur.Slug, Severity: sev, Resources: dedupe(resources), What: what, Fix: fix})
}

func (c *checkCtx) undecided(resources []string, what string) {
	c.add(SevUndecided, resources, what, undecidedFix)
}

// undecidedFix is what to do about any undecided finding.
const undecidedFix = "nothing if the configuration is as intended: the check decides on a later plan, once the value is known; " +
	"to have it decided now, refer to values known at plan time (a resource's name, e.g. mlplatform_cluster_queue.NAME.name, not its id)"

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// run runs every rule on the after side of the plan.
func (c *checkCtx) run() []Finding {
	for _, d := range checkDefs {
		c.cur = d
		d.run(c)
	}
	out := c.findings
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity.rank() != out[j].Severity.rank() {
			return out[i].Severity.rank() < out[j].Severity.rank()
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// ChecksFailed says whether a check found a problem (error or warning);
// undecided results never fail.
func (r Report) ChecksFailed() bool {
	for _, f := range r.Checks {
		if f.Severity != SevUndecided {
			return true
		}
	}
	return false
}

// --- the configuration as the checks see it ---------------------------------

// strVal is a string attribute: its value, whether it is known and not
// null, and whether it is unknown until apply.
type strVal struct {
	S       string
	Known   bool // known and not null
	Unknown bool
}

func strOf(n node) strVal {
	if n.unknown() {
		return strVal{Unknown: true}
	}
	s, ok := n.str()
	return strVal{S: s, Known: ok}
}

// boolOf is a bool attribute with its default when null; ok is false when
// unknown until apply.
func boolOf(n node, def bool) (v, ok bool) {
	if n.unknown() {
		return false, false
	}
	if b, isBool := n.v.(bool); isBool {
		return b, true
	}
	return def, true
}

type nsState struct {
	Address       string
	Cluster       string
	Name          strVal
	Labels        map[string]string
	LabelsUnknown bool
}

type labelExpr struct {
	Key, Op string
	Values  []string
}

type selectorState struct {
	// Absent: the plan does not carry the attribute (a hand-written or
	// partial plan; Terraform writes every attribute, null when unset).
	Absent        bool
	Null, Unknown bool
	MatchLabels   map[string]string
	Exprs         []labelExpr
}

func (s selectorState) all() bool { return !s.Null && len(s.MatchLabels) == 0 && len(s.Exprs) == 0 }

func (s selectorState) matches(labels map[string]string) bool {
	if s.Null {
		return false
	}
	for k, v := range s.MatchLabels {
		if lv, ok := labels[k]; !ok || lv != v {
			return false
		}
	}
	for _, e := range s.Exprs {
		v, has := labels[e.Key]
		in := false
		for _, x := range e.Values {
			if x == v {
				in = true
			}
		}
		switch e.Op {
		case "In":
			if !has || !in {
				return false
			}
		case "NotIn":
			if has && in {
				return false
			}
		case "Exists":
			if !has {
				return false
			}
		case "DoesNotExist":
			if has {
				return false
			}
		}
	}
	return true
}

// describe: "namespaces labelled mlplatform.dev/team=nlp-research".
func (s selectorState) describe() string {
	var parts []string
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+s.MatchLabels[k])
	}
	for _, e := range s.Exprs {
		switch e.Op {
		case "Exists":
			parts = append(parts, e.Key+" (any value)")
		case "DoesNotExist":
			parts = append(parts, "no "+e.Key)
		case "NotIn":
			parts = append(parts, e.Key+" not in ("+strings.Join(e.Values, ", ")+")")
		default:
			parts = append(parts, e.Key+" in ("+strings.Join(e.Values, ", ")+")")
		}
	}
	return "namespaces labelled " + strings.Join(parts, ", ")
}

func selectorOf(obj node, attr string) selectorState {
	if m, ok := obj.v.(map[string]any); ok && !obj.unknown() {
		if _, has := m[attr]; !has {
			return selectorState{Absent: true}
		}
	}
	n := obj.get(attr)
	if n.unknown() {
		return selectorState{Unknown: true}
	}
	if n.null() {
		return selectorState{Null: true}
	}
	s := selectorState{}
	ml, unknown := n.get("match_labels").stringMap()
	if unknown {
		return selectorState{Unknown: true}
	}
	s.MatchLabels = ml
	me := n.get("match_expressions")
	if me.unknown() {
		return selectorState{Unknown: true}
	}
	for _, e := range me.list() {
		k, op := strOf(e.get("key")), strOf(e.get("operator"))
		vals := e.get("values")
		if !k.Known || !op.Known || vals.unknown() {
			return selectorState{Unknown: true}
		}
		x := labelExpr{Key: k.S, Op: op.S}
		for _, v := range vals.list() {
			sv := strOf(v)
			if !sv.Known {
				return selectorState{Unknown: true}
			}
			x.Values = append(x.Values, sv.S)
		}
		s.Exprs = append(s.Exprs, x)
	}
	return s
}

// cqState is a ClusterQueue.
type cqState struct {
	*quotaOwner
	NameKnown bool
	Selector  selectorState
	// Groups lists each resource group's flavors in order, with whether it
	// covers nvidia.com/gpu.
	Groups []groupState
	// Checks maps an admission check name to the flavors it applies to
	// (nil: all); ChecksUnknown when admission_checks is unknown.
	Checks        map[string][]string
	ChecksUnknown bool
}

type groupState struct {
	GPU     bool
	Flavors []string
}

// flavorNames lists the flavors the queue has quota on, in order.
func (q *cqState) flavorNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range q.Keys {
		if !seen[k.Flavor] {
			seen[k.Flavor] = true
			out = append(out, k.Flavor)
		}
	}
	return out
}

// checksOn lists the admission checks that apply to the flavor.
func (q *cqState) checksOn(flavor string) []string {
	var out []string
	for name, on := range q.Checks {
		if on == nil {
			out = append(out, name)
			continue
		}
		for _, f := range on {
			if f == flavor {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

type lqState struct {
	Address             string
	Namespace, Name, CQ strVal
	Cluster             string
}

func (l *lqState) label() string {
	ns, n := l.Namespace.S, l.Name.S
	if !l.Namespace.Known {
		ns = "(namespace " + unknownText + ")"
	}
	if !l.Name.Known {
		n = "(name " + unknownText + ")"
	}
	return ns + "/" + n
}

type toleration struct{ Key, Op, Value, Effect string }

func (t toleration) tolerates(x taint) bool {
	if t.Effect != "" && t.Effect != x.Effect {
		return false
	}
	if t.Key == "" {
		return t.Op == "Exists"
	}
	if t.Key != x.Key {
		return false
	}
	return t.Op == "Exists" || t.Value == x.Value
}

type taint struct{ Key, Value, Effect string }

func (t taint) String() string {
	if t.Value == "" {
		return t.Key + ":" + t.Effect
	}
	return t.Key + "=" + t.Value + ":" + t.Effect
}

type flavorCheck struct {
	*flavorState
	NameKnown   bool
	Tolerations []toleration
	TolUnknown  bool
	TolAbsent   bool // the plan does not carry tolerations: taint rules skip the flavor
}

func (f *flavorCheck) tolerates(x taint) bool {
	for _, t := range f.Tolerations {
		if t.tolerates(x) {
			return true
		}
	}
	return false
}

// GKE's own taints on GPU and queued-provisioning nodes.
var (
	gpuTaint    = taint{Key: "nvidia.com/gpu", Value: "present", Effect: "NoSchedule"}
	queuedTaint = taint{Key: "cloud.google.com/gke-queued", Value: "true", Effect: "NoSchedule"}
)

type poolCheck struct {
	*poolState
	// Taints that keep pods off the nodes (NoSchedule, NoExecute): the
	// planned taints, GKE's nvidia.com/gpu taint, the queued-provisioning
	// taint and effective_taints when known, as workload_tolerations covers.
	Taints        []taint
	TaintsUnknown bool
	Queued        bool
	QueuedKnown   bool
	WI            bool
	WIKnown       bool
}

func (p *poolCheck) gpuKind() string {
	s := p.slicing()
	return p.GPUType + ", " + s.describe()
}

type provCheckState struct {
	Address string
	Cluster string
	Name    strVal
	Class   strVal // provisioning_class; null means queued-provisioning.gke.io
}

func (p *provCheckState) queued() (bool, bool) {
	switch {
	case p.Class.Unknown:
		return false, false
	case !p.Class.Known:
		return true, true
	}
	return p.Class.S == "queued-provisioning.gke.io", true
}

type netpolState struct {
	Address       string
	Cluster       string
	Namespace     strVal
	Metadata, DNS bool
	MetaOK, DNSOK bool
}

type wiState struct {
	Address   string
	Cluster   string
	Namespace strVal
	KSA       strVal
}

func checkContext(changes []ResourceChange, keys clusterKeys) *checkCtx {
	c := &checkCtx{}
	eachObject(changes, sideAfter, func(rc ResourceChange, obj node) {
		name := strOf(obj.get("name"))
		cluster := keys.of(rc.Address)
		switch rc.Type {
		case "mlplatform_team_namespace":
			ns := namespaceOf(rc.Address, obj)
			ns.Cluster = cluster
			c.namespaces = append(c.namespaces, ns)
		case "mlplatform_cluster_queue":
			q := queueOf(rc.Address, obj)
			q.Cluster = cluster
			c.queues = append(c.queues, q)
		case "mlplatform_cohort":
			co := ownerOf(rc.Address, obj, "parent")
			co.Cluster = cluster
			c.cohorts = append(c.cohorts, co)
		case "mlplatform_local_queue":
			c.lqs = append(c.lqs, &lqState{Address: rc.Address, Namespace: strOf(obj.get("namespace")), Name: name, CQ: strOf(obj.get("cluster_queue")), Cluster: cluster})
		case "mlplatform_resource_flavor":
			f := &flavorCheck{flavorState: flavorOf(rc.Address, obj), NameKnown: name.Known}
			f.Cluster = cluster
			f.Tolerations, f.TolUnknown = tolerationsOf(obj.get("tolerations"))
			if m, ok := obj.v.(map[string]any); ok {
				_, has := m["tolerations"]
				f.TolAbsent = !has
			}
			c.flavors = append(c.flavors, f)
		case "mlplatform_gpu_pool":
			p := poolCheckOf(rc.Address, obj)
			p.Cluster = cluster
			c.pools = append(c.pools, p)
		case "mlplatform_provisioning_admission_check":
			c.provChecks = append(c.provChecks, &provCheckState{Address: rc.Address, Cluster: cluster, Name: name, Class: strOf(obj.get("provisioning_class"))})
		case "mlplatform_training_network_policy":
			p := &netpolState{Address: rc.Address, Cluster: cluster, Namespace: strOf(obj.get("namespace"))}
			p.Metadata, p.MetaOK = boolOf(obj.get("metadata_server"), true)
			p.DNS, p.DNSOK = boolOf(obj.get("dns"), true)
			c.policies = append(c.policies, p)
		case "mlplatform_multikueue_check":
			m := &mkCheckState{Address: rc.Address, Name: name}
			if cl := obj.get("clusters"); !cl.unknown() {
				m.Clusters = []string{}
				for _, x := range cl.list() {
					if s, ok := x.str(); ok {
						m.Clusters = append(m.Clusters, s)
					}
				}
			}
			c.mkChecks = append(c.mkChecks, m)
		case "mlplatform_workload_identity":
			c.identities = append(c.identities, &wiState{Address: rc.Address, Cluster: cluster, Namespace: strOf(obj.get("namespace")), KSA: strOf(obj.get("kubernetes_service_account"))})
		}
	})
	return c
}

func namespaceOf(addr string, obj node) *nsState {
	ns := &nsState{Address: addr, Name: strOf(obj.get("name"))}
	labels, unknown := obj.get("labels").stringMap()
	ns.Labels = map[string]string{}
	for k, v := range labels {
		ns.Labels[k] = v
	}
	for attr, key := range map[string]string{"team": "mlplatform.dev/team", "owner": "mlplatform.dev/owner", "pod_security_level": "pod-security.kubernetes.io/enforce"} {
		v := strOf(obj.get(attr))
		switch {
		case v.Unknown:
			unknown = true
		case v.Known:
			ns.Labels[key] = v.S
		case attr == "pod_security_level":
			ns.Labels[key] = "restricted"
		}
	}
	switch {
	case ns.Name.Unknown:
		unknown = true
	case ns.Name.Known:
		ns.Labels["kubernetes.io/metadata.name"] = ns.Name.S
	}
	ns.LabelsUnknown = unknown
	return ns
}

func queueOf(addr string, obj node) *cqState {
	q := &cqState{quotaOwner: ownerOf(addr, obj, "cohort"), NameKnown: strOf(obj.get("name")).Known, Selector: selectorOf(obj, "namespace_selector")}
	groups := obj.get("resource_groups")
	if !groups.unknown() {
		for _, g := range groups.list() {
			gs := groupState{}
			cov := g.get("covered_resources")
			for _, r := range cov.list() {
				if s, ok := r.str(); ok && s == gpuResource {
					gs.GPU = true
				}
			}
			for _, f := range g.get("flavors").list() {
				if s, ok := f.get("name").str(); ok {
					gs.Flavors = append(gs.Flavors, s)
				} else {
					gs.Flavors = append(gs.Flavors, "")
				}
			}
			q.Groups = append(q.Groups, gs)
		}
	}
	ac := obj.get("admission_checks")
	q.Checks = map[string][]string{}
	switch {
	case ac.unknown():
		q.ChecksUnknown = true
	case !ac.null():
		m, _ := ac.v.(map[string]any)
		for name := range m {
			on := ac.get(name).get("on_flavors")
			if on.unknown() {
				q.ChecksUnknown = true
				continue
			}
			if on.null() {
				q.Checks[name] = nil
				continue
			}
			list := []string{}
			for _, f := range on.list() {
				s, ok := f.str()
				if !ok {
					q.ChecksUnknown = true
				}
				list = append(list, s)
			}
			q.Checks[name] = list
		}
	}
	return q
}

func tolerationsOf(n node) ([]toleration, bool) {
	if n.unknown() {
		return nil, true
	}
	var out []toleration
	for _, t := range n.list() {
		var parts [4]strVal
		for i, a := range []string{"key", "operator", "value", "effect"} {
			parts[i] = strOf(t.get(a))
			if parts[i].Unknown {
				return nil, true
			}
		}
		op := parts[1].S
		if op == "" {
			op = "Equal"
		}
		out = append(out, toleration{Key: parts[0].S, Op: op, Value: parts[2].S, Effect: parts[3].S})
	}
	return out, false
}

func poolCheckOf(addr string, obj node) *poolCheck {
	p := &poolCheck{poolState: poolOf(addr, obj)}
	p.Queued, p.QueuedKnown = boolOf(obj.get("queued_provisioning"), false)
	p.WI, p.WIKnown = boolOf(obj.get("workload_identity"), true)
	seen := map[taint]bool{}
	addTaint := func(t taint) {
		if (t.Effect == "NoSchedule" || t.Effect == "NoExecute") && !seen[t] {
			seen[t] = true
			p.Taints = append(p.Taints, t)
		}
	}
	addTaint(gpuTaint)
	switch {
	case !p.QueuedKnown:
		p.TaintsUnknown = true
	case p.Queued:
		addTaint(queuedTaint)
	}
	taints := obj.get("taints")
	if taints.unknown() {
		p.TaintsUnknown = true
	} else if m, ok := taints.v.(map[string]any); ok {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t := taints.get(k)
			v, e := strOf(t.get("value")), strOf(t.get("effect"))
			if t.unknown() || v.Unknown || e.Unknown {
				p.TaintsUnknown = true
				continue
			}
			addTaint(taint{Key: k, Value: v.S, Effect: e.S})
		}
	}
	// effective_taints: what GKE reports (known once the pool exists and its
	// taints do not change); unknown is no reason not to decide, as the
	// planned taints say what GKE will set.
	if et := obj.get("effective_taints"); !et.unknown() {
		for _, t := range et.list() {
			k, v, e := strOf(t.get("key")), strOf(t.get("value")), strOf(t.get("effect"))
			if k.Known && e.Known {
				addTaint(taint{Key: k.S, Value: v.S, Effect: e.S})
			}
		}
	}
	return p
}

// --- lookups -------------------------------------------------------------------

// at is where a resource is: its address and its cluster (the key of its
// provider configuration, "" when the plan does not say).
type at struct{ Address, Cluster string }

func (q *cqState) at() at        { return at{q.Address, q.Cluster} }
func (o *quotaOwner) at() at     { return at{o.Address, o.Cluster} }
func (l *lqState) at() at        { return at{l.Address, l.Cluster} }
func (f *flavorCheck) at() at    { return at{f.Address, f.Cluster} }
func (p *poolCheck) at() at      { return at{p.Address, p.Cluster} }
func (n *nsState) at() at        { return at{n.Address, n.Cluster} }
func (p *provCheckState) at() at { return at{p.Address, p.Cluster} }
func (p *netpolState) at() at    { return at{p.Address, p.Cluster} }
func (w *wiState) at() at        { return at{w.Address, w.Cluster} }

// sameCluster: both are in one cluster, or the plan does not say for one
// of them.
func sameCluster(a, b at) bool { return a.Cluster == "" || b.Cluster == "" || a.Cluster == b.Cluster }

// modulePath is the module part of an address ("" in the root module):
// module.team["nlp"].mlplatform_local_queue.gpu → module.team["nlp"].
func modulePath(addr string) string {
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

// inCluster lists the resources in from's cluster.
func inCluster[T interface{ at() at }](from at, xs []T) []T {
	var out []T
	for _, x := range xs {
		if sameCluster(from, x.at()) {
			out = append(out, x)
		}
	}
	return out
}

// near narrows the resources a reference by name may mean (those of that
// name, in configuration order) to the referrer's cluster, and, where
// several remain (the same team module instantiated per cluster), to the
// referrer's module: a name is looked up where the referring resource is,
// never across clusters.
func near[T interface{ at() at }](from at, cands []T) []T {
	same := inCluster(from, cands)
	if len(same) <= 1 {
		return same
	}
	var mod []T
	for _, x := range same {
		if modulePath(x.at().Address) == modulePath(from.Address) {
			mod = append(mod, x)
		}
	}
	if len(mod) > 0 {
		return mod
	}
	return same
}

func first[T any](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	return xs[0]
}

// queues lists the ClusterQueues a reference from `from` to name may mean.
func (c *checkCtx) queuesNamed(from at, name string) []*cqState {
	var all []*cqState
	for _, q := range c.queues {
		if q.NameKnown && q.Name == name {
			all = append(all, q)
		}
	}
	return near(from, all)
}

// queue is the ClusterQueue a reference from `from` to name means.
func (c *checkCtx) queue(from at, name string) *cqState { return first(c.queuesNamed(from, name)) }

func (c *checkCtx) queueNameUnknown() bool {
	for _, q := range c.queues {
		if !q.NameKnown {
			return true
		}
	}
	return false
}

// flavor is the ResourceFlavor a reference from `from` to name means.
func (c *checkCtx) flavor(from at, name string) *flavorCheck {
	var all []*flavorCheck
	for _, f := range c.flavors {
		if f.NameKnown && f.Name == name {
			all = append(all, f)
		}
	}
	return first(near(from, all))
}

// namespace is the team namespace a reference from `from` to name means.
func (c *checkCtx) namespace(from at, name string) *nsState {
	var all []*nsState
	for _, ns := range c.namespaces {
		if ns.Name.Known && ns.Name.S == name {
			all = append(all, ns)
		}
	}
	return first(near(from, all))
}

// provCheck is the provisioning admission check a reference from `from`
// to name means.
func (c *checkCtx) provCheck(from at, name string) *provCheckState {
	var all []*provCheckState
	for _, p := range c.provChecks {
		if p.Name.Known && p.Name.S == name {
			all = append(all, p)
		}
	}
	return first(near(from, all))
}

// poolsOf lists the pools of the flavor's cluster whose node_selector is a
// subset of the flavor's node_labels; unknown when the labels or a selector
// are unknown.
func (c *checkCtx) poolsOf(f *flavorCheck) ([]*poolCheck, bool) {
	if f.LabelsUnknown {
		return nil, true
	}
	var out []*poolCheck
	for _, p := range c.pools {
		if !sameCluster(f.at(), p.at()) {
			continue
		}
		if p.SelectorUnknown {
			return nil, true
		}
		if p.matches(f.Labels) {
			out = append(out, p)
		}
	}
	return out, false
}

// lqsOf lists the LocalQueues that name the ClusterQueue.
func (c *checkCtx) lqsOf(q *cqState) []*lqState {
	var out []*lqState
	for _, l := range c.lqs {
		for _, x := range c.resolve(l) {
			if x == q {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

func addresses[T any](xs []T, addr func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, addr(x))
	}
	return out
}

func names[T any](xs []T, name func(T) string) string {
	return strings.Join(addresses(xs, name), ", ")
}

func poolAddr(p *poolCheck) string { return p.Address }
func poolName(p *poolCheck) string { return p.Name }
func lqAddr(l *lqState) string     { return l.Address }

// gpuQuota is the queue's nominal nvidia.com/gpu quota of the flavor.
func gpuQuota(o *quotaOwner, flavor string) (Qty, bool) {
	q, ok := o.Quotas[qkey{flavor, gpuResource}]
	return q.Nominal, ok
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// --- rendering -------------------------------------------------------------------

// checksSummary: "all 17 checks passed", or what was found.
func checksSummary(r Report) string {
	n := CheckCount()
	counts := map[Severity]int{}
	for _, f := range r.Checks {
		counts[f.Severity]++
	}
	if len(r.Checks) == 0 {
		return fmt.Sprintf("All %d checks passed.", n)
	}
	var parts []string
	if k := counts[SevError] + counts[SevWarning]; k > 0 {
		parts = append(parts, fmt.Sprintf("%s (%d error(s), %d warning(s))", plural(k, "finding", "findings"), counts[SevError], counts[SevWarning]))
	} else {
		parts = append(parts, "no findings")
	}
	if k := counts[SevUndecided]; k > 0 {
		parts = append(parts, fmt.Sprintf("%d undecided (a value known only after apply)", k))
	}
	return fmt.Sprintf("%d checks: %s.", n, strings.Join(parts, "; "))
}

func findingText(f Finding) string {
	s := fmt.Sprintf("%s %s (%s): ", f.ID, f.Slug, f.Severity)
	if f.Severity != SevUndecided {
		s = warn + s
	}
	s += f.What + "."
	if f.Fix != "" {
		s += " Change: " + f.Fix + "."
	}
	if len(f.Resources) > 0 {
		s += " Resources: " + strings.Join(f.Resources, ", ") + "."
	}
	return s
}

func checkBlocks(r Report) []any {
	out := []any{heading{2, "Checks"}, para{checksSummary(r)}}
	if len(r.Checks) == 0 {
		return out
	}
	items := make([]string, 0, len(r.Checks))
	for _, f := range r.Checks {
		items = append(items, findingText(f))
	}
	return append(out, bullets{items}, para{"Cross-resource rules on the planned values of the whole configuration, drift included; " +
		"each identifier and its fix is described in docs/guides/checks.md. Undecided: a value the rule needs is known only after apply, " +
		"so it is neither a pass nor a failure; --fail-on checks fails on errors and warnings, never on undecided."})
}
