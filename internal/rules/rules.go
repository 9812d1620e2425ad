// Package rules holds the platform's cross-resource rules, each written
// once with one stable identifier, over the one model of the platform
// (internal/model): `mlplatform report` runs them on a saved plan's
// configuration, `mlplatform doctor` on the live cluster, wherever a rule's
// inputs exist. A rule never knows which. A value known only after apply is
// never guessed: the rule says it could not decide (undecided).
package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// Severity of a finding.
type Severity string

// Severities, most severe first. Error: it will break (in a plan: given the
// plan). Warning: it breaks unless something outside the source saves it.
// Undecided: a value the rule needs is known only after apply; neither a
// pass nor a failure.
const (
	SevError     Severity = "error"
	SevWarning   Severity = "warning"
	SevUndecided Severity = "undecided"
)

// Rank orders severities, most severe first.
func (s Severity) Rank() int {
	switch s {
	case SevError:
		return 0
	case SevWarning:
		return 1
	}
	return 2
}

// Finding is one result of a rule (or of one of doctor's own checks),
// rendered alike by both commands, in text and JSON.
type Finding struct {
	ID       string   `json:"id"`    // stable identifier, e.g. MLP001; see docs/guides/checks.md
	Check    string   `json:"check"` // short name, e.g. queue-selects-no-namespace
	Severity Severity `json:"severity"`
	// Objects are the objects involved, the one the finding is about first:
	// Terraform addresses in a plan, "Kind name" live.
	Objects []string `json:"objects,omitempty"`
	Message string   `json:"message"`       // what will happen, in the platform's words
	Fix     string   `json:"fix,omitempty"` // what to change; for undecided, how to have it decided
}

// Rule is one cross-resource rule.
type Rule struct {
	ID, Slug string
	// Title says what the rule checks, in one line.
	Title string
	// Aliases are identifiers doctor gave the same rule before it was one
	// (DOC008 for MLP002): they name it still.
	Aliases []string
	// Needs are the kinds the rule reads: where a live source could not
	// read one, the rule does not run.
	Needs []model.Kind
	run   func(c *ctx)
}

// Where a rule's inputs exist.
type Where string

// The places.
const (
	Both     Where = "plan and live"
	PlanOnly Where = "plan" // MultiKueue workers' quotas: one plan holds every cluster, a live cluster only itself
	LiveOnly Where = "live" // other tools' objects: a plan holds only the configuration's
)

// The kinds, short.
const (
	kNS   = model.KindNamespaces
	kCQ   = model.KindClusterQueues
	kCo   = model.KindCohorts
	kLQ   = model.KindLocalQueues
	kFl   = model.KindFlavors
	kPool = model.KindPools
	kAC   = model.KindAdmissionChecks
	kNP   = model.KindNetworkPolicies
	kID   = model.KindIdentities
	kTopo = model.KindTopologies
)

func needs(ks ...model.Kind) []model.Kind { return ks }

// Rules are the rules, in identifier order. Identifiers are stable: a rule
// that goes away leaves its number unused. docs/guides/checks.md
// (templates/guides/checks.md.tmpl) describes each one and its fix.
var Rules = []Rule{
	{"MLP001", "queue-selects-no-namespace", "every ClusterQueue selects a team namespace", nil, needs(kCQ, kNS), checkQueueSelectsNoNamespace},
	{"MLP002", "local-queue-namespace-not-selected", "every LocalQueue's namespace is selected by its ClusterQueue", []string{"DOC008"}, needs(kLQ, kCQ, kNS), checkLocalQueueNamespace},
	{"MLP003", "local-queue-cluster-queue-missing", "every LocalQueue's ClusterQueue exists", nil, needs(kLQ, kCQ), checkLocalQueueClusterQueue},
	{"MLP004", "flavor-missing", "every flavor a ClusterQueue or Cohort names exists", []string{"DOC009"}, needs(kCQ, kCo, kFl), checkFlavorMissing},
	{"MLP005", "flavor-selects-no-pool", "every flavor with quota stands for a pool (the pool's nodes carry each of its node labels)", []string{"DOC010"}, needs(kCQ, kCo, kFl, kPool), checkFlavorSelectsNoPool},
	{"MLP006", "flavor-selects-mixed-pools", "no flavor stands for pools of different GPUs", nil, needs(kFl, kPool), checkFlavorMixedPools},
	{"MLP007", "flavor-misses-pool-taint", "every flavor tolerates the taints of its pools that another of their flavors tolerates", []string{"DOC012"}, needs(kFl, kPool), checkFlavorMissesTaint},
	{"MLP008", "pool-taint-untolerated", "every taint of a pool is tolerated by a flavor that stands for it", []string{"DOC012"}, needs(kFl, kPool), checkPoolTaintUntolerated},
	{"MLP009", "queued-pool-without-provisioning-check", "every flavor of a queued-provisioning pool has a provisioning admission check", nil, needs(kCQ, kFl, kPool, kAC), checkQueuedWithoutCheck},
	{"MLP010", "provisioning-check-without-queued-pool", "every queued-provisioning admission check applies to queued-provisioning pools only", nil, needs(kCQ, kFl, kPool, kAC), checkProvisioningWithoutQueued},
	{"MLP011", "workload-identity-blocked-by-network-policy", "no training network policy keeps a Workload Identity binding's pods from the metadata server", nil, needs(kID, kNP), checkWIBlockedByPolicy},
	{"MLP012", "workload-identity-without-metadata-server", "every Workload Identity binding's team runs on pools with the GKE metadata server", nil, needs(kID, kLQ, kCQ, kFl, kPool), checkWIWithoutMetadataServer},
	{"MLP013", "gang-larger-than-pools", "every flavor's pools hold the largest queue's quota of it", nil, needs(kCQ, kCo, kFl, kPool), checkGangLargerThanPools},
	{"MLP014", "sliced-flavor-before-whole-gpus", "no resource group lists a sliced flavor before a whole-GPU one", nil, needs(kCQ, kFl, kPool), checkSlicedBeforeWhole},
	{"MLP015", "multikueue-manager-quota-above-workers", "no MultiKueue manager admits more than its workers hold", nil, needs(kCQ, kLQ, kAC), checkMultiKueueAbove},
	{"MLP016", "multikueue-manager-quota-below-workers", "no MultiKueue manager admits less than its workers hold", nil, needs(kCQ, kLQ, kAC), checkMultiKueueBelow},
	{"MLP017", "multikueue-check-misconfigured", "no ClusterQueue combines admission checks Kueue refuses with a MultiKueue check", nil, needs(kCQ, kAC), checkMultiKueueMisconfigured},
	{"MLP018", "default-deny-widened", "no other NetworkPolicy lets a team namespace's pods do more than its training network policy's holes", []string{"DOC014"}, needs(kNP), checkDefaultDenyWidened},
	{"MLP019", "gpu-quota-fractional", "no quota of an extended resource (nvidia.com/gpu) is a fraction, which no pod can use", nil, needs(kCQ, kCo), checkFractionalQuota},
	{"MLP020", "workload-identity-cannot-reach-google", "every Workload Identity binding's pods can reach Google APIs to use the token", nil, needs(kID, kNP), checkWICannotReachGoogle},
	{"MLP021", "flavor-topology-missing", "every Topology a flavor names exists", nil, needs(kFl, kTopo), checkFlavorTopologyMissing},
	{"MLP022", "topology-levels-not-on-pool", "every topology-aware flavor's pools carry its Topology's level labels", nil, needs(kFl, kTopo, kPool), checkTopologyLevelsOnPools},
	{"MLP023", "resource-group-mixes-topology", "no ClusterQueue resource group mixes topology-aware and plain flavors", nil, needs(kCQ, kFl), checkResourceGroupMixesTopology},
}

// In says where the rule's inputs exist: a plan, a live cluster, or both
// (the rule runs everywhere; where its inputs are missing it finds nothing).
func (r Rule) In() Where {
	switch r.ID {
	case "MLP015", "MLP016":
		return PlanOnly
	case "MLP018":
		return LiveOnly
	}
	return Both
}

// Runs reports whether the rule runs on the platform: its inputs exist in
// that kind of source (In), and every kind it needs was read (Unread).
func (r Rule) Runs(pl *model.Platform) bool {
	if r.In() == PlanOnly && pl.Live || r.In() == LiveOnly && !pl.Live {
		return false
	}
	return len(r.Unread(pl)) == 0
}

// Unread lists the kinds the rule needs that the platform's source could
// not read: while there is one, the rule does not run.
func (r Rule) Unread(pl *model.Platform) []model.Kind {
	var out []model.Kind
	for _, k := range r.Needs {
		if _, unread := pl.Unread[k]; unread {
			out = append(out, k)
		}
	}
	return out
}

// Count is the number of rules.
func Count() int { return len(Rules) }

// CountIn is the number of rules that run on a plan (live false) or on a
// live cluster (live true).
func CountIn(live bool) int {
	n := 0
	for _, r := range Rules {
		if r.Runs(&model.Platform{Live: live}) {
			n++
		}
	}
	return n
}

// ctx holds the platform and collects findings.
type ctx struct {
	pl       *model.Platform
	cur      Rule
	findings []Finding

	mk      []MultiKueueTeam // multiKueue(), computed once
	mkDone  bool
	mkLoose []MultiKueueTeam // undecided managers or LocalQueues that belong to no team
}

func (c *ctx) add(sev Severity, objects []string, what, fix string) {
	objects = dedupe(objects)
	c.findings = append(c.findings, Finding{ID: c.cur.ID, Check: c.cur.Slug, Severity: sev, Objects: objects, Message: what, Fix: fix})
}

func (c *ctx) undecided(objects []string, what string) {
	c.add(SevUndecided, objects, what, UndecidedFix)
}

// UndecidedFix is what to do about any undecided finding.
const UndecidedFix = "nothing if the configuration is as intended: the check decides on a later plan, once the value is known; " +
	"to have it decided now, refer to values known at plan time (a resource's name, e.g. mlplatform_cluster_queue.NAME.name, not its id)"

// unknownText is how a value known only after apply reads.
const unknownText = model.UnknownText

// Run runs every rule that runs on the platform (Rule.Runs) and returns the findings, most severe first, then by
// identifier.
func Run(pl *model.Platform) []Finding {
	c := &ctx{pl: pl}
	for _, r := range Rules {
		if !r.Runs(pl) {
			continue
		}
		c.cur = r
		r.run(c)
	}
	out := c.findings
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Severity.Rank() != out[j].Severity.Rank() {
			return out[i].Severity.Rank() < out[j].Severity.Rank()
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Lookup is the rule an identifier, or one of its aliases, names.
func Lookup(id string) (Rule, bool) {
	for _, r := range Rules {
		if r.ID == id || slices.Contains(r.Aliases, id) {
			return r, true
		}
	}
	return Rule{}, false
}

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

func labels[T model.Object](xs []T) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, x.Source().Label())
	}
	return out
}

func namesOf[T any](xs []T, name func(T) string) string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, name(x))
	}
	return strings.Join(out, ", ")
}

// lqLabel names a LocalQueue: namespace/name, either part known after apply.
func lqLabel(l *model.LocalQueue) string {
	ns, n := l.Spec.Namespace, l.Spec.Name
	if l.Unknown.Any("namespace") || ns == "" {
		ns = "(namespace " + unknownText + ")"
	}
	if l.Unknown.Any("name") || n == "" {
		n = "(name " + unknownText + ")"
	}
	return ns + "/" + n
}

// lqField reads one of a LocalQueue's string attributes as a Known.
func lqField(l *model.LocalQueue, attr string) model.Known {
	v := map[string]string{"namespace": l.Spec.Namespace, "name": l.Spec.Name, "cluster_queue": l.Spec.ClusterQueue}[attr]
	if l.Unknown.Any(attr) {
		return model.Known{Unknown: true}
	}
	return model.Known{S: v, Known: v != ""}
}

// lqsOf lists the LocalQueues that name the ClusterQueue.
func (c *ctx) lqsOf(q *model.ClusterQueue) []*model.LocalQueue {
	var out []*model.LocalQueue
	for _, l := range c.pl.LocalQueues {
		if slices.Contains(c.resolve(l), q) {
			out = append(out, l)
		}
	}
	return out
}

// resolve lists the ClusterQueues a LocalQueue may name: those of its
// cluster_queue name in its cluster, narrowed to its own module when
// several have that name (the same team module instantiated per cluster).
func (c *ctx) resolve(l *model.LocalQueue) []*model.ClusterQueue {
	cq := lqField(l, "cluster_queue")
	if !cq.Known {
		return nil
	}
	var all []*model.ClusterQueue
	for _, q := range c.pl.Queues {
		if n := model.QueueName(q); n.Known && n.S == cq.S {
			all = append(all, q)
		}
	}
	return model.Near(l.Src, all)
}

// Object is the object the finding is about ("" for none).
func (f Finding) Object() string {
	if len(f.Objects) == 0 {
		return ""
	}
	return f.Objects[0]
}

// Sentence is the finding in one line, as both commands write it:
// "MLP005 flavor-selects-no-pool (error): What. Change: Fix. Resources: a, b."
func (f Finding) Sentence() string {
	s := fmt.Sprintf("%s %s (%s): %s.", f.ID, f.Check, f.Severity, f.Message)
	if f.Fix != "" {
		s += " Change: " + f.Fix + "."
	}
	if len(f.Objects) > 0 {
		s += " Resources: " + strings.Join(f.Objects, ", ") + "."
	}
	return s
}
