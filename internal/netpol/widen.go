package netpol

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
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

// space is the connections worth asking the evaluator about, for the
// policies of one namespace.
type space struct {
	namespace string
	ips       []string // external addresses: region starts of every ipBlock
	// podIP is an address no ipBlock holds, for pods: on GKE Dataplane V2
	// (Cilium) an ipBlock does not select pods, so a pod is reached only
	// by rules that select it by labels.
	podIP     string
	nss       []namespaceProbe          // namespaces, labelled to match each namespace selector
	podLabels []map[string]string       // pods, labelled to match each peer pod selector
	ports     map[corev1.Protocol][]int // region starts of every rule's ports, per protocol
	names     []string                  // named ports
	// subjects are the pods of the namespace a pod selector selects, by
	// their labels (satisfying).
	subjects func(*metav1.LabelSelector) []map[string]string
}

type namespaceProbe struct {
	name   string
	labels map[string]string
}

// protocols are every protocol a NetworkPolicy port may name.
var protocols = []corev1.Protocol{corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP}

func newSpace(namespace string, ps []networkingv1.NetworkPolicy) *space {
	s := &space{namespace: namespace, ports: map[corev1.Protocol][]int{}, subjects: satisfying}
	addrs := []netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()}
	var blocks []*networkingv1.IPBlock
	nsSelectors := []*metav1.LabelSelector{}
	podSelectors := []*metav1.LabelSelector{{}}
	for _, p := range protocols {
		s.ports[p] = []int{1}
	}
	addPorts := func(ports []networkingv1.NetworkPolicyPort) {
		for _, port := range ports {
			proto := protocolOf(port)
			switch {
			case port.Port == nil:
			case port.Port.Type == intstr.String:
				s.names = append(s.names, port.Port.StrVal)
			default:
				end := int(port.Port.IntVal)
				if port.EndPort != nil {
					end = int(*port.EndPort)
				}
				s.ports[proto] = append(s.ports[proto], int(port.Port.IntVal), end+1)
			}
		}
	}
	addPeers := func(peers []networkingv1.NetworkPolicyPeer) {
		for _, peer := range peers {
			if peer.IPBlock != nil {
				blocks = append(blocks, peer.IPBlock)
				for _, c := range append([]string{peer.IPBlock.CIDR}, peer.IPBlock.Except...) {
					addrs = append(addrs, bounds(c)...)
				}
			}
			if peer.NamespaceSelector != nil {
				nsSelectors = append(nsSelectors, peer.NamespaceSelector)
			}
			if peer.PodSelector != nil {
				podSelectors = append(podSelectors, peer.PodSelector)
			}
		}
	}
	for i := range ps {
		for _, r := range rulesOf(&ps[i]) {
			addPorts(r.ports)
			addPeers(r.peers)
		}
	}
	slices.SortFunc(addrs, func(a, b netip.Addr) int { return a.Compare(b) })
	for _, a := range slices.Compact(addrs) {
		s.ips = append(s.ips, a.String())
	}
	s.podIP = s.ips[0]
	for _, ip := range s.ips {
		if !slices.ContainsFunc(blocks, func(b *networkingv1.IPBlock) bool { return inBlock(ip, b) }) {
			s.podIP = ip
			break
		}
	}
	for p, ports := range s.ports {
		ports = slices.DeleteFunc(ports, func(n int) bool { return n < 1 || n > 65535 })
		slices.Sort(ports)
		s.ports[p] = slices.Compact(ports)
	}
	slices.Sort(s.names)
	s.names = slices.Compact(s.names)

	// Namespaces: this one, kube-system, and one matching each namespace
	// selector, named as the selector requires, else a name of its own (so
	// a selector that names no namespace reaches one the platform's
	// selectors, which name theirs, do not).
	seen := map[string]bool{}
	addNS := func(name string, l map[string]string) {
		l = copyLabels(l)
		l[NamespaceLabel] = name
		key := labels.Set(l).String()
		if !seen[key] {
			seen[key] = true
			s.nss = append(s.nss, namespaceProbe{name: name, labels: l})
		}
	}
	addNS(namespace, nil)
	addNS("kube-system", nil)
	for i, sel := range nsSelectors {
		for j, l := range satisfying(sel) {
			name := l[NamespaceLabel]
			if name == "" {
				name = fmt.Sprintf("mlplatform-probe-%d-%d", i, j)
			}
			addNS(name, l)
		}
	}
	seenPods := map[string]bool{}
	for _, sel := range podSelectors {
		for _, l := range satisfying(sel) {
			if key := labels.Set(l).String(); !seenPods[key] {
				seenPods[key] = true
				s.podLabels = append(s.podLabels, l)
			}
		}
	}
	return s
}

// witness returns a connection f (one rule and peer of a policy that is
// not the platform's) allows a pod of the namespace, in one direction,
// that base (the platform's policies) does not; nil when there is none.
// The combined policies (platform's and f) must allow it too: that is
// what the namespace then allows.
func (s *space) witness(base *matcher.Policy, platform []networkingv1.NetworkPolicy, f networkingv1.NetworkPolicy, ingress bool) *matcher.Traffic {
	alone := engine([]networkingv1.NetworkPolicy{f})
	var combined *matcher.Policy
	for _, subject := range s.subjects(&f.Spec.PodSelector) {
		self := &matcher.TrafficPeer{IP: s.podIP, Internal: &matcher.InternalPeer{
			Namespace: s.namespace, PodLabels: subject, NamespaceLabels: map[string]string{NamespaceLabel: s.namespace}}}
		for _, peer := range s.peers() {
			for _, t := range s.traffic(self, peer, ingress) {
				if len(alone.IsIngressOrEgressAllowed(t, ingress).AllowingTargets) == 0 || base.IsIngressOrEgressAllowed(t, ingress).IsAllowed() {
					continue
				}
				if combined == nil {
					combined = engine(append(slices.Clone(platform), f))
				}
				if combined.IsIngressOrEgressAllowed(t, ingress).IsAllowed() {
					return t
				}
			}
		}
	}
	return nil
}

// peers are the other ends: every address, then every pod of every
// namespace.
func (s *space) peers() []*matcher.TrafficPeer {
	out := make([]*matcher.TrafficPeer, 0, len(s.ips)+len(s.nss)*len(s.podLabels))
	for _, ip := range s.ips {
		out = append(out, &matcher.TrafficPeer{IP: ip})
	}
	for _, ns := range s.nss {
		for _, l := range s.podLabels {
			out = append(out, &matcher.TrafficPeer{IP: s.podIP, Internal: &matcher.InternalPeer{Namespace: ns.name, NamespaceLabels: ns.labels, PodLabels: l}})
		}
	}
	return out
}

// traffic is every connection between self and peer worth asking about:
// each port region start per protocol, and each named port on each.
func (s *space) traffic(self, peer *matcher.TrafficPeer, ingress bool) []*matcher.Traffic {
	var out []*matcher.Traffic
	add := func(port int, name string, proto corev1.Protocol) {
		t := &matcher.Traffic{Source: self, Destination: peer, ResolvedPort: port, ResolvedPortName: name, Protocol: proto}
		if ingress {
			t.Source, t.Destination = peer, self
		}
		out = append(out, t)
	}
	for _, proto := range protocols {
		for _, port := range s.ports[proto] {
			add(port, "", proto)
			for _, name := range s.names {
				add(port, name, proto)
			}
		}
	}
	return out
}

// bounds are the first address of cidr and the one after its last: where
// an ipBlock's verdict may change.
func bounds(cidr string) []netip.Addr {
	_, n, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil
	}
	first, ok := netip.AddrFromSlice(n.IP)
	if !ok {
		return nil
	}
	first = first.Unmap()
	ones, bits := n.Mask.Size()
	last := first
	for i := bits - ones; i > 0; i-- { // set the host bits
		last = setBit(last, i-1)
	}
	out := []netip.Addr{first}
	if next := last.Next(); next.IsValid() {
		out = append(out, next)
	}
	return out
}

func setBit(a netip.Addr, bit int) netip.Addr {
	b := a.AsSlice()
	b[len(b)-1-bit/8] |= 1 << (bit % 8)
	out, _ := netip.AddrFromSlice(b)
	return out
}

func inBlock(ip string, b *networkingv1.IPBlock) bool {
	contains := func(cidr string) bool {
		_, n, err := net.ParseCIDR(cidr)
		return err == nil && n.Contains(net.ParseIP(ip))
	}
	return contains(b.CIDR) && !slices.ContainsFunc(b.Except, contains)
}

// maxLabelSets bounds the label sets satisfying makes of one selector (each
// In expression multiplies them by its values).
const maxLabelSets = 64

// satisfying returns label sets sel matches: its matchLabels, one set per
// combination of the values of its In expressions, a value for each key an
// Exists expression needs, and nothing for NotIn and DoesNotExist. These
// are the fewest labels a pod or namespace needs to be selected; a
// selector that selects by labels a peer carries (matchLabels, In, Exists:
// the platform's) that selects one of them selects every set sel matches
// with those labels. Sets Kubernetes' own matching does not match (a
// selector that contradicts itself) are left out. A nil selector matches
// every set.
func satisfying(sel *metav1.LabelSelector) []map[string]string {
	if sel == nil {
		return []map[string]string{{}}
	}
	sets := []map[string]string{copyLabels(sel.MatchLabels)}
	for _, e := range sel.MatchExpressions {
		var next []map[string]string
		for _, l := range sets {
			switch e.Operator {
			case metav1.LabelSelectorOpIn:
				for _, v := range e.Values {
					if len(next) < maxLabelSets {
						m := copyLabels(l)
						m[e.Key] = v
						next = append(next, m)
					}
				}
			case metav1.LabelSelectorOpExists:
				m := copyLabels(l)
				if _, ok := m[e.Key]; !ok {
					m[e.Key] = "mlplatform-probe"
				}
				next = append(next, m)
			default:
				next = append(next, l)
			}
		}
		sets = next
	}
	selector, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(sets, func(l map[string]string) bool { return !selector.Matches(labels.Set(l)) })
}

func copyLabels(l map[string]string) map[string]string {
	out := make(map[string]string, len(l)+1)
	for k, v := range l {
		out[k] = v
	}
	return out
}

// selectorString is sel as kubectl writes it ("app=notebook"), "" when it
// selects everything.
func selectorString(sel *metav1.LabelSelector) string {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return metav1.FormatLabelSelector(sel)
	}
	return s.String()
}

// describeRule says what one rule with one peer (none: every peer) allows:
// "egress to 0.0.0.0/0 on every port", "ingress from every namespace on TCP 9090".
func describeRule(ingress bool, namespace string, peers []networkingv1.NetworkPolicyPeer, ports []networkingv1.NetworkPolicyPort) string {
	dir := "egress to "
	if ingress {
		dir = "ingress from "
	}
	peer := "anywhere"
	if len(peers) > 0 {
		peer = describePeer(namespace, peers[0])
	}
	return dir + peer + " on " + describePorts(ports)
}

func describePeer(namespace string, p networkingv1.NetworkPolicyPeer) string {
	if p.IPBlock != nil {
		s := p.IPBlock.CIDR
		if len(p.IPBlock.Except) > 0 {
			s += " except " + strings.Join(p.IPBlock.Except, ", ")
		}
		return s
	}
	pods := "every pod"
	if p.PodSelector != nil && selectorString(p.PodSelector) != "" {
		pods = "pods " + selectorString(p.PodSelector)
	}
	var where string
	switch {
	case p.NamespaceSelector == nil:
		where = "namespace " + namespace
	case selectorString(p.NamespaceSelector) == "":
		if pods == "every pod" {
			return "every namespace"
		}
		where = "every namespace"
	case len(p.NamespaceSelector.MatchExpressions) == 0 && len(p.NamespaceSelector.MatchLabels) == 1 && p.NamespaceSelector.MatchLabels[NamespaceLabel] != "":
		where = "namespace " + p.NamespaceSelector.MatchLabels[NamespaceLabel]
	default:
		where = "namespaces " + selectorString(p.NamespaceSelector)
	}
	if pods == "every pod" {
		return "every pod of " + where
	}
	return pods + " of " + where
}

func describePorts(ports []networkingv1.NetworkPolicyPort) string {
	if len(ports) == 0 {
		return "every port"
	}
	var out []string
	for _, p := range ports {
		proto := protocolOf(p)
		switch {
		case p.Port == nil:
			out = append(out, "every "+string(proto)+" port")
		case p.Port.Type == intstr.String:
			out = append(out, fmt.Sprintf("%s port named %s", proto, p.Port.StrVal))
		case p.EndPort != nil:
			out = append(out, fmt.Sprintf("%s %d-%d", proto, p.Port.IntVal, *p.EndPort))
		default:
			out = append(out, fmt.Sprintf("%s %d", proto, p.Port.IntVal))
		}
	}
	return strings.Join(out, ", ")
}
