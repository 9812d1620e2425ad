package acctest

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// ExpectDrift asserts that the plan's refresh found attr of the resource at
// addr changed outside Terraform from before to after (compared as printed,
// so 42 matches the JSON number 42). This is the field-level drift a
// scheduled plan must show.
func ExpectDrift(addr, attr string, before, after any) plancheck.PlanCheck {
	return expectDrift{addr: addr, attr: attr, before: fmt.Sprint(before), after: fmt.Sprint(after)}
}

type expectDrift struct{ addr, attr, before, after string }

func (e expectDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc.Address != e.addr || rc.Change == nil {
			continue
		}
		b, _ := rc.Change.Before.(map[string]any)
		a, _ := rc.Change.After.(map[string]any)
		gotBefore, gotAfter := fmt.Sprint(b[e.attr]), fmt.Sprint(a[e.attr])
		if gotBefore != e.before || gotAfter != e.after {
			resp.Error = fmt.Errorf("%s: drift of %s is %s → %s, want %s → %s", e.addr, e.attr, gotBefore, gotAfter, e.before, e.after)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no drift reported (want %s: %s → %s)", e.addr, e.attr, e.before, e.after)
}

// ExpectDriftAt is ExpectDrift for a nested value: path steps are attribute
// names and list indexes, e.g. "resource_groups", 0, "flavors", 1,
// "resources", 0, "nominal_quota".
func ExpectDriftAt(addr string, path []any, before, after any) plancheck.PlanCheck {
	return expectDriftAt{addr: addr, path: path, before: fmt.Sprint(before), after: fmt.Sprint(after)}
}

type expectDriftAt struct {
	addr          string
	path          []any
	before, after string
}

func (e expectDriftAt) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc.Address != e.addr || rc.Change == nil {
			continue
		}
		b, a := fmt.Sprint(walk(rc.Change.Before, e.path)), fmt.Sprint(walk(rc.Change.After, e.path))
		if b != e.before || a != e.after {
			resp.Error = fmt.Errorf("%s: drift at %v is %s → %s, want %s → %s", e.addr, e.path, b, a, e.before, e.after)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no drift reported (want %v: %s → %s)", e.addr, e.path, e.before, e.after)
}

func walk(v any, path []any) any {
	for _, step := range path {
		switch s := step.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[s]
		case int:
			l, ok := v.([]any)
			if !ok || s >= len(l) {
				return nil
			}
			v = l[s]
		}
	}
	return v
}

// ExpectOnlyChanges asserts that the planned update of addr changes exactly
// the given leaf attributes (paths written as "a.0.b"): a readable plan, where
// one quota change is one changed value, not a reshuffled list.
func ExpectOnlyChanges(addr string, paths ...string) plancheck.PlanCheck {
	return expectOnlyChanges{addr: addr, want: paths}
}

type expectOnlyChanges struct {
	addr string
	want []string
}

func (e expectOnlyChanges) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != e.addr || rc.Change == nil {
			continue
		}
		var got []string
		leafDiff("", rc.Change.Before, rc.Change.After, &got)
		sort.Strings(got)
		want := append([]string(nil), e.want...)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			resp.Error = fmt.Errorf("%s: plan changes %v, want exactly %v", e.addr, got, want)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: not in the plan", e.addr)
}

func leafDiff(prefix string, a, b any, out *[]string) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			*out = append(*out, prefix)
			return
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		for k := range keys {
			leafDiff(join(k), av[k], bv[k], out)
		}
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			*out = append(*out, prefix)
			return
		}
		for i := range av {
			leafDiff(join(strconv.Itoa(i)), av[i], bv[i], out)
		}
	default:
		if fmt.Sprint(a) != fmt.Sprint(b) {
			*out = append(*out, prefix)
		}
	}
}
