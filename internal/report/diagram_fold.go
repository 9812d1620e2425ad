package report

// Folding keeps the diagram readable at 50 teams and more. Objects the plan
// leaves as they are and no finding names fold into one node per group;
// changed objects stay, unless there are many of them too; an object a
// finding names never folds.
//
//   - A cohort (of one cluster) with more than foldAbove ClusterQueues: the
//     ClusterQueues whose team (the ClusterQueue, the LocalQueues feeding it
//     and their namespaces) is unchanged fold into one node "N
//     ClusterQueues", with their LocalQueues ("N LocalQueues") and team
//     namespaces ("N team namespaces", those that feed nothing else); the
//     fold's edges to the flavors carry the sum (Σ) of their quota. A team
//     with an object a finding names stays whole. When
//     more than foldAbove changed ClusterQueues remain, they fold the same
//     way into "N ClusterQueues (changed)", whose sums read before → after.
//   - A ClusterQueue (still drawn on its own) fed by more than foldAbove
//     team namespaces: the unchanged ones that feed only it fold, with their
//     LocalQueues, into "N team namespaces" → "N LocalQueues"; more than
//     foldAbove changed ones fold into a second such pair.

import "sort"

// foldAbove is the most ClusterQueues of a cohort, or team namespaces of a
// ClusterQueue, drawn one by one.
const foldAbove = 8

type folder struct {
	g       *graph
	touched map[string]bool
	into    map[string]string // node → the fold that holds it
	folds   []*dnode
	in, out map[string][]string
}

// fold folds the graph's large groups (see above).
func fold(g *graph) *graph {
	f := &folder{g: g, touched: g.touched(), into: map[string]string{}, in: map[string][]string{}, out: map[string][]string{}}
	for _, k := range g.eord {
		f.out[k[0]] = append(f.out[k[0]], k[1])
		f.in[k[1]] = append(f.in[k[1]], k[0])
	}
	f.foldQueues()
	f.foldNamespaces()
	return f.apply()
}

// may reports whether a node may go into a fold of changed objects
// (changed) or of unchanged ones.
func (f *folder) may(k string, changed bool) bool {
	n := f.g.nodes[k]
	return f.into[k] == "" && !n.flagged && n.state != stateMissing && (changed || !f.touched[k])
}

func (f *folder) ofKind(keys []string, kind int) []string {
	var out []string
	for _, k := range keys {
		if f.g.nodes[k].kind == kind {
			out = append(out, k)
		}
	}
	return out
}

// split parts the candidates into unchanged and changed ones.
func (f *folder) split(keys []string, ok func(k string, changed bool) bool) (quiet, changed []string) {
	for _, k := range keys {
		switch {
		case ok(k, false):
			quiet = append(quiet, k)
		case ok(k, true):
			changed = append(changed, k)
		}
	}
	return quiet, changed
}

func (f *folder) foldQueues() {
	groups := map[[2]string][]string{}
	for _, k := range f.g.order {
		if n := f.g.nodes[k]; n.kind == kindQueue && n.state != stateMissing {
			gk := [2]string{n.cluster, n.cohort}
			groups[gk] = append(groups[gk], k)
		}
	}
	keys := make([][2]string, 0, len(groups))
	for gk := range groups {
		keys = append(keys, gk)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"|"+keys[i][1] < keys[j][0]+"|"+keys[j][1] })
	for _, gk := range keys {
		qs := groups[gk]
		if len(qs) <= foldAbove {
			continue
		}
		// a ClusterQueue folds with its team: its LocalQueues and their namespaces
		ok := func(q string, changed bool) bool {
			team := []string{q}
			for _, l := range f.ofKind(f.in[q], kindLocalQueue) {
				team = append(append(team, l), f.ofKind(f.in[l], kindNamespace)...)
			}
			for _, k := range team {
				if n := f.g.nodes[k]; n.flagged || !changed && f.touched[k] {
					return false
				}
			}
			return f.may(q, changed)
		}
		quiet, changed := f.split(qs, ok)
		id := gk[0] + "|" + gk[1]
		if len(quiet) >= 2 {
			f.foldChain(id+"|same", quiet, false)
		}
		if len(changed) > foldAbove {
			f.foldChain(id+"|changed", changed, true)
		}
	}
}

// foldChain folds ClusterQueues with their LocalQueues and namespaces.
func (f *folder) foldChain(id string, queues []string, changed bool) {
	q0 := f.g.nodes[queues[0]]
	cq := f.newFold("fold|cq|"+id, kindQueue, q0, changed)
	lq := f.newFold("fold|lq|"+id, kindLocalQueue, q0, changed)
	ns := f.newFold("fold|ns|"+id, kindNamespace, q0, changed)
	for _, q := range queues {
		f.put(q, cq)
		for _, l := range f.ofKind(f.in[q], kindLocalQueue) {
			if f.may(l, changed) {
				f.put(l, lq)
			}
		}
	}
	f.foldFeeders(lq, ns, changed)
}

// foldFeeders folds the namespaces whose every LocalQueue is in the fold lq.
func (f *folder) foldFeeders(lq, ns *dnode, changed bool) {
	seen := map[string]bool{}
	for _, k := range f.g.order {
		if f.into[k] != lq.key {
			continue
		}
		for _, n := range f.ofKind(f.in[k], kindNamespace) {
			if seen[n] || !f.may(n, changed) {
				continue
			}
			seen[n] = true
			all := true
			for _, l := range f.out[n] {
				all = all && f.into[l] == lq.key
			}
			if all {
				f.put(n, ns)
			}
		}
	}
}

func (f *folder) foldNamespaces() {
	for _, q := range f.g.order {
		if n := f.g.nodes[q]; n.kind != kindQueue || f.into[q] != "" {
			continue
		}
		// the team namespaces feeding q, each with its LocalQueues
		var feeders []string
		seen := map[string]bool{}
		for _, l := range f.ofKind(f.in[q], kindLocalQueue) {
			for _, n := range f.ofKind(f.in[l], kindNamespace) {
				if !seen[n] && f.into[n] == "" {
					seen[n] = true
					feeders = append(feeders, n)
				}
			}
		}
		if len(feeders) <= foldAbove {
			continue
		}
		// a namespace folds when it and its LocalQueues may, and those feed only q
		ok := func(n string, changed bool) bool {
			if !f.may(n, changed) {
				return false
			}
			for _, l := range f.out[n] {
				if !f.may(l, changed) || len(f.out[l]) != 1 || f.out[l][0] != q {
					return false
				}
			}
			return true
		}
		quiet, changed := f.split(feeders, ok)
		if len(quiet) >= 2 {
			f.foldTeams(q+"|same", quiet, false)
		}
		if len(changed) > foldAbove {
			f.foldTeams(q+"|changed", changed, true)
		}
	}
}

func (f *folder) foldTeams(id string, namespaces []string, changed bool) {
	n0 := f.g.nodes[namespaces[0]]
	ns := f.newFold("fold|ns|"+id, kindNamespace, n0, changed)
	lq := f.newFold("fold|lq|"+id, kindLocalQueue, n0, changed)
	for _, n := range namespaces {
		f.put(n, ns)
		for _, l := range f.out[n] {
			f.put(l, lq)
		}
	}
}

func (f *folder) newFold(key string, kind int, like *dnode, changed bool) *dnode {
	n := &dnode{key: key, kind: kind, cluster: like.cluster, state: stateSame}
	if kind == kindQueue {
		n.cohort = like.cohort
	}
	if changed {
		n.state = stateChanged
	}
	f.folds = append(f.folds, n)
	return n
}

func (f *folder) put(k string, into *dnode) {
	f.into[k] = into.key
	into.count++
}

// apply is the folded graph: each folded node replaced by its fold, edges
// between the same two nodes merged (their quantities summed).
func (f *folder) apply() *graph {
	out := newGraph()
	for _, k := range f.g.order {
		if f.into[k] == "" {
			out.addNode(f.g.nodes[k])
		}
	}
	for _, n := range f.folds {
		if n.count > 0 {
			out.addNode(n)
		}
	}
	at := func(k string) string {
		if x := f.into[k]; x != "" {
			return x
		}
		return k
	}
	for _, k := range f.g.eord {
		e := *f.g.edges[k]
		e.from, e.to = at(e.from), at(e.to)
		e.folded = e.from != k[0] || e.to != k[1]
		m := out.edges[[2]string{e.from, e.to}]
		if m == nil {
			out.addEdge(&e)
			continue
		}
		m.before, m.after = sumQty(m.before, e.before), sumQty(m.after, e.after)
		m.inBefore, m.inAfter = m.inBefore || e.inBefore, m.inAfter || e.inAfter
		m.changed, m.undecided, m.folded = m.changed || e.changed, m.undecided || e.undecided, true
	}
	return out
}

// sumQty adds quantities; absent on both is absent.
func sumQty(a, b Qty) Qty {
	switch {
	case a.State == qAbsent:
		return b
	case b.State == qAbsent:
		return a
	}
	return a.Plus(b)
}
