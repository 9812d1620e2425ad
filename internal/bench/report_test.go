package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func scaleOf(teams, resources int, providerCPU, baseline []time.Duration) Scale {
	s := Scale{Teams: teams, Resources: resources}
	for i, c := range providerCPU {
		s.Runs = append(s.Runs, Run{Wall: 2 * c, ProviderCPU: c, ProviderMaxRSS: int64(80+teams/10) << 20})
		s.Baseline = append(s.Baseline, baseline[i])
	}
	return s
}

func ms3(a, b, c int) []time.Duration {
	return []time.Duration{time.Duration(a) * time.Millisecond, time.Duration(b) * time.Millisecond, time.Duration(c) * time.Millisecond}
}

// The share compares the provider's CPU per resource instance with
// Terraform alone's wall time per instance, at each N, from medians; each
// round's share comes from the two plans of that round.
func TestShare(t *testing.T) {
	t.Parallel()
	s := scaleOf(100, 500, ms3(3000, 4000, 3500), ms3(1500, 2000, 1000))
	if got, want := s.ProviderCPUPerInstance(), 7*time.Millisecond; got != want {
		t.Errorf("ProviderCPUPerInstance = %v, want %v", got, want)
	}
	if got, want := s.BaselinePerInstance(), 3*time.Millisecond; got != want {
		t.Errorf("BaselinePerInstance = %v, want %v", got, want)
	}
	if got, want := s.Share(), 3500.0/1500; got != want {
		t.Errorf("Share = %v, want %v", got, want)
	}
	if diff := cmp.Diff([]float64{2, 2, 3.5}, s.roundShares()); diff != "" {
		t.Errorf("roundShares (-want +got):\n%s", diff)
	}
	if (Scale{Teams: 1, Resources: 10, Runs: []Run{{ProviderCPU: time.Second}}}).Share() != 0 {
		t.Error("without Terraform alone's plans the share is 0, not infinite")
	}
}

// Per added instance, start-up (what the first scale already pays) is left out.
func TestMarginal(t *testing.T) {
	t.Parallel()
	r := Result{Scales: []Scale{
		scaleOf(10, 100, ms3(1000, 1000, 1000), ms3(300, 300, 300)),
		scaleOf(100, 500, ms3(3000, 3000, 3000), ms3(1500, 1500, 1500)),
	}}
	p, tf, share, ok := r.Marginal()
	if !ok || p != 5*time.Millisecond || tf != 3*time.Millisecond || share != 5.0/3 {
		t.Errorf("Marginal() = %v, %v, %v, %v; want 5ms, 3ms, 1.67, true", p, tf, share, ok)
	}
	if _, _, _, ok := (Result{Scales: r.Scales[:1]}).Marginal(); ok {
		t.Error("one scale has no added instances")
	}
}

// make bench exits non-zero on empty plans, the request budget, discovery
// and RSS only: neither the wall-time ratio between scales nor the
// provider's share is a criterion, however far off it is.
func TestCriteria(t *testing.T) {
	t.Parallel()
	lo := scaleOf(10, 61, ms3(1000, 1000, 1000), ms3(300, 300, 300))
	hi := scaleOf(100, 511, ms3(9000, 9000, 9000), ms3(1500, 1500, 1500)) // wall 9×, share 6
	lo.KubeObjects, hi.KubeObjects = 109, 1009
	r := Result{Scales: []Scale{lo, hi}}
	var names []string
	for _, c := range r.Criteria() {
		names = append(names, c.Name)
		if !c.Pass {
			t.Errorf("%s failed: %s", c.Name, c.Detail)
		}
	}
	want := []string{
		"empty plan after apply at every N",
		"requests per plan ≤ managed Kubernetes objects + GKE/IAM objects",
		"zero discovery/OpenAPI requests",
		"provider peak RSS N=100 ≤ 1.25 × N=10",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("criteria (-want +got):\n%s", diff)
	}
	if !r.Pass() {
		t.Error("Pass() = false")
	}

	// Each remaining criterion still fails the run.
	changed := r
	changed.Scales = []Scale{lo, hi}
	changed.Scales[1].Runs = append([]Run{{Changes: true, ProviderMaxRSS: 80 << 20}}, hi.Runs...)
	if changed.Pass() {
		t.Error("a non-empty plan passed")
	}
	fat := Result{Scales: []Scale{lo, hi}}
	fat.Scales[1].Runs = []Run{{ProviderMaxRSS: 200 << 20}}
	if fat.Pass() {
		t.Error("RSS 2.5× passed")
	}
	over := Result{Scales: []Scale{lo, hi}}
	over.Scales[0].Runs = []Run{{ProviderMaxRSS: 80 << 20, Kube: Counts{{Verb: "get", Kind: "namespaces"}: 200}}}
	if over.Pass() {
		t.Error("200 requests for 109 objects passed")
	}
	disco := Result{Scales: []Scale{lo, hi}}
	disco.Scales[0].Runs = []Run{{ProviderMaxRSS: 80 << 20, Kube: Counts{{Verb: "get", Kind: "discovery"}: 1}}}
	if disco.Pass() {
		t.Error("a discovery request passed")
	}
}

// The Markdown shows the share per N with its goal, the added-instance
// figure and both wall ratios, for scale; and the criteria.
func TestMarkdown(t *testing.T) {
	t.Parallel()
	r := Result{Scales: []Scale{
		scaleOf(10, 61, ms3(1000, 1100, 1200), ms3(350, 360, 340)),
		scaleOf(100, 511, ms3(3600, 3700, 3800), ms3(1700, 1750, 1800)),
	}}
	md := r.Markdown()
	for _, want := range []string{
		"| 10 | 61 | 1.10 s | 18.0 ms | 0.35 s | 5.7 ms | 3.14 | 2.86–3.53 | not met |",
		"| 100 | 511 | 3.70 s | 7.2 ms | 1.75 s | 3.4 ms | 2.11 | 2.11–2.12 | not met |",
		"Per instance added from N=10 to N=100 (start-up left out): the provider 5.8 ms of CPU, Terraform alone 3.1 ms of wall; share 1.86.",
		"For scale, not a criterion: plan wall time N=100 / N=10: the platform 7.40 s / 2.20 s = 3.36 (each round: 3.60, 3.36, 3.17); " +
			"Terraform alone 1.75 s / 0.35 s = 5.00 (each round: 4.86, 4.86, 5.29).",
		"- **PASS** provider peak RSS N=100 ≤ 1.25 × N=10: 90.0 MiB / 81.0 MiB = 1.11",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "≤ 3 ×") {
		t.Errorf("Markdown still shows the withdrawn wall criterion:\n%s", md)
	}
}
