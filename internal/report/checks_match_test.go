package report

import "testing"

// The label-selector and toleration matching the checks rely on; the
// platform cases use match_labels, In and Exists tolerations only, so a
// broken NotIn, DoesNotExist, effect or value comparison would pass them.
func TestSelectorMatches(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"team": "a", "tier": "gold"}
	tests := map[string]struct {
		sel  selectorState
		want bool
	}{
		"null selects nothing":    {selectorState{Null: true}, false},
		"{} selects all":          {selectorState{}, true},
		"match_labels":            {selectorState{MatchLabels: map[string]string{"team": "a"}}, true},
		"match_labels other":      {selectorState{MatchLabels: map[string]string{"team": "b"}}, false},
		"In":                      {selectorState{Exprs: []labelExpr{{"team", "In", []string{"b", "a"}}}}, true},
		"In missing key":          {selectorState{Exprs: []labelExpr{{"zone", "In", []string{"a"}}}}, false},
		"NotIn":                   {selectorState{Exprs: []labelExpr{{"team", "NotIn", []string{"b"}}}}, true},
		"NotIn listed":            {selectorState{Exprs: []labelExpr{{"team", "NotIn", []string{"a"}}}}, false},
		"NotIn missing key":       {selectorState{Exprs: []labelExpr{{"zone", "NotIn", []string{"a"}}}}, true},
		"Exists":                  {selectorState{Exprs: []labelExpr{{"tier", "Exists", nil}}}, true},
		"Exists missing":          {selectorState{Exprs: []labelExpr{{"zone", "Exists", nil}}}, false},
		"DoesNotExist":            {selectorState{Exprs: []labelExpr{{"zone", "DoesNotExist", nil}}}, true},
		"DoesNotExist present":    {selectorState{Exprs: []labelExpr{{"tier", "DoesNotExist", nil}}}, false},
		"labels and exprs, AND'd": {selectorState{MatchLabels: map[string]string{"team": "a"}, Exprs: []labelExpr{{"tier", "In", []string{"silver"}}}}, false},
	}
	for name, tc := range tests {
		if got := tc.sel.matches(labels); got != tc.want {
			t.Errorf("%s: matches(%v) = %v, want %v", name, labels, got, tc.want)
		}
	}
}

func TestTolerationTolerates(t *testing.T) {
	t.Parallel()
	x := taint{Key: "dedicated", Value: "ml", Effect: "NoSchedule"}
	tests := map[string]struct {
		tol  toleration
		want bool
	}{
		"Equal, same value":       {toleration{Key: "dedicated", Op: "Equal", Value: "ml", Effect: "NoSchedule"}, true},
		"Equal, other value":      {toleration{Key: "dedicated", Op: "Equal", Value: "cv", Effect: "NoSchedule"}, false},
		"Exists, any value":       {toleration{Key: "dedicated", Op: "Exists", Effect: "NoSchedule"}, true},
		"other key":               {toleration{Key: "nvidia.com/gpu", Op: "Exists", Effect: "NoSchedule"}, false},
		"other effect":            {toleration{Key: "dedicated", Op: "Exists", Effect: "NoExecute"}, false},
		"no effect: every effect": {toleration{Key: "dedicated", Op: "Exists"}, true},
		"no key, Exists: all":     {toleration{Op: "Exists"}, true},
		"no key, Equal: none":     {toleration{Op: "Equal", Value: "ml"}, false},
	}
	for name, tc := range tests {
		if got := tc.tol.tolerates(x); got != tc.want {
			t.Errorf("%s: %+v tolerates %v = %v, want %v", name, tc.tol, x, got, tc.want)
		}
	}
}
