package netpol

// The traffic space a namespace's policies are probed over: its pods, the
// peers its rules name, every port and protocol they name, and an address in
// and beside every CIDR.

import (
	"fmt"
	"net"
	"net/netip"
	"slices"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

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
