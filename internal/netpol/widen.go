package netpol

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Widening is what one NetworkPolicy that is not the platform's lets a team
// namespace's pods do beyond the holes the platform's policies open.
//
// NetworkPolicies only add: a connection is allowed when any policy that
// selects the pod allows it. So a policy someone else adds to a namespace
// with the platform's default deny can only widen it, never narrow it.
type Widening struct {
	Namespace, Policy string
	// Pods is the policy's pod selector ("app=notebook"); "" when it
	// selects every pod of the namespace.
	Pods string
	// Openings are its rules (one peer and its ports each) that allow
	// something the platform's policies do not, in the policy's order.
	Openings []Opening
}

// Opening is one rule of a widening policy, with one connection it allows
// that the platform's policies deny.
type Opening struct {
	Ingress bool
	// Rule is the rule in words: "egress to 0.0.0.0/0 on every port".
	Rule string
	// Example is a connection the rule allows and the platform's policies
	// deny (the team namespace's pod is its source for egress, its
	// destination for ingress), as the evaluator decided it.
	Example *matcher.Traffic
}

// Opens is what the policy opens, in words: "egress to anywhere on every
// port, ingress from every namespace on every port" (for a policy that
// selects some pods only: "for pods app=notebook: egress to ...").
func (w Widening) Opens() string {
	rules := make([]string, 0, len(w.Openings))
	for _, o := range w.Openings {
		rules = append(rules, o.Rule)
	}
	s := strings.Join(rules, ", ")
	if w.Pods != "" {
		s = "for pods " + w.Pods + ": " + s
	}
	return s
}

// Split divides the NetworkPolicies of one namespace into the platform's
// and the others, as the reconciler tells them apart: the platform's are
// those of a platform name (Names) that carry its marker (ManagedByLabel);
// where none does (imported, not applied yet), every one of a platform
// name. So a policy someone made by hand under a platform name, beside the
// platform's own, is one of the others. Objects being deleted are left out.
func Split(objs []networkingv1.NetworkPolicy) (platform, others []networkingv1.NetworkPolicy) {
	var marked, unmarked []networkingv1.NetworkPolicy
	for _, o := range objs {
		switch {
		case o.DeletionTimestamp != nil:
		case !slices.Contains(Names, o.Name):
			others = append(others, o)
		case o.Labels[ManagedByLabel] == ManagedBy:
			marked = append(marked, o)
		default:
			unmarked = append(unmarked, o)
		}
	}
	if len(marked) == 0 {
		return unmarked, others
	}
	return marked, append(others, unmarked...)
}

// Widenings evaluates, for each policy of others (NetworkPolicies in
// namespace that are not the platform's), what it allows the namespace's
// pods beyond what platform (the platform's policies there) allows, and
// returns the policies that allow anything more, sorted by name. A policy
// that opens only what the platform's already open, or less, is not one.
//
// The semantics are not written here: every verdict is the matcher of
// github.com/mattfenwick/cyclonus (pkg/matcher), the evaluator the
// reachability tests use (netpoltest). What is here is the choice of the
// connections to ask it about: for every policy involved, each address
// where an ipBlock (or one of its exceptions) starts or ends, each port
// where a rule's ports start or end (and each named port), on TCP, UDP and
// SCTP; and pods and namespaces labelled to match each selector. Between
// those points every policy decides alike, so a policy that allows any
// connection the platform's deny allows one of them. (For label selectors
// this holds for the platform's own, which select by labels a peer must
// carry; see satisfying.)
//
// An error means a policy could not be evaluated (the evaluator refused
// it); no policy the API server accepted does that.
func Widenings(namespace string, platform, others []networkingv1.NetworkPolicy) ([]Widening, error) {
	return widenings(namespace, platform, others, nil)
}

// widenings is Widenings with the connections asked about changed by tweak
// (the tests' mutations of the detector; nil in use).
func widenings(namespace string, platform, others []networkingv1.NetworkPolicy, tweak func(*space)) (_ []Widening, err error) {
	if len(others) == 0 {
		return nil, nil
	}
	defer func() {
		if r := recover(); r != nil { // cyclonus panics on a policy it cannot read
			err = fmt.Errorf("evaluate the NetworkPolicies of namespace %s: %v", namespace, r)
		}
	}()
	platform = normalized(namespace, platform)
	others = normalized(namespace, others)
	sp := newSpace(namespace, append(slices.Clone(platform), others...))
	if tweak != nil {
		tweak(sp)
	}
	base := engine(platform)
	var out []Widening
	for i := range others {
		f := &others[i]
		if f.Namespace != namespace {
			continue
		}
		w := Widening{Namespace: namespace, Policy: f.Name, Pods: selectorString(&f.Spec.PodSelector)}
		for _, rp := range rulePeers(f) {
			if ex := sp.witness(base, platform, rp.policy, rp.ingress); ex != nil && !slices.ContainsFunc(w.Openings, func(o Opening) bool { return o.Rule == rp.words }) {
				w.Openings = append(w.Openings, Opening{Ingress: rp.ingress, Rule: rp.words, Example: ex})
			}
		}
		if len(w.Openings) > 0 {
			out = append(out, w)
		}
	}
	slices.SortFunc(out, func(a, b Widening) int { return strings.Compare(a.Policy, b.Policy) })
	return out, nil
}

// normalized copies policies, in namespace, with the policy types the API
// server defaults when none are given (Ingress, and Egress when there are
// egress rules), which the evaluator needs.
func normalized(namespace string, ps []networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
	out := make([]networkingv1.NetworkPolicy, 0, len(ps))
	for _, p := range ps {
		p := *p.DeepCopy()
		if p.Namespace == "" {
			p.Namespace = namespace
		}
		if len(p.Spec.PolicyTypes) == 0 {
			p.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
			if len(p.Spec.Egress) > 0 {
				p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
			}
		}
		out = append(out, p)
	}
	return out
}

func engine(ps []networkingv1.NetworkPolicy) *matcher.Policy {
	ptrs := make([]*networkingv1.NetworkPolicy, len(ps))
	for i := range ps {
		ptrs[i] = &ps[i]
	}
	return matcher.BuildNetworkPolicies(false, ptrs)
}

// rulePeer is one rule of a policy narrowed to one of its peers, as a
// policy of its own (same pod selector, one direction), and in words.
type rulePeer struct {
	policy  networkingv1.NetworkPolicy
	ingress bool
	words   string
}

// rule is one rule of a policy: its direction, peers and ports.
type rule struct {
	ingress bool
	peers   []networkingv1.NetworkPolicyPeer
	ports   []networkingv1.NetworkPolicyPort
}

// rulesOf is every rule of p, egress first, whatever its policy types.
func rulesOf(p *networkingv1.NetworkPolicy) []rule {
	var out []rule
	for _, r := range p.Spec.Egress {
		out = append(out, rule{peers: r.To, ports: r.Ports})
	}
	for _, r := range p.Spec.Ingress {
		out = append(out, rule{ingress: true, peers: r.From, ports: r.Ports})
	}
	return out
}

// protocolOf is a port's protocol (TCP when it names none).
func protocolOf(port networkingv1.NetworkPolicyPort) corev1.Protocol {
	if port.Protocol != nil {
		return *port.Protocol
	}
	return corev1.ProtocolTCP
}

func rulePeers(p *networkingv1.NetworkPolicy) []rulePeer {
	var out []rulePeer
	for _, r := range rulesOf(p) {
		t := networkingv1.PolicyTypeEgress
		if r.ingress {
			t = networkingv1.PolicyTypeIngress
		}
		if !slices.Contains(p.Spec.PolicyTypes, t) {
			continue // a rule of a direction the policy does not decide
		}
		peers, ingress, ports := r.peers, r.ingress, r.ports
		if len(peers) == 0 {
			peers = []networkingv1.NetworkPolicyPeer{{}} // no peers: every peer
		}
		for _, peer := range peers {
			q := networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: p.Name}}
			q.Spec.PodSelector = p.Spec.PodSelector
			var only []networkingv1.NetworkPolicyPeer
			if peer != (networkingv1.NetworkPolicyPeer{}) {
				only = []networkingv1.NetworkPolicyPeer{peer}
			}
			if ingress {
				q.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
				q.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{From: only, Ports: ports}}
			} else {
				q.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}
				q.Spec.Egress = []networkingv1.NetworkPolicyEgressRule{{To: only, Ports: ports}}
			}
			out = append(out, rulePeer{policy: q, ingress: ingress, words: describeRule(ingress, p.Namespace, only, ports)})
		}
	}
	return out
}
