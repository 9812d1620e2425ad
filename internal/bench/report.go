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

// The provider's share: what `make bench` measures that the provider
// controls. Terraform's own work per resource instance (decoding the
// configuration, building and walking the graph, writing the plan) is not the
// provider's to change, and on this machine it alone grows faster than 3×
// from N=10 to N=100 (Terraform alone, Baseline), so a ratio of the
// platform's wall times between two N says more about Terraform than about
// the provider. What the provider controls is its own CPU per instance; the
// goal is that it be at most what Terraform itself spends on an instance.

// MaxProviderShare is the goal for Share: the provider's CPU per resource
// instance at most Terraform alone's wall time per instance. It is reported,
// not an exit criterion.
const MaxProviderShare = 1.0

// ProviderCPUPerInstance is the median provider CPU of a plan divided by the
// resource instances planned.
func (s Scale) ProviderCPUPerInstance() time.Duration {
	return perInstance(s.ProviderCPU(), s.Resources)
}

// BaselinePerInstance is Terraform alone's median plan wall time divided by
// the resource instances planned (Baseline has as many as the platform).
func (s Scale) BaselinePerInstance() time.Duration { return perInstance(s.BaselineWall(), s.Resources) }

// Share is the provider's CPU per resource instance over Terraform alone's
// wall time per instance (both plan the same number of instances, so it is
// also the ratio of the medians), or 0 without baseline plans.
func (s Scale) Share() float64 {
	return ratio(float64(s.ProviderCPU()), float64(s.BaselineWall()))
}

// roundShares is the share of each round: the provider CPU of the platform's
// plan over the wall time of Terraform alone's plan right after it, which saw
// the machine at about the same speed.
func (s Scale) roundShares() []float64 {
	n := min(len(s.Runs), len(s.Baseline))
	out := make([]float64, n)
	for i := range n {
		out[i] = ratio(float64(s.Runs[i].ProviderCPU), float64(s.Baseline[i]))
	}
	return out
}

func perInstance(d time.Duration, instances int) time.Duration {
	if instances <= 0 {
		return 0
	}
	return d / time.Duration(instances)
}

// Marginal compares the first and the last scale per added resource
// instance, which leaves out what does not grow with N (the provider's and
// Terraform's start-up): the provider's added CPU and Terraform alone's
// added wall time, each divided by the added instances, and their ratio. ok
// is false with fewer than two scales, no added instances or no baseline.
func (r Result) Marginal() (provider, terraform time.Duration, share float64, ok bool) {
	if len(r.Scales) < 2 {
		return 0, 0, 0, false
	}
	lo, hi := r.Scales[0], r.Scales[len(r.Scales)-1]
	added := hi.Resources - lo.Resources
	if added <= 0 || len(lo.Baseline) == 0 || len(hi.Baseline) == 0 {
		return 0, 0, 0, false
	}
	provider = perInstance(hi.ProviderCPU()-lo.ProviderCPU(), added)
	terraform = perInstance(hi.BaselineWall()-lo.BaselineWall(), added)
	return provider, terraform, ratio(float64(provider), float64(terraform)), true
}

// Criterion is one exit criterion of `make bench`.
type Criterion struct {
	Name   string
	Pass   bool
	Detail string
}

// Result is one `make bench` run.
type Result struct {
	Date, Commit, Terraform, Machine string
	// Provider says which provider binary was measured when it is not the
	// one `make build` wrote ("" for bin/terraform-provider-mlplatform).
	Provider     string
	RunsPerScale int
	Scales       []Scale
	Elapsed      time.Duration
}

// MaxRSSRatio is the most the provider's peak RSS may grow from the first
// scale to the last.
const MaxRSSRatio = 1.25

// Criteria are the checks `make bench` exits non-zero on: empty plans at
// every scale, requests within budget with no discovery, and the provider's
// peak RSS at the largest scale against the smallest. The provider's share
// (Share) is a figure beside them, not one of them; the wall-time ratio
// between scales (once "N=100 ≤ 3 × N=10") is no longer a criterion, because
// Terraform alone scales worse than that on the 2-core machine.
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
	rss := ratio(float64(hi.RSS()), float64(lo.RSS()))
	out = append(out,
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

// WallNote gives the plan wall-time ratio of the last scale to the first,
// of the platform and of Terraform alone, for scale (not a criterion), or ""
// with fewer than two scales.
func (r Result) WallNote() string {
	if len(r.Scales) < 2 {
		return ""
	}
	lo, hi := r.Scales[0], r.Scales[len(r.Scales)-1]
	note := fmt.Sprintf("plan wall time N=%d / N=%d: the platform %s / %s = %.2f%s",
		hi.Teams, lo.Teams, secs(hi.Wall()), secs(lo.Wall()), ratio(float64(hi.Wall()), float64(lo.Wall())), roundRatios(lo.walls(), hi.walls()))
	if len(lo.Baseline) > 0 && len(hi.Baseline) > 0 {
		note += fmt.Sprintf("; Terraform alone %s / %s = %.2f%s",
			secs(hi.BaselineWall()), secs(lo.BaselineWall()), ratio(float64(hi.BaselineWall()), float64(lo.BaselineWall())), roundRatios(lo.Baseline, hi.Baseline))
	}
	return note + "."
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
func ms(d time.Duration) string   { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// Markdown renders the result: the summary table, the provider's share per
// resource instance against Terraform alone, requests per plan by verb and
// kind, and the exit criteria with PASS or FAIL.
func (r Result) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan benchmark %s (%s)\n\n", r.Date, r.Commit)
	measured := ""
	if r.Provider != "" {
		measured = " Provider measured: " + r.Provider + "."
	}
	fmt.Fprintf(&b, "`make bench`: `terraform plan` (refresh) of a generated platform of N teams (internal/bench.Config, the shapes of "+
		"examples/training-cluster) after applying it to a local control plane of its own; %d plans per N after two warm-ups, the N taking turns (so the machine's drifting speed affects every N alike), "+
		"each followed by a plan of Terraform alone (internal/bench.Baseline: the same shape with terraform_data, no provider process, no API request). "+
		"%s; %s. Wall, CPU and RSS are medians; provider CPU is user+sys of every provider process of the plan (wait4); requests are counted at the servers (kube-apiserver audit log by the "+
		"provider's user agent, the GKE/IAM fake's per-method counter), the most any plan made. Took %s in all.%s\n\n",
		r.RunsPerScale, r.Terraform, r.Machine, r.Elapsed.Round(time.Second), measured)
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

	b.WriteString("\n## The provider's share: its CPU per resource instance against Terraform alone\n\n")
	fmt.Fprintf(&b, "What the provider controls is its own work. At each N: the provider's CPU per resource instance planned, "+
		"against Terraform alone's plan wall time per instance (its own work on an instance, with no provider). "+
		"Goal: share ≤ %.0f, the provider's part at most Terraform's own. A figure, not an exit criterion.\n\n", MaxProviderShare)
	b.WriteString("| teams | resources | provider CPU | per instance | Terraform alone: plan wall | per instance | provider share | rounds | goal |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range r.Scales {
		share, rounds, goal := "—", "—", "—"
		if len(s.Baseline) > 0 {
			share = fmt.Sprintf("%.2f", s.Share())
			goal = "met"
			if s.Share() > MaxProviderShare {
				goal = "not met"
			}
			if rs := s.roundShares(); len(rs) > 0 {
				rounds = fmt.Sprintf("%.2f–%.2f", slices.Min(rs), slices.Max(rs))
			}
		}
		fmt.Fprintf(&b, "| %d | %d | %s | %s | %s | %s | %s | %s | %s |\n",
			s.Teams, s.Resources, secs(s.ProviderCPU()), ms(s.ProviderCPUPerInstance()), secs(s.BaselineWall()), ms(s.BaselinePerInstance()), share, rounds, goal)
	}
	if p, t, share, ok := r.Marginal(); ok {
		lo, hi := r.Scales[0], r.Scales[len(r.Scales)-1]
		fmt.Fprintf(&b, "\nPer instance added from N=%d to N=%d (start-up left out): the provider %s of CPU, Terraform alone %s of wall; share %.2f.\n",
			lo.Teams, hi.Teams, ms(p), ms(t), share)
	}
	if note := r.WallNote(); note != "" {
		b.WriteString("\nFor scale, not a criterion: " + note + "\n")
	}

	b.WriteString("\n## Requests per plan by verb and kind\n\n| request |")
	all := Counts{}
	for _, s := range r.Scales {
		fmt.Fprintf(&b, " N=%d |", s.Teams)
		for k := range s.Requests() {
			all[k]++
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
	b.WriteString("\n## Exit criteria\n\n`make bench` exits non-zero when one of these fails.\n\n")
	for _, c := range r.Criteria() {
		verdict := "PASS"
		if !c.Pass {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "- **%s** %s: %s\n", verdict, c.Name, c.Detail)
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
