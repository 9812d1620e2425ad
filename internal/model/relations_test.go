package model

import (
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The selector and toleration matching the rules rely on, through
// Kubernetes' own helpers: a broken conversion of NotIn, DoesNotExist, an
// effect or a value would pass the platform cases, which use match_labels,
// In and Exists only.
func TestSelects(t *testing.T) {
	t.Parallel()
	lbls := map[string]string{"team": "a", "tier": "gold"}
	expr := func(k, op string, v ...string) *spec.LabelSelector {
		return &spec.LabelSelector{MatchExpressions: []spec.SelectorRequirement{{Key: k, Operator: op, Values: v}}}
	}
	tests := map[string]struct {
		sel  *spec.LabelSelector
		want bool
	}{
		"nil selects nothing":     {nil, false},
		"{} selects all":          {&spec.LabelSelector{}, true},
		"match_labels":            {&spec.LabelSelector{MatchLabels: map[string]string{"team": "a"}}, true},
		"match_labels other":      {&spec.LabelSelector{MatchLabels: map[string]string{"team": "b"}}, false},
		"In":                      {expr("team", "In", "b", "a"), true},
		"In missing key":          {expr("zone", "In", "a"), false},
		"NotIn":                   {expr("team", "NotIn", "b"), true},
		"NotIn listed":            {expr("team", "NotIn", "a"), false},
		"NotIn missing key":       {expr("zone", "NotIn", "a"), true},
		"Exists":                  {expr("tier", "Exists"), true},
		"Exists missing":          {expr("zone", "Exists"), false},
		"DoesNotExist":            {expr("zone", "DoesNotExist"), true},
		"DoesNotExist present":    {expr("tier", "DoesNotExist"), false},
		"labels and exprs, AND'd": {&spec.LabelSelector{MatchLabels: map[string]string{"team": "a"}, MatchExpressions: expr("tier", "In", "silver").MatchExpressions}, false},
		"invalid selects nothing": {expr("team", "Near"), false},
	}
	for name, tc := range tests {
		if got := Selects(tc.sel, lbls); got != tc.want {
			t.Errorf("%s: Selects(%v) = %v, want %v", name, lbls, got, tc.want)
		}
	}
}

func TestTolerates(t *testing.T) {
	t.Parallel()
	x := spec.Taint{Key: "dedicated", Value: "ml", Effect: "NoSchedule"}
	tests := map[string]struct {
		tol  spec.Toleration
		want bool
	}{
		"Equal, same value":       {spec.Toleration{Key: "dedicated", Operator: "Equal", Value: "ml", Effect: "NoSchedule"}, true},
		"no operator is Equal":    {spec.Toleration{Key: "dedicated", Value: "ml", Effect: "NoSchedule"}, true},
		"Equal, other value":      {spec.Toleration{Key: "dedicated", Operator: "Equal", Value: "cv", Effect: "NoSchedule"}, false},
		"Exists, any value":       {spec.Toleration{Key: "dedicated", Operator: "Exists", Effect: "NoSchedule"}, true},
		"other key":               {spec.Toleration{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}, false},
		"other effect":            {spec.Toleration{Key: "dedicated", Operator: "Exists", Effect: "NoExecute"}, false},
		"no effect: every effect": {spec.Toleration{Key: "dedicated", Operator: "Exists"}, true},
		"no key, Exists: all":     {spec.Toleration{Operator: "Exists"}, true},
		// Kubernetes validation refuses an empty key without Exists; its matching
		// compares the value alone (spec validation refuses it too).
		"no key, Equal: the value": {spec.Toleration{Operator: "Equal", Value: "ml"}, true},
	}
	for name, tc := range tests {
		if got := Tolerates([]spec.Toleration{tc.tol}, x); got != tc.want {
			t.Errorf("%s: %+v tolerates %v = %v, want %v", name, tc.tol, x, got, tc.want)
		}
	}
}

// The one flavor–pool relation: a flavor stands for a pool when the pool's
// nodes carry every one of its node labels.
func TestStandsFor(t *testing.T) {
	t.Parallel()
	h100 := spec.GPUPool{Name: "h100", Capacity: spec.CapacitySpot, GPU: spec.GPU{Type: "nvidia-h100-80gb", Count: 8}, Labels: map[string]string{"team": "vision"}}
	mig := spec.GPUPool{Name: "a100", GPU: spec.GPU{Type: "nvidia-tesla-a100", Count: 1, PartitionSize: "1g.5gb"}}
	pool := func(s spec.GPUPool, unknown ...string) *Pool {
		u := Unknown{}
		for _, p := range unknown {
			u.mark(p)
		}
		return &Pool{Spec: s, GPUs: true, Unknown: u}
	}
	flavor := func(labels map[string]string, unknown ...string) *Flavor {
		u := Unknown{}
		for _, p := range unknown {
			u.mark(p)
		}
		return &Flavor{Spec: spec.ResourceFlavor{NodeLabels: labels}, Unknown: u}
	}
	tests := map[string]struct {
		f    *Flavor
		p    *Pool
		want Decision
	}{
		"the pool's node_selector":              {flavor(h100.NodeSelector()), pool(h100), Yes},
		"node_selector plus a label it carries": {flavor(map[string]string{spec.NodePoolLabel: "h100", "team": "vision"}), pool(h100), Yes},
		"one label too many":                    {flavor(map[string]string{spec.NodePoolLabel: "h100", "team": "nlp"}), pool(h100), No},
		"another pool's name":                   {flavor(map[string]string{spec.NodePoolLabel: "l4"}), pool(h100), No},
		"only the accelerator":                  {flavor(map[string]string{spec.AcceleratorLabel: "nvidia-h100-80gb"}), pool(h100), Yes},
		"another accelerator":                   {flavor(map[string]string{spec.AcceleratorLabel: "nvidia-l4"}), pool(h100), No},
		"spot":                                  {flavor(map[string]string{spec.SpotLabel: "true"}), pool(h100), Yes},
		"spot on an on-demand pool":             {flavor(map[string]string{spec.SpotLabel: "true"}), pool(mig), No},
		"MIG size":                              {flavor(mig.NodeSelector()), pool(mig), Yes},
		"MIG size on whole GPUs":                {flavor(map[string]string{spec.PartitionSizeLabel: "1g.5gb"}), pool(h100), No},
		"a GKE label the pool does not decide":  {flavor(map[string]string{"cloud.google.com/gke-os-distribution": "cos"}), pool(h100), Yes},
		"no labels: every pool":                 {flavor(nil), pool(h100), Yes},
		"labels unknown":                        {flavor(nil, "node_labels"), pool(h100), Undecided},
		"the pool's name unknown":               {flavor(map[string]string{spec.NodePoolLabel: "h100"}), pool(h100, "name"), Undecided},
		"its name unknown, label of another":    {flavor(map[string]string{spec.NodePoolLabel: "h100", "team": "nlp"}), pool(h100, "name"), No},
		"the pool's labels unknown":             {flavor(map[string]string{"team": "vision"}), pool(h100, "labels"), Undecided},
		"gpu unknown, label of the name":        {flavor(map[string]string{spec.NodePoolLabel: "h100"}), pool(h100, "gpu.type"), Yes},
	}
	for name, tc := range tests {
		if got := StandsFor(tc.f, tc.p); got != tc.want {
			t.Errorf("%s: StandsFor = %v, want %v", name, got, tc.want)
		}
	}
}
