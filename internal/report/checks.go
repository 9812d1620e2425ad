package report

// Platform checks: the cross-resource rules of internal/rules on the planned
// values of the whole configuration (every resource_changes entry's after
// object, which holds drift as the plan has it: refreshed values Terraform
// keeps, or the configuration it puts back). One resource cannot see another
// at plan time; the plan as a whole can. A value known only after apply is
// never guessed: the rule reports it could not decide.

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// Finding is one result of a check (rules.Finding).
type Finding = rules.Finding

// Severity of a finding (rules.Severity).
type Severity = rules.Severity

// Severities, most severe first.
const (
	SevError     = rules.SevError
	SevWarning   = rules.SevWarning
	SevUndecided = rules.SevUndecided
)

// CheckCount is the number of checks the report runs: every rule but those
// whose inputs only a live cluster has.
func CheckCount() int { return rules.CountIn(false) }

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

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

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
	if f.Severity != SevUndecided {
		return warn + f.Sentence()
	}
	return f.Sentence()
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
