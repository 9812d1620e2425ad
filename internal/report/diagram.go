package report

// The platform diagram of the Markdown report: team namespace → LocalQueue
// → ClusterQueue → flavor → pool, drawn as a Mermaid flowchart from the
// model of each side of the plan (model.FromPlan before and after) with the
// model's own relations: lookups by name (Platform.Namespace, Queue,
// Flavor), ClusterQueue.FlavorNames and GPUQuota, and model.StandsFor for a
// flavor and a pool. This file reads each side into a graph and merges the
// two; diagram_fold.go folds a large platform, diagram_mermaid.go writes it.

import (
	"reflect"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// The kinds of the diagram's nodes, in the order the diagram draws them
// (left to right).
const (
	kindNamespace = iota
	kindLocalQueue
	kindQueue
	kindCohort // a Cohort's own quota (mlplatform_cohort with resource_groups)
	kindFlavor
	kindPool
)

// The states of a node: what the plan does to it.
const (
	stateSame    = "same"
	stateChanged = "changed"
	stateAdded   = "added"
	stateRemoved = "removed"
	stateMissing = "missing" // named by another object, not in the plan
)

// dnode is one node of the diagram: an object of the model, an object
// another one names that is not in the plan, or a fold of several.
type dnode struct {
	key     string // identity: the object's address (Src.Label), "ref|..." or "fold|..."
	kind    int
	name    string // the object's name, or unknownText
	idName  string // what its id is made of: Src.Name, or its address
	detail  string // a second line: a pool's accelerator, a flavor's Topology
	cluster string // provider configuration key ("" in a plan of one cluster)
	cohort  string // a ClusterQueue's or Cohort's cohort: its subgraph
	state   string
	flagged bool // an object of a check finding
	count   int  // a fold: how many objects it holds (0: not a fold)
	spec    any  // what is compared before and after
}

// dedge is an edge of one side, or of both once merged.
type dedge struct {
	from, to string
	// quota: the edge carries a quantity (ClusterQueue or Cohort → flavor:
	// the nominal nvidia.com/gpu quota; flavor → pool: what the pool
	// provides); unit names what a pool's quantity counts ("slices").
	quota         bool
	before, after Qty
	unit          string
	// undecided: whether the flavor stands for the pool is known only
	// after apply.
	undecided         bool
	inBefore, inAfter bool
	changed           bool
	folded            bool // an end is a fold: the quantities are sums
}

// graph is the diagram before it is written: nodes in the order they were
// met, edges keyed by their ends.
type graph struct {
	nodes map[string]*dnode
	order []string
	edges map[[2]string]*dedge
	eord  [][2]string
}

func newGraph() *graph {
	return &graph{nodes: map[string]*dnode{}, edges: map[[2]string]*dedge{}}
}

func (g *graph) addNode(n *dnode) *dnode {
	if old := g.nodes[n.key]; old != nil {
		return old
	}
	g.nodes[n.key] = n
	g.order = append(g.order, n.key)
	return n
}

func (g *graph) addEdge(e *dedge) {
	k := [2]string{e.from, e.to}
	if g.edges[k] != nil {
		return
	}
	g.edges[k] = e
	g.eord = append(g.eord, k)
}

// nameOf is a name as the diagram shows it.
func nameOf(k model.Known) string {
	if k.Known {
		return k.S
	}
	return unknownText
}

// ref is the node of an object another one names that is not in the plan
// (or whose name is known only after apply).
func (g *graph) ref(kind int, cluster string, k model.Known) string {
	name := nameOf(k)
	key := "ref|" + kindWords[kind].one + "|" + cluster + "|" + name
	g.addNode(&dnode{key: key, kind: kind, name: name, cluster: cluster, state: stateMissing})
	return key
}

// readSide reads one side of the plan into a graph.
func readSide(pl *model.Platform) *graph {
	g := newGraph()
	obj := func(kind int, src model.Src, name model.Known, spec any) *dnode {
		idName := src.Name
		if idName == "" {
			idName = src.Label()
		}
		return g.addNode(&dnode{key: src.Label(), kind: kind, name: nameOf(name), idName: idName, cluster: src.Cluster, spec: spec})
	}
	for _, n := range pl.Namespaces {
		obj(kindNamespace, n.Src, model.NamespaceName(n), []any{n.Spec, n.Unknown})
	}
	for _, lq := range pl.LocalQueues {
		from := obj(kindLocalQueue, lq.Src, model.Known{S: lq.Spec.Name, Known: !lq.Unknown.Any("name")}, []any{lq.Spec, lq.Unknown}).key
		nsName := model.Known{S: lq.Spec.Namespace, Known: !lq.Unknown.Any("namespace")}
		var ns string
		if n := pl.Namespace(lq.Src, lq.Spec.Namespace); nsName.Known && n != nil {
			ns = n.Label()
		} else {
			ns = g.ref(kindNamespace, lq.Cluster, nsName)
		}
		g.addEdge(&dedge{from: ns, to: from})
		cqName := model.Known{S: lq.Spec.ClusterQueue, Known: !lq.Unknown.Any("cluster_queue")}
		if q := pl.Queue(lq.Src, lq.Spec.ClusterQueue); cqName.Known && q != nil {
			g.addEdge(&dedge{from: from, to: q.Label()})
		} else {
			g.addEdge(&dedge{from: from, to: g.ref(kindQueue, lq.Cluster, cqName)})
		}
	}
	unit := flavorUnits(pl)
	for _, q := range pl.Queues {
		n := obj(kindQueue, q.Src, model.QueueName(q), []any{q.Spec, q.Unknown})
		n.cohort = q.Spec.Cohort
		if q.Unknown.Any("cohort") {
			n.cohort = unknownText
		}
		quotaEdges(g, pl, unit, n.key, q.Src, q.FlavorNames(), q.GPUQuota, q.GroupsUnknown())
	}
	for _, c := range pl.Cohorts {
		names := c.FlavorNames()
		if len(names) == 0 && !c.GroupsUnknown() {
			continue // no quota of its own: the cohort is its queues' subgraph
		}
		n := obj(kindCohort, c.Src, model.CohortName(c), []any{c.Spec, c.Unknown})
		n.cohort = n.name
		quotaEdges(g, pl, unit, n.key, c.Src, names, c.GPUQuota, c.GroupsUnknown())
	}
	for _, f := range pl.Flavors {
		fn := obj(kindFlavor, f.Src, model.FlavorName(f), []any{f.Spec, f.Unknown})
		switch {
		case f.Unknown.Any("topology_name"):
			fn.detail = "Topology " + unknownText
		case f.Spec.TopologyName != "":
			fn.detail = "Topology " + f.Spec.TopologyName
		}
		for _, p := range model.InCluster(f.Src, pl.Pools) {
			switch model.StandsFor(f, p) {
			case model.Yes:
				units, _ := p.Units()
				unit := ""
				if sl := p.Slicing(); sl.Sliced() {
					unit = sl.Unit
				}
				g.addEdge(&dedge{from: fn.key, to: p.Label(), quota: true, after: units, unit: unit})
			case model.Undecided:
				g.addEdge(&dedge{from: fn.key, to: p.Label(), undecided: true})
			}
		}
	}
	for _, p := range pl.Pools {
		n := obj(kindPool, p.Src, model.Known{S: p.Spec.Name, Known: !p.Unknown.Any("name")}, []any{p.Spec, p.Unknown, p.AllocatablePerNode})
		if t, ok := p.GPUType(); ok {
			n.detail = t
		}
	}
	return g
}

// flavorUnits are, by flavor, what its quota counts when every pool it
// stands for is sliced or shared alike: "slices" or "shares".
func flavorUnits(pl *model.Platform) map[string]string {
	out := map[string]string{}
	for _, f := range pl.Flavors {
		pools, decided := pl.PoolsOf(f)
		unit := ""
		for i, p := range pools {
			sl := p.Slicing()
			if !sl.Sliced() || i > 0 && sl.Unit != unit {
				unit = ""
				break
			}
			unit = sl.Unit
		}
		if decided && unit != "" {
			out[f.Label()] = unit
		}
	}
	return out
}

// quotaEdges are a ClusterQueue's or Cohort's edges to its flavors, each
// with its nominal nvidia.com/gpu quota (absent: quota of other resources
// only); resource groups known only after apply lead to a flavor of
// unknown name.
func quotaEdges(g *graph, pl *model.Platform, unit map[string]string, from string, src model.Src, flavors []string, gpu func(string) (Qty, bool), groupsUnknown bool) {
	for _, name := range flavors {
		to := ""
		if f := pl.Flavor(src, name); f != nil {
			to = f.Label()
		} else {
			to = g.ref(kindFlavor, src.Cluster, model.Known{S: name, Known: true})
		}
		q, _ := gpu(name)
		g.addEdge(&dedge{from: from, to: to, quota: true, after: q, unit: unit[to]})
	}
	if groupsUnknown {
		g.addEdge(&dedge{from: from, to: g.ref(kindFlavor, src.Cluster, model.Known{Unknown: true}), undecided: true})
	}
}

// mergeSides is the diagram of the plan: the objects and edges of both
// sides, the after side's where an object is on both, with what changes
// marked; flagged are the objects of the checks' findings (Src.Label).
func mergeSides(before, after *graph, flagged map[string]bool) *graph {
	g := newGraph()
	for _, side := range []*graph{after, before} {
		for _, k := range side.order {
			if g.nodes[k] != nil {
				continue
			}
			n := *side.nodes[k]
			b, a := before.nodes[k], after.nodes[k]
			switch {
			case n.state == stateMissing:
			case a == nil:
				n.state = stateRemoved
			case b == nil:
				n.state = stateAdded
			case !reflect.DeepEqual(a.spec, b.spec):
				n.state = stateChanged
			default:
				n.state = stateSame
			}
			n.flagged = flagged[k]
			g.addNode(&n)
		}
	}
	for _, side := range []*graph{after, before} {
		for _, k := range side.eord {
			if g.edges[k] != nil {
				continue
			}
			e := *side.edges[k]
			b, a := before.edges[k], after.edges[k]
			e.inBefore, e.inAfter = b != nil, a != nil
			e.before, e.after = Qty{}, Qty{}
			if b != nil {
				e.before = b.after
				e.undecided = b.undecided
			}
			if a != nil {
				e.after, e.undecided = a.after, a.undecided
			}
			e.changed = b == nil || a == nil || !e.before.Equal(e.after)
			g.addEdge(&e)
		}
	}
	return g
}

// touched lists the nodes the plan changes: those not the same on both
// sides, and the ends of a changed edge.
func (g *graph) touched() map[string]bool {
	out := map[string]bool{}
	for _, k := range g.order {
		if g.nodes[k].state != stateSame {
			out[k] = true
		}
	}
	for _, e := range g.edges {
		if e.changed {
			out[e.from], out[e.to] = true, true
		}
	}
	return out
}
