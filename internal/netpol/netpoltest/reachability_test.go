package netpoltest_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol/netpoltest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

const (
	ns       = "team-vision"
	lockdown = "lockdown (everything off)"
)

// configs are the four configurations the issue asks for, each as a spec
// (for the generator) and a hand-written netpoltest.Config (for the matrix).
func configs() map[string]struct {
	spec spec.TrainingNetworkPolicy
	cfg  netpoltest.Config
} {
	type pair = struct {
		spec spec.TrainingNetworkPolicy
		cfg  netpoltest.Config
	}
	out := map[string]pair{}
	out["defaults"] = pair{spec.DefaultTrainingNetworkPolicy(ns), netpoltest.Defaults(ns)}

	s, c := spec.DefaultTrainingNetworkPolicy(ns), netpoltest.Defaults(ns)
	s.PublicHTTPSEgress, c.PublicHTTPSEgress = true, true
	out["public https"] = pair{s, c}

	s, c = spec.DefaultTrainingNetworkPolicy(ns), netpoltest.Defaults(ns)
	s.GoogleAPIs, c.GoogleAPIs = "restricted", "restricted"
	out["restricted google apis"] = pair{s, c}

	s, c = spec.DefaultTrainingNetworkPolicy(ns), netpoltest.Defaults(ns)
	s.DNS, c.DNS = false, false
	s.ExtraEgress = []spec.EgressRule{{CIDRs: []string{"10.20.0.0/16"}, Ports: []int32{5432}, Protocol: "TCP"}}
	s.IngressFromNamespaces = map[string][]int32{"monitoring": {9090}}
	c.Extra, c.Monitoring = true, true
	out["dns off, extra egress, monitoring ingress"] = pair{s, c}

	// everything off: only the default deny is left, so dropping it shows
	out[lockdown] = pair{spec.TrainingNetworkPolicy{Namespace: ns, GoogleAPIs: "none"}, netpoltest.Config{Namespace: ns, GoogleAPIs: "none"}}
	return out
}

func TestMatrix(t *testing.T) {
	for name, tc := range configs() {
		t.Run(name, func(t *testing.T) {
			if failed := netpoltest.Evaluate(netpol.Render(tc.spec), netpoltest.Matrix(tc.cfg)); len(failed) > 0 {
				t.Errorf("reachability:\n  %s", netpoltest.Report(failed))
			}
		})
	}
}

// mutation is one hole taken out of the generator's output.
type mutation struct {
	name  string
	apply func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy
}

// mutations removes, one at a time: each object; each rule; each peer of a
// rule with several; each port of a rule with several; and the except list
// of each ipBlock.
func mutations(objs []networkingv1.NetworkPolicy) []mutation {
	clone := func() []networkingv1.NetworkPolicy {
		out := make([]networkingv1.NetworkPolicy, len(objs))
		for i := range objs {
			out[i] = *objs[i].DeepCopy()
		}
		return out
	}
	var ms []mutation
	for i, o := range objs {
		ms = append(ms, mutation{"drop object " + o.Name, func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
			c := clone()
			return append(c[:i], c[i+1:]...)
		}})
		for r, rule := range o.Spec.Egress {
			ms = append(ms, mutation{fmt.Sprintf("%s: drop egress rule %d", o.Name, r), func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
				c := clone()
				e := c[i].Spec.Egress
				c[i].Spec.Egress = append(e[:r], e[r+1:]...)
				if len(c[i].Spec.Egress) == 0 { // an egress policy with no rules would deny, not remove a hole
					c = append(c[:i], c[i+1:]...)
				}
				return c
			}})
			if len(rule.To) > 1 {
				for p := range rule.To {
					ms = append(ms, mutation{fmt.Sprintf("%s: egress rule %d drop peer %d", o.Name, r, p), func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
						c := clone()
						to := c[i].Spec.Egress[r].To
						c[i].Spec.Egress[r].To = append(to[:p], to[p+1:]...)
						return c
					}})
				}
			}
			if len(rule.Ports) > 1 {
				for p := range rule.Ports {
					ms = append(ms, mutation{fmt.Sprintf("%s: egress rule %d drop port %d", o.Name, r, p), func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
						c := clone()
						ps := c[i].Spec.Egress[r].Ports
						c[i].Spec.Egress[r].Ports = append(ps[:p], ps[p+1:]...)
						return c
					}})
				}
			}
			for p, peer := range rule.To {
				if peer.IPBlock != nil && len(peer.IPBlock.Except) > 0 {
					for x := range peer.IPBlock.Except {
						ms = append(ms, mutation{fmt.Sprintf("%s: egress rule %d peer %d drop except %d", o.Name, r, p, x), func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
							c := clone()
							ex := c[i].Spec.Egress[r].To[p].IPBlock.Except
							c[i].Spec.Egress[r].To[p].IPBlock.Except = append(ex[:x], ex[x+1:]...)
							return c
						}})
					}
				}
			}
		}
		for r := range o.Spec.Ingress {
			ms = append(ms, mutation{fmt.Sprintf("%s: drop ingress rule %d", o.Name, r), func([]networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
				c := clone()
				in := c[i].Spec.Ingress
				c[i].Spec.Ingress = append(in[:r], in[r+1:]...)
				if len(c[i].Spec.Ingress) == 0 && len(c[i].Spec.Egress) == 0 {
					c = append(c[:i], c[i+1:]...)
				}
				return c
			}})
		}
	}
	return ms
}

// redundant names the mutations that change no reachability in a
// configuration, and why; withNarrower is set when the narrower foreign
// policies (netpoltest.Narrower) are in the namespace too.
func redundant(config, mutation string, withNarrower bool) (string, bool) {
	switch {
	case mutation == "drop object "+netpol.DefaultDeny && config != lockdown:
		return "allow-same-namespace selects every pod for ingress and egress, so it denies the rest too; " +
			"the lockdown configuration proves the default deny", true
	case config == "public https" && mutation == netpol.AllowGoogleAPIs+": egress rule 0 drop peer 0":
		return "the IPv4 Google API VIPs are public addresses on 443, which public HTTPS egress allows " +
			"(it is IPv4 only, so dropping the IPv6 VIPs or the whole object is caught)", true
	case withNarrower && strings.HasPrefix(mutation, netpol.AllowDNS+": drop egress rule 0"),
		withNarrower && strings.HasPrefix(mutation, netpol.AllowDNS+": egress rule 0 drop port"):
		return "the team's own kube-dns policy (team-dns) opens the kube-dns hole again: it is narrower, " +
			"not a widening, and the other DNS holes still catch dropping the whole object", true
	}
	return "", false
}

// TestMutationsAreCaught: for every config, removing any single hole (or
// the deny, or an except) from the generator's output fails at least one
// matrix assertion; for the configurations the narrower foreign policies
// are narrower than, also with those policies in the namespace (foreign
// policies that open only what the platform opens must not hide a hole
// the platform lost, except the one they open themselves).
func TestMutationsAreCaught(t *testing.T) {
	total := 0
	for name, tc := range configs() {
		for _, withNarrower := range []bool{false, true} {
			if withNarrower && name != "defaults" && name != "public https" {
				continue
			}
			var foreign []networkingv1.NetworkPolicy
			if withNarrower {
				for _, k := range slices.Sorted(maps.Keys(netpoltest.Narrower(ns))) {
					foreign = append(foreign, netpoltest.Narrower(ns)[k])
				}
			}
			t.Run(fmt.Sprintf("%s, %d foreign policies", name, len(foreign)), func(t *testing.T) {
				objs := netpol.Render(tc.spec)
				matrix := netpoltest.Matrix(tc.cfg)
				with := func(ps []networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy { return append(ps, foreign...) }
				for _, m := range mutations(objs) {
					total++
					if why, ok := redundant(name, m.name, withNarrower); ok {
						// Must really change nothing, so this list cannot hide a hole.
						if failed := netpoltest.Evaluate(with(m.apply(objs)), matrix); len(failed) > 0 {
							t.Errorf("mutation %q listed as redundant (%s) changes reachability: %s", m.name, why, failed[0])
						}
						continue
					}
					if failed := netpoltest.Evaluate(with(m.apply(objs)), matrix); len(failed) == 0 {
						t.Errorf("mutation %q passes the whole matrix", m.name)
					} else {
						t.Logf("mutation %q caught by: %s", m.name, failed[0])
					}
				}
				if failed := netpoltest.Evaluate(with(slices.Clone(objs)), matrix); len(failed) > 0 { // mutations must not touch objs
					t.Fatalf("the unmutated policies fail:\n  %s", netpoltest.Report(failed))
				}
			})
		}
	}
	t.Logf("%d mutations", total)
}

// TestForeignPoliciesAgainstMatrix: the matrix sees each widening policy of
// the issue in every configuration (some connection it must deny is
// allowed once the policy is there), and the widening detector
// (netpol.Widenings) names it; the narrower policies change no verdict of
// the default configuration's matrix, nor of public HTTPS egress's, and the
// detector says nothing of them.
func TestForeignPoliciesAgainstMatrix(t *testing.T) {
	for name, tc := range configs() {
		t.Run(name, func(t *testing.T) {
			objs := netpol.Render(tc.spec)
			matrix := netpoltest.Matrix(tc.cfg)
			for fname, f := range netpoltest.Widening(ns) {
				failed := netpoltest.Evaluate(append(slices.Clone(objs), f), matrix)
				if len(failed) == 0 {
					t.Errorf("%s: the matrix passes with it: it does not see the widening", fname)
				} else {
					t.Logf("%s: caught by %s", fname, failed[0])
				}
				if got := widened(t, objs, f); got == "" {
					t.Errorf("%s: the detector finds no widening", fname)
				}
			}
			if name != "defaults" && name != "public https" {
				return
			}
			for fname, f := range netpoltest.Narrower(ns) {
				if failed := netpoltest.Evaluate(append(slices.Clone(objs), f), matrix); len(failed) > 0 {
					t.Errorf("%s: a narrower policy changes the matrix: %s", fname, failed[0])
				}
				if got := widened(t, objs, f); got != "" {
					t.Errorf("%s: the detector finds a widening in a narrower policy: %s", fname, got)
				}
			}
		})
	}
}

// widened is what netpol.Widenings says f opens beyond platform ("" for
// nothing).
func widened(t *testing.T, platform []networkingv1.NetworkPolicy, f networkingv1.NetworkPolicy) string {
	t.Helper()
	ws, err := netpol.Widenings(ns, platform, []networkingv1.NetworkPolicy{f})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range ws {
		out = append(out, w.Policy+": "+w.Opens())
	}
	return strings.Join(out, "; ")
}

// TestDetectorFindsWhatMutationsRemove turns every hole-removal mutation
// into a widening the detector must find: the mutated objects stand for
// the platform's, and the unmutated ones, under other names, for someone
// else's policies. Wherever the matrix shows the mutation took a
// connection away (a case allowed by the configuration is denied), the
// unmutated copies give it back, so they widen the mutated platform and
// netpol.Widenings must say so. A detector that misses a widening of the
// shapes the platform renders fails here.
func TestDetectorFindsWhatMutationsRemove(t *testing.T) {
	total := 0
	for name, tc := range configs() {
		t.Run(name, func(t *testing.T) {
			objs := netpol.Render(tc.spec)
			matrix := netpoltest.Matrix(tc.cfg)
			copies := make([]networkingv1.NetworkPolicy, len(objs))
			for i := range objs {
				copies[i] = *objs[i].DeepCopy()
				copies[i].Name = "copy-of-" + objs[i].Name
			}
			if ws, err := netpol.Widenings(ns, objs, copies); err != nil || len(ws) > 0 {
				t.Fatalf("the unmutated copies widen the unmutated platform: %v %v", ws, err)
			}
			for _, m := range mutations(objs) {
				mutated := m.apply(objs)
				removed := false
				for _, f := range netpoltest.Evaluate(mutated, matrix) {
					removed = removed || strings.HasSuffix(f, "allowed=false, want true")
				}
				if !removed {
					continue
				}
				total++
				ws, err := netpol.Widenings(ns, mutated, copies)
				if err != nil {
					t.Fatal(err)
				}
				if len(ws) == 0 {
					t.Errorf("mutation %q takes a connection away, and the detector finds no widening in the unmutated copies", m.name)
				}
			}
		})
	}
	t.Logf("%d mutations that take a connection away", total)
}
