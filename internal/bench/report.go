package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Run is one measured `terraform plan`.
type Run struct {
	Wall time.Duration
	// CPU is user+sys of terraform and every provider process it ran.
	CPU time.Duration
	// ProviderCPU is user+sys of the provider processes alone.
	ProviderCPU time.Duration
	// ProviderMaxRSS is the largest peak resident set of a provider process, in bytes.
	ProviderMaxRSS int64
	// Kube and GCP are the provider's requests as the servers counted them.
	Kube, GCP Counts
	// Changes is true when the plan was not empty (exit code 2 of -detailed-exitcode).
	Changes bool
}

// Scale is the platform at one number of teams and its measured plans.
type Scale struct {
	Teams, Resources int
	// KubeObjects is the number of Kubernetes objects the platform manages
	// (counted on the server); GCPObjects the GKE node pools and Google
	// service accounts it manages.
	KubeObjects, GCPObjects int
	Apply                   time.Duration
	Runs                    []Run
	// Baseline is the wall time of each plan of Baseline(Teams), Terraform
	// alone, measured right after the platform's plan of the same round.
	Baseline []time.Duration
}

// BaselineWall is the median wall time of Terraform alone (Baseline).
func (s Scale) BaselineWall() time.Duration { return median(s.Baseline) }

// Budget is the most requests a plan may make: one per managed object.
func (s Scale) Budget() int { return s.KubeObjects + s.GCPObjects }

// Empty reports whether every measured plan was empty.
func (s Scale) Empty() bool {
	return len(s.Runs) > 0 && !slices.ContainsFunc(s.Runs, func(r Run) bool { return r.Changes })
}

func median[T int | int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func each[T any](runs []Run, f func(Run) T) []T {
	out := make([]T, len(runs))
	for i, r := range runs {
		out[i] = f(r)
	}
	return out
}

// Wall, CPU, ProviderCPU and RSS are medians over the runs.
func (s Scale) Wall() time.Duration {
	return median(each(s.Runs, func(r Run) time.Duration { return r.Wall }))
}
func (s Scale) CPU() time.Duration {
	return median(each(s.Runs, func(r Run) time.Duration { return r.CPU }))
}
func (s Scale) ProviderCPU() time.Duration {
	return median(each(s.Runs, func(r Run) time.Duration { return r.ProviderCPU }))
}
func (s Scale) RSS() int64 {
	return median(each(s.Runs, func(r Run) int64 { return r.ProviderMaxRSS }))
}

// KubeRequests, Discovery and GCPRequests are per plan: the most any run made.
func (s Scale) KubeRequests() int {
	return slices.Max(append(each(s.Runs, func(r Run) int { return r.Kube.Total() }), 0))
}
func (s Scale) Discovery() int {
	return slices.Max(append(each(s.Runs, func(r Run) int { return r.Kube.Discovery() }), 0))
}
func (s Scale) GCPRequests() int {
	return slices.Max(append(each(s.Runs, func(r Run) int { return r.GCP.Total() }), 0))
}

// Requests is Kube + GCP of the run with the most requests.
func (s Scale) Requests() Counts {
	out := Counts{}
	best := -1
	for _, r := range s.Runs {
		if n := r.Kube.Total() + r.GCP.Total(); n > best {
			best = n
			out = Counts{}
			out.Add(r.Kube)
			out.Add(r.GCP)
		}
	}
	return out
}

// Criterion is one check of issue 8's "Must show".
type Criterion struct {
	Name   string
	Pass   bool
	Detail string
}

// Result is one `make bench` run.
type Result struct {
	Date, Commit, Terraform, Machine string
	RunsPerScale                     int
	Scales                           []Scale
	Elapsed                          time.Duration
}

// Limits of the ratio criteria.
const (
	MaxWallRatio = 3.0
	MaxRSSRatio  = 1.25
)

// Criteria checks the result: empty plans at every scale, requests within
// budget with no discovery, and wall time and peak RSS of the largest scale
// against the smallest.
func (r Result) Criteria() []Criterion {
	var out []Criterion
	var notEmpty, over, disco []string
	for _, s := range r.Scales {
		if !s.Empty() {
			notEmpty = append(notEmpty, fmt.Sprintf("N=%d", s.Teams))
		}
		if s.KubeRequests()+s.GCPRequests() > s.Budget() {
			over = append(over, fmt.Sprintf("N=%d: %d > %d", s.Teams, s.KubeRequests()+s.GCPRequests(), s.Budget()))
		}
		if s.Discovery() > 0 {
			disco = append(disco, fmt.Sprintf("N=%d: %d", s.Teams, s.Discovery()))
		}
	}
	out = append(out,
		Criterion{"empty plan after apply at every N", len(notEmpty) == 0 && len(r.Scales) > 0, orAll(notEmpty, "not empty at ")},
		Criterion{"requests per plan ≤ managed Kubernetes objects + GKE/IAM objects", len(over) == 0, orAll(over, "over budget: ")},
		Criterion{"zero discovery/OpenAPI requests", len(disco) == 0, orAll(disco, "discovery/OpenAPI requests: ")},
	)
	if len(r.Scales) < 2 {
		return out
	}
	lo, hi := r.Scales[0], r.Scales[len(r.Scales)-1]
	wall := ratio(float64(hi.Wall()), float64(lo.Wall()))
	rss := ratio(float64(hi.RSS()), float64(lo.RSS()))
	out = append(out,
		Criterion{fmt.Sprintf("plan wall time N=%d ≤ %.0f × N=%d", hi.Teams, MaxWallRatio, lo.Teams), wall <= MaxWallRatio,
			fmt.Sprintf("%s / %s = %.2f%s", secs(hi.Wall()), secs(lo.Wall()), wall, roundRatios(lo.walls(), hi.walls()))},
		Criterion{fmt.Sprintf("provider peak RSS N=%d ≤ %.2f × N=%d", hi.Teams, MaxRSSRatio, lo.Teams), rss <= MaxRSSRatio,
			fmt.Sprintf("%s / %s = %.2f", mib(hi.RSS()), mib(lo.RSS()), rss)},
	)
	return out
}

// roundRatios lists the ratio hi[i] / lo[i] of each round's wall times (the
// plans of one round ran one after the other, so they saw the machine at the
// same speed), or "" with fewer than two rounds.
func roundRatios(lo, hi []time.Duration) string {
	n := min(len(lo), len(hi))
	if n < 2 {
		return ""
	}
	parts := make([]string, n)
	for i := range n {
		parts[i] = fmt.Sprintf("%.2f", ratio(float64(hi[i]), float64(lo[i])))
	}
	return " (each round: " + strings.Join(parts, ", ") + ")"
}

// walls is the wall time of each of the scale's platform plans, in order.
func (s Scale) walls() []time.Duration {
	out := make([]time.Duration, len(s.Runs))
	for i, r := range s.Runs {
		out[i] = r.Wall
	}
	return out
}

// BaselineNote compares the wall ratio of the platform's plans with that of
// Terraform alone (Baseline) at the same N, or is "" without baseline plans.
func (r Result) BaselineNote() string {
	if len(r.Scales) < 2 {
		return ""
	}
	lo, hi := r.Scales[0], r.Scales[len(r.Scales)-1]
	if len(lo.Baseline) == 0 || len(hi.Baseline) == 0 {
		return ""
	}
	return fmt.Sprintf("Terraform alone, planning the same shape with terraform_data (internal/bench.Baseline: no provider process, "+
		"no API request), took N=%d / N=%d = %s / %s = %.2f%s. That is Terraform's own work per resource instance "+
		"against its own start-up; the platform's plan adds the provider's start-up (fixed) and its work per instance.",
		hi.Teams, lo.Teams, secs(hi.BaselineWall()), secs(lo.BaselineWall()), ratio(float64(hi.BaselineWall()), float64(lo.BaselineWall())), roundRatios(lo.Baseline, hi.Baseline))
}

// Pass reports whether every criterion holds.
func (r Result) Pass() bool {
	return !slices.ContainsFunc(r.Criteria(), func(c Criterion) bool { return !c.Pass })
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func orAll(items []string, prefix string) string {
	if len(items) == 0 {
		return "yes"
	}
	return prefix + strings.Join(items, ", ")
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
func mib(b int64) string          { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// Markdown renders the result: the summary table, requests per plan by verb
// and kind, and the criteria with PASS or FAIL.
func (r Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan benchmark %s (%s)\n\n", r.Date, r.Commit)
	fmt.Fprintf(&b, "`make bench`: `terraform plan` (refresh) of a generated platform of N teams (internal/bench.Config, the shapes of "+
		"examples/training-cluster) after applying it to a local control plane of its own; %d plans per N after two warm-ups, the N taking turns (so the machine's drifting speed affects every N alike). "+
		"%s; %s. Wall, CPU and RSS are medians; requests are counted at the servers (kube-apiserver audit log by the "+
		"provider's user agent, the GKE/IAM fake's per-method counter), the most any plan made. Took %s in all.\n\n",
		r.RunsPerScale, r.Terraform, r.Machine, r.Elapsed.Round(time.Second))
	b.WriteString("| teams | resources | managed kube objects | GKE/IAM objects | plan wall | CPU terraform+provider | provider CPU | provider peak RSS | kube requests/plan | discovery+OpenAPI | GKE/IAM requests/plan | budget | empty plans | apply | Terraform alone: plan wall |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
	for _, s := range r.Scales {
		empty := "yes"
		if !s.Empty() {
			empty = "**NO**"
		}
		fmt.Fprintf(&b, "| %d | %d | %d | %d | %s | %s | %s | %s | %d | %d | %d | %d | %s | %s | %s |\n",
			s.Teams, s.Resources, s.KubeObjects, s.GCPObjects, secs(s.Wall()), secs(s.CPU()), secs(s.ProviderCPU()), mib(s.RSS()),
			s.KubeRequests(), s.Discovery(), s.GCPRequests(), s.Budget(), empty, s.Apply.Round(time.Second), secs(s.BaselineWall()))
	}
	b.WriteString("\n## Requests per plan by verb and kind\n\n| request |")
	all := Counts{}
	for _, s := range r.Scales {
		fmt.Fprintf(&b, " N=%d |", s.Teams)
		for k := range s.Requests() {
			all[k] += 1
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(r.Scales)) + "\n")
	for _, req := range sortedByName(all) {
		fmt.Fprintf(&b, "| %s |", req)
		for _, s := range r.Scales {
			fmt.Fprintf(&b, " %d |", s.Requests()[req])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Criteria (issue 8)\n\n")
	for _, c := range r.Criteria() {
		verdict := "PASS"
		if !c.Pass {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "- **%s** %s: %s\n", verdict, c.Name, c.Detail)
	}
	if note := r.BaselineNote(); note != "" {
		b.WriteString("\nFor scale, not a criterion: " + note + "\n")
	}
	return b.String()
}

func sortedByName(c Counts) []Request {
	out := make([]Request, 0, len(c))
	for r := range c {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Request) int { return strings.Compare(a.Kind+" "+a.Verb, b.Kind+" "+b.Verb) })
	return out
}
