package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The wall criterion compares medians and shows each round's ratio, so a
// reader sees how much the machine's speed moved the result.
func TestWallCriterion(t *testing.T) {
	t.Parallel()
	scale := func(teams int, walls ...time.Duration) Scale {
		s := Scale{Teams: teams}
		for _, w := range walls {
			s.Runs = append(s.Runs, Run{Wall: w, ProviderMaxRSS: 80 << 20})
		}
		return s
	}
	r := Result{Scales: []Scale{
		scale(10, 1000*time.Millisecond, 1200*time.Millisecond, 1100*time.Millisecond),
		scale(100, 3000*time.Millisecond, 3900*time.Millisecond, 3200*time.Millisecond),
	}}
	var got Criterion
	for _, c := range r.Criteria() {
		if c.Name == "plan wall time N=100 ≤ 3 × N=10" {
			got = c
		}
	}
	want := Criterion{"plan wall time N=100 ≤ 3 × N=10", true, "3.20 s / 1.10 s = 2.91 (each round: 3.00, 3.25, 2.91)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Terraform alone's ratio is reported next to the criteria, never as one.
func TestBaselineNote(t *testing.T) {
	t.Parallel()
	r := Result{Scales: []Scale{
		{Teams: 10, Runs: []Run{{Wall: time.Second}}, Baseline: []time.Duration{300 * time.Millisecond, 320 * time.Millisecond}},
		{Teams: 100, Runs: []Run{{Wall: 2 * time.Second}}, Baseline: []time.Duration{1400 * time.Millisecond, 1360 * time.Millisecond}},
	}}
	want := "took N=100 / N=10 = 1.40 s / 0.32 s = 4.38 (each round: 4.67, 4.25)."
	if got := r.BaselineNote(); !strings.Contains(got, want) {
		t.Errorf("BaselineNote() = %q, want it to contain %q", got, want)
	}
	if !strings.Contains(r.Markdown(), "For scale, not a criterion: Terraform alone") {
		t.Error("Markdown lacks the note")
	}
	for _, c := range r.Criteria() {
		if strings.Contains(c.Name, "alone") {
			t.Errorf("Terraform alone became a criterion: %v", c)
		}
	}
	if (Result{Scales: r.Scales[:1]}).BaselineNote() != "" {
		t.Error("one scale has no ratio to note")
	}
}
