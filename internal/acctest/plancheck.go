package acctest

import (
	"context"
	"fmt"

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
