// Package netpoltest proves what NetworkPolicy objects allow with an engine
// that did not generate them: the matcher of github.com/mattfenwick/cyclonus
// (pkg/matcher), which evaluates policies from the upstream semantics
// (pod selection, policy types, peers, ports, default allow). The expected
// connections (Matrix) are written from the issue, not from internal/netpol.
package netpoltest

import (
	"fmt"
	"strings"

	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Config is what the expectations depend on (written by hand per test).
type Config struct {
	Namespace         string
	DNS               bool
	MetadataServer    bool
	GoogleAPIs        string // private|restricted|both|none
	PublicHTTPSEgress bool
	SameNamespace     bool
	// Extra: a single extra egress rule to 10.20.0.0/16 TCP 5432 is
	// configured; Monitoring: ingress from namespace "monitoring" on 9090.
	Extra, Monitoring bool
}

// Defaults is the resource's default configuration.
func Defaults(ns string) Config {
	return Config{Namespace: ns, DNS: true, MetadataServer: true, GoogleAPIs: "private", SameNamespace: true}
}

// Case is one connection and whether it must be allowed.
type Case struct {
	Name    string
	Traffic *matcher.Traffic
	Allowed bool
}

func pod(ns string, labels map[string]string, ip string) *matcher.TrafficPeer {
	return &matcher.TrafficPeer{IP: ip, Internal: &matcher.InternalPeer{
		Namespace: ns, PodLabels: labels,
		NamespaceLabels: map[string]string{"kubernetes.io/metadata.name": ns},
	}}
}

func ip(addr string) *matcher.TrafficPeer { return &matcher.TrafficPeer{IP: addr} }

// Matrix lists the connections the issue names (and one per remaining
// hole) for a pod of cfg.Namespace, with the verdict cfg calls for.
func Matrix(cfg Config) []Case {
	team := pod(cfg.Namespace, map[string]string{"app": "trainer", "rank": "0"}, "10.8.0.10")
	peer := pod(cfg.Namespace, map[string]string{"app": "trainer", "rank": "1"}, "10.8.0.11")
	kubeDNS := pod("kube-system", map[string]string{"k8s-app": "kube-dns"}, "10.8.1.2")
	otherKubeSystem := pod("kube-system", map[string]string{"k8s-app": "metrics-server"}, "10.8.1.3")
	other := pod("team-other", map[string]string{"app": "trainer"}, "10.8.2.10")
	monitoring := pod("monitoring", map[string]string{"app": "prometheus"}, "10.8.3.10")
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	out := func(name string, dst *matcher.TrafficPeer, port int, proto corev1.Protocol, allowed bool) Case {
		return Case{Name: "egress " + name, Allowed: allowed,
			Traffic: &matcher.Traffic{Source: team, Destination: dst, ResolvedPort: port, Protocol: proto}}
	}
	in := func(name string, src *matcher.TrafficPeer, port int, allowed bool) Case {
		return Case{Name: "ingress " + name, Allowed: allowed,
			Traffic: &matcher.Traffic{Source: src, Destination: team, ResolvedPort: port, Protocol: tcp}}
	}
	private := cfg.GoogleAPIs == "private" || cfg.GoogleAPIs == "both"
	restricted := cfg.GoogleAPIs == "restricted" || cfg.GoogleAPIs == "both"
	return []Case{
		out("kube-dns 53/UDP", kubeDNS, 53, udp, cfg.DNS),
		out("kube-dns 53/TCP", kubeDNS, 53, tcp, cfg.DNS),
		out("NodeLocal DNSCache 169.254.20.10:53/UDP", ip("169.254.20.10"), 53, udp, cfg.DNS),
		out("NodeLocal DNSCache 169.254.20.10:53/TCP", ip("169.254.20.10"), 53, tcp, cfg.DNS),
		out("metadata DNS 169.254.169.254:53/UDP", ip("169.254.169.254"), 53, udp, cfg.DNS),
		out("metadata DNS 169.254.169.254:53/TCP", ip("169.254.169.254"), 53, tcp, cfg.DNS),
		out("other kube-system pod 53/UDP", otherKubeSystem, 53, udp, false),
		out("kube-dns 8080/TCP", kubeDNS, 8080, tcp, false),
		out("metadata 169.254.169.254:80", ip("169.254.169.254"), 80, tcp, cfg.MetadataServer),
		out("metadata 169.254.169.254:8080", ip("169.254.169.254"), 8080, tcp, cfg.MetadataServer),
		out("metadata 169.254.169.252:987", ip("169.254.169.252"), 987, tcp, cfg.MetadataServer),
		out("metadata 169.254.169.252:988", ip("169.254.169.252"), 988, tcp, cfg.MetadataServer),
		out("metadata 169.254.169.254:22", ip("169.254.169.254"), 22, tcp, false),
		out("metadata 169.254.169.254:443", ip("169.254.169.254"), 443, tcp, false),
		out("private.googleapis.com 199.36.153.8:443", ip("199.36.153.8"), 443, tcp, private || cfg.PublicHTTPSEgress),
		out("private.googleapis.com 199.36.153.11:443", ip("199.36.153.11"), 443, tcp, private || cfg.PublicHTTPSEgress),
		// the VIPs are public addresses: public HTTPS egress reaches them too
		out("restricted.googleapis.com 199.36.153.4:443", ip("199.36.153.4"), 443, tcp, restricted || cfg.PublicHTTPSEgress),
		out("private.googleapis.com 199.36.153.8:80", ip("199.36.153.8"), 80, tcp, false),
		// over IPv6 (dual-stack clusters); public HTTPS egress is IPv4 only
		out("private.googleapis.com [2600:2d00:2:2000::1]:443", ip("2600:2d00:2:2000::1"), 443, tcp, private),
		out("restricted.googleapis.com [2600:2d00:2:1000::1]:443", ip("2600:2d00:2:1000::1"), 443, tcp, restricted),
		out("private.googleapis.com [2600:2d00:2:2000::1]:80", ip("2600:2d00:2:2000::1"), 80, tcp, false),
		out("[2600:2d00:2:3000::1]:443, outside both", ip("2600:2d00:2:3000::1"), 443, tcp, false),
		out("8.8.8.8:443", ip("8.8.8.8"), 443, tcp, cfg.PublicHTTPSEgress),
		out("8.8.8.8:80", ip("8.8.8.8"), 80, tcp, false),
		out("10.0.0.5:443", ip("10.0.0.5"), 443, tcp, false),
		out("172.16.0.5:443", ip("172.16.0.5"), 443, tcp, false),
		out("192.168.1.5:443", ip("192.168.1.5"), 443, tcp, false),
		out("100.64.0.5:443", ip("100.64.0.5"), 443, tcp, false),
		out("same-namespace pod 29500/TCP", peer, 29500, tcp, cfg.SameNamespace),
		out("same-namespace pod 12345/UDP", peer, 12345, udp, cfg.SameNamespace),
		out("pod in another namespace 29500/TCP", other, 29500, tcp, false),
		out("pod in another namespace 443/TCP", other, 443, tcp, false),
		out("extra egress 10.20.1.1:5432", ip("10.20.1.1"), 5432, tcp, cfg.Extra),
		out("extra egress 10.20.1.1:5433", ip("10.20.1.1"), 5433, tcp, false),
		out("extra egress 10.21.1.1:5432", ip("10.21.1.1"), 5432, tcp, false),
		in("from another namespace 29500", other, 29500, false),
		in("from monitoring 9090", monitoring, 9090, cfg.Monitoring),
		in("from monitoring 9091", monitoring, 9091, false),
		in("from outside 1.2.3.4:443", ip("1.2.3.4"), 443, false),
	}
}

// Evaluate returns one line per case whose verdict differs from the
// expectation; policies are all NetworkPolicies of every namespace involved.
func Evaluate(policies []networkingv1.NetworkPolicy, cases []Case) []string {
	ptrs := make([]*networkingv1.NetworkPolicy, len(policies))
	for i := range policies {
		ptrs[i] = &policies[i]
	}
	engine := matcher.BuildNetworkPolicies(false, ptrs)
	var failed []string
	for _, c := range cases {
		got := engine.IsTrafficAllowed(c.Traffic).IsAllowed()
		if got != c.Allowed {
			failed = append(failed, fmt.Sprintf("%s: allowed=%v, want %v", c.Name, got, c.Allowed))
		}
	}
	return failed
}

// Report formats failures for a test message.
func Report(failed []string) string { return strings.Join(failed, "\n  ") }

// Widening are NetworkPolicies someone else might add to team namespace ns
// that widen its default deny, one per case the issue names; the Matrix
// pod (app=trainer, rank=0) is selected by each, so each makes some Matrix
// case allowed that no configuration allows. Keyed by name.
func Widening(ns string) map[string]networkingv1.NetworkPolicy {
	tcp := corev1.ProtocolTCP
	https := intstr.FromInt32(443)
	all := metav1.LabelSelector{}
	return map[string]networkingv1.NetworkPolicy{
		// podSelector {}, egress [{}], ingress [{}]
		"allow-everything": foreign(ns, "allow-everything", all,
			[]networkingv1.NetworkPolicyEgressRule{{}}, []networkingv1.NetworkPolicyIngressRule{{}}),
		// egress to 0.0.0.0/0 on 443, as a model hub would need
		"allow-https-anywhere": foreign(ns, "allow-https-anywhere", all, []networkingv1.NetworkPolicyEgressRule{{
			To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0"}}},
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &https}},
		}}, nil),
		// ingress from every pod of every namespace
		"allow-ingress-all-namespaces": foreign(ns, "allow-ingress-all-namespaces", all, nil, []networkingv1.NetworkPolicyIngressRule{{
			From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}},
		}}),
		// egress for the rank-0 pods only, to the private 10/8 range
		"allow-rank0-egress": foreign(ns, "allow-rank0-egress", metav1.LabelSelector{MatchLabels: map[string]string{"rank": "0"}},
			[]networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}}}}}, nil),
	}
}

// Narrower are NetworkPolicies that open only what Defaults opens, or
// less: none of them widens a namespace with the default configuration (or
// with public HTTPS egress too). Keyed by name.
func Narrower(ns string) map[string]networkingv1.NetworkPolicy {
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	port := func(p int32) *intstr.IntOrString { v := intstr.FromInt32(p); return &v }
	all := metav1.LabelSelector{}
	return map[string]networkingv1.NetworkPolicy{
		// the platform's own kube-dns hole, written by the team
		"team-dns": foreign(ns, "team-dns", all, []networkingv1.NetworkPolicyEgressRule{{
			To: []networkingv1.NetworkPolicyPeer{{
				NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
				PodSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}},
			}},
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: port(53)}, {Protocol: &tcp, Port: port(53)}},
		}}, nil),
		// one address of the private.googleapis.com VIP
		"team-google-api": foreign(ns, "team-google-api", all, []networkingv1.NetworkPolicyEgressRule{{
			To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "199.36.153.8/32"}}},
			Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: port(443)}},
		}}, nil),
		// pod-to-pod within the namespace, one port, for the notebooks
		"notebook-rendezvous": foreign(ns, "notebook-rendezvous", metav1.LabelSelector{MatchLabels: map[string]string{"app": "notebook"}}, nil,
			[]networkingv1.NetworkPolicyIngressRule{{
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: port(29500)}},
			}}),
		// a deny: egress isolation and no rule
		"deny-egress": {
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "deny-egress"},
			Spec:       networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}},
		},
	}
}

func foreign(ns, name string, pods metav1.LabelSelector, egress []networkingv1.NetworkPolicyEgressRule, ingress []networkingv1.NetworkPolicyIngressRule) networkingv1.NetworkPolicy {
	p := networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: pods, Egress: egress, Ingress: ingress}}
	if egress != nil {
		p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
	}
	if ingress != nil {
		p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, networkingv1.PolicyTypeIngress)
	}
	return p
}
