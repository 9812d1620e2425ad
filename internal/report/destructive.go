package report

// What the plan destroys, first: GPU pools replaced or deleted (every node
// in them goes, and every job running there with it) and the platform's
// other objects deleted. Read from the plan's actions: a delete, or a
// delete and a create (a replacement, with the attributes that force it).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// Destructive is one object the plan deletes or replaces.
type Destructive struct {
	Address  string
	Kind     string   // in words, e.g. "GPU pool"
	Name     string   // the object's name before the plan
	Replaced bool     // deleted and created again; else deleted
	Forcing  []string // the attributes that force the replacement, e.g. gpu.partition_size
	// GPUs is, for a GPU pool, what it may hold before the plan
	// (autoscaling.max_nodes × gpu.count); 0 otherwise or when unknown.
	GPUs int64
	GPU  string // the pool's accelerator
}

func destructive(changes []tfplan.ResourceChange) []Destructive {
	var out []Destructive
	for _, c := range changes {
		if c.Mode != "managed" || !strings.HasPrefix(c.Type, "mlplatform_") || !slices.Contains(c.Change.Actions, "delete") {
			continue
		}
		before := tfplan.Node{V: c.Change.Before}
		d := Destructive{Address: c.Address, Kind: kindOf(c.Type), Replaced: slices.Contains(c.Change.Actions, "create")}
		if n, ok := before.Get("name").Str(); ok {
			d.Name = n
			if ns, ok := before.Get("namespace").Str(); ok && ns != "" {
				d.Name = ns + "/" + n
			}
		}
		for _, p := range c.Change.ReplacePaths {
			d.Forcing = append(d.Forcing, pathText(p))
		}
		if c.Type == "mlplatform_gpu_pool" {
			maxNodes, ok1 := before.Get("autoscaling").Get("max_nodes").Integer()
			count, ok2 := before.Get("gpu").Get("count").Integer()
			if ok1 && ok2 {
				d.GPUs = maxNodes * count
			}
			d.GPU, _ = before.Get("gpu").Get("type").Str()
		}
		out = append(out, d)
	}
	// Pools first (they take running jobs with them), then by address.
	slices.SortStableFunc(out, func(a, b Destructive) int {
		if (a.GPU != "") != (b.GPU != "") {
			if a.GPU != "" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Address, b.Address)
	})
	return out
}

// pathText writes a replace path as an attribute path: gpu.partition_size,
// taints["x"], node_locations[0].
func pathText(p []any) string {
	var b strings.Builder
	for _, step := range p {
		switch s := step.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s)
		default:
			fmt.Fprintf(&b, "[%v]", s)
		}
	}
	return b.String()
}

// Sentence says what the plan does to the object, in words.
func (d Destructive) Sentence() string {
	what := d.Kind + " " + d.Name
	if d.Name == "" {
		what = d.Kind + " " + d.Address
	}
	var s string
	switch {
	case d.Replaced && len(d.Forcing) > 0:
		s = fmt.Sprintf("%s is replaced (deleted, then created again), because %s cannot change in place", what, strings.Join(d.Forcing, ", "))
	case d.Replaced:
		s = what + " is replaced (deleted, then created again)"
	default:
		s = what + " is deleted"
	}
	if d.GPU != "" {
		gpus := "its nodes"
		if d.GPUs > 0 {
			gpus = fmt.Sprintf("its nodes (up to %d × %s)", d.GPUs, d.GPU)
		}
		s += "; " + gpus + " go, and every job running on them is evicted"
	}
	return s + " (" + d.Address + ")"
}
