package report

// Writing the diagram (diagram.go) as a Mermaid flowchart: one node per
// object or fold, ids made of the objects' names (valid and stable), labels
// quoted with the characters Mermaid reads as markup written as its entity
// codes, changed edges and nodes styled, and the objects of findings
// highlighted.

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// kindWord is how the diagram names and draws a kind.
type kindWord struct {
	one, foldOne, many string // "ClusterQueue"; in a fold of one and of several
	open, close        string // the node's shape
	prefix             string // of its ids
}

var kindWords = map[int]kindWord{
	kindNamespace:  {"namespace", "team namespace", "team namespaces", "(", ")", "ns"},
	kindLocalQueue: {"LocalQueue", "LocalQueue", "LocalQueues", "[", "]", "lq"},
	kindQueue:      {"ClusterQueue", "ClusterQueue", "ClusterQueues", "([", "])", "cq"},
	kindCohort:     {"Cohort", "Cohort", "Cohorts", "[[", "]]", "co"},
	kindFlavor:     {"flavor", "flavor", "flavors", "{{", "}}", "fl"},
	kindPool:       {"pool", "pool", "pools", "[(", ")]", "pool"},
}

// The styles: a class per node state, the objects of findings, folds, and
// the changed and removed edges.
var classDefs = []struct{ name, style string }{
	{stateAdded, "stroke:#15803d,stroke-width:3px"},
	{stateChanged, "stroke:#d97706,stroke-width:3px"},
	{stateRemoved, "stroke:#6b7280,stroke-dasharray:4 4,color:#6b7280"},
	{stateMissing, "stroke:#b91c1c,stroke-dasharray:4 4"},
	{"folded", "fill:#f3f4f6"},
	{"finding", "fill:#fee2e2,stroke:#b91c1c,stroke-width:3px"},
}

const (
	changedEdgeStyle = "stroke:#d97706,stroke-width:3px"
	removedEdgeStyle = "stroke:#6b7280,stroke-dasharray:4 4"
)

// Diagram is the Mermaid flowchart of the platform after the plan, with
// what changes marked and the objects of findings highlighted; "" when the
// plan has none of its objects.
func Diagram(before, after *model.Platform, findings []rules.Finding) string {
	flagged := map[string]bool{}
	for _, f := range findings {
		for _, o := range f.Objects {
			flagged[o] = true
		}
	}
	g := fold(mergeSides(readSide(before), readSide(after), flagged))
	if len(g.order) == 0 {
		return ""
	}
	return writeMermaid(g)
}

var notID = regexp.MustCompile(`[^A-Za-z0-9]+`)

func sanitize(s string) string { return strings.Trim(notID.ReplaceAllString(s, "_"), "_") }

// mermaidText writes text for a quoted label: what Mermaid would read as
// markup or the label's end as entity codes.
var mermaidText = strings.NewReplacer("#", "#35;", `"`, "#quot;", "<", "#lt;", ">", "#gt;", "`", "#96;", "&", "#amp;", "\n", " ", "\r", " ")

func (n *dnode) label() string {
	w := kindWords[n.kind]
	if n.count > 0 {
		s := fmt.Sprintf("%d %s", n.count, w.many)
		if n.count == 1 {
			s = "1 " + w.foldOne
		}
		if n.state == stateChanged {
			s += " (changed)"
		}
		return mermaidText.Replace(s)
	}
	s := w.one + " " + n.name
	switch {
	case n.state == stateAdded:
		s += " (new)"
	case n.state == stateRemoved:
		s += " (removed)"
	case n.state == stateMissing && n.name != unknownText:
		s += " (not in this plan)"
	}
	s = mermaidText.Replace(s)
	if n.detail != "" {
		s += "<br/>" + mermaidText.Replace(n.detail)
	}
	return s
}

func (e *dedge) label() string {
	if e.undecided {
		return unknownText
	}
	if !e.quota {
		if !e.inAfter {
			return "removed"
		}
		return ""
	}
	withUnit := func(q Qty) string {
		if q.State == qKnown && e.unit != "" {
			return q.Text(unset) + " " + e.unit
		}
		return q.Text(unset)
	}
	s := withUnit(e.after)
	if !e.before.Equal(e.after) {
		s = withUnit(e.before) + " → " + s
	}
	if e.folded {
		s = "Σ " + s
	}
	return mermaidText.Replace(s)
}

// ids gives every node an id: its kind's prefix and its name (with its
// cluster when the plan has several), reduced to letters, digits and _;
// names that reduce alike take the node's key (its address) instead, and a
// hash of it if those reduce alike too.
func ids(g *graph, multi bool) map[string]string {
	out := map[string]string{}
	for _, k := range g.order {
		n := g.nodes[k]
		name := n.idName
		switch {
		case n.count > 0:
			name = "fold_" + strings.TrimPrefix(k, "fold|")
		case n.state == stateMissing:
			name = "ref_" + n.name
		}
		if multi {
			name = n.cluster + "_" + name
		}
		out[k] = kindWords[n.kind].prefix + "_" + sanitize(name)
	}
	out = unique(out, func(k string) string { return kindWords[g.nodes[k].kind].prefix + "_" + sanitize(k) })
	return unique(out, func(k string) string {
		h := fnv.New32a()
		_, _ = h.Write([]byte(k))
		return fmt.Sprintf("%s_%08x", out[k], h.Sum32())
	})
}

// unique gives the keys whose ids are alike the id instead.
func unique(id map[string]string, instead func(k string) string) map[string]string {
	uses := map[string]int{}
	for _, v := range id {
		uses[v]++
	}
	out := map[string]string{}
	for k, v := range id {
		if uses[v] > 1 {
			v = instead(k)
		}
		out[k] = v
	}
	return out
}

// drawOrder is the order nodes are written in: by kind, objects before
// folds, then by name.
func drawOrder(g *graph) []*dnode {
	nodes := make([]*dnode, 0, len(g.order))
	for _, k := range g.order {
		nodes = append(nodes, g.nodes[k])
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		a, b := nodes[i], nodes[j]
		if a.cluster != b.cluster {
			return a.cluster < b.cluster
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if (a.count > 0) != (b.count > 0) {
			return b.count > 0
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.key < b.key
	})
	return nodes
}

func writeMermaid(g *graph) string {
	nodes := drawOrder(g)
	clusters := []string{}
	for _, n := range nodes {
		if len(clusters) == 0 || clusters[len(clusters)-1] != n.cluster {
			clusters = append(clusters, n.cluster)
		}
	}
	multi := len(clusters) > 1
	id := ids(g, multi)
	rank := map[string]int{}
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	line := func(indent int, s string) { b.WriteString(strings.Repeat("  ", indent) + s + "\n") }
	node := func(indent int, n *dnode) {
		w := kindWords[n.kind]
		rank[n.key] = len(rank)
		line(indent, id[n.key]+w.open+`"`+n.label()+`"`+w.close)
	}
	for _, cl := range clusters {
		in := 1
		if multi {
			name := cl
			if name == "" {
				name = "(not said)"
			}
			line(1, "subgraph cluster_"+sanitize("c_"+cl)+`["cluster `+mermaidText.Replace(name)+`"]`)
			in = 2
		}
		var cohorts []string
		byCohort := map[string][]*dnode{}
		for _, n := range nodes {
			switch {
			case n.cluster != cl:
			case (n.kind == kindQueue || n.kind == kindCohort) && n.cohort != "":
				if byCohort[n.cohort] == nil {
					cohorts = append(cohorts, n.cohort)
				}
				byCohort[n.cohort] = append(byCohort[n.cohort], n)
			case n.kind == kindFlavor && len(cohorts) > 0:
				writeCohorts(&cohorts, byCohort, cl, multi, in, line, node)
				node(in, n)
			default:
				node(in, n)
			}
		}
		writeCohorts(&cohorts, byCohort, cl, multi, in, line, node)
		if multi {
			line(1, "end")
		}
	}
	writeEdges(g, id, rank, line)
	return b.String()
}

// writeCohorts writes the subgraphs of the cohorts met so far.
func writeCohorts(cohorts *[]string, by map[string][]*dnode, cluster string, multi bool, in int, line func(int, string), node func(int, *dnode)) {
	sort.Strings(*cohorts)
	for _, c := range *cohorts {
		sid := "cohort_" + sanitize(c)
		if multi {
			sid = "cohort_" + sanitize(cluster+"_"+c)
		}
		if c == unknownText { // no cohort's name reduces to capitals
			sid = strings.TrimSuffix("cohort_"+sanitize(cluster), "_") + "_Unknown"
		}
		line(in, "subgraph "+sid+`["cohort `+mermaidText.Replace(c)+`"]`)
		for _, n := range by[c] {
			node(in+1, n)
		}
		line(in, "end")
	}
	*cohorts = nil
}

func writeEdges(g *graph, id map[string]string, rank map[string]int, line func(int, string)) {
	edges := make([]*dedge, 0, len(g.eord))
	for _, k := range g.eord {
		edges = append(edges, g.edges[k])
	}
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if rank[a.from] != rank[b.from] {
			return rank[a.from] < rank[b.from]
		}
		return rank[a.to] < rank[b.to]
	})
	var changed, removed []string
	for i, e := range edges {
		arrow := "-->"
		if e.undecided {
			arrow = "-.->"
		}
		if l := e.label(); l != "" {
			arrow += `|"` + l + `"|`
		}
		line(1, id[e.from]+" "+arrow+" "+id[e.to])
		switch {
		case !e.inAfter:
			removed = append(removed, strconv.Itoa(i))
		case e.changed:
			changed = append(changed, strconv.Itoa(i))
		}
	}
	classes := map[string][]string{}
	for _, k := range g.order {
		n := g.nodes[k]
		if n.state != stateSame {
			classes[n.state] = append(classes[n.state], k)
		}
		if n.count > 0 {
			classes["folded"] = append(classes["folded"], k)
		}
		if n.flagged {
			classes["finding"] = append(classes["finding"], k)
		}
	}
	for _, c := range classDefs {
		if len(classes[c.name]) > 0 {
			line(1, "classDef "+c.name+" "+c.style)
		}
	}
	for _, c := range classDefs {
		if ks := classes[c.name]; len(ks) > 0 {
			sort.Slice(ks, func(i, j int) bool { return rank[ks[i]] < rank[ks[j]] })
			var list []string
			for _, k := range ks {
				list = append(list, id[k])
			}
			line(1, "class "+strings.Join(list, ",")+" "+c.name)
		}
	}
	if len(changed) > 0 {
		line(1, "linkStyle "+strings.Join(changed, ",")+" "+changedEdgeStyle)
	}
	if len(removed) > 0 {
		line(1, "linkStyle "+strings.Join(removed, ",")+" "+removedEdgeStyle)
	}
}
