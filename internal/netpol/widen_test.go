package netpol

import (
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattfenwick/cyclonus/pkg/matcher"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

const wns = "team-vision"

// policy builds a NetworkPolicy of someone else in wns; fluent, for tables.
type policy struct{ networkingv1.NetworkPolicy }

func pol(name string) *policy {
	return &policy{networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: wns, Name: name}}}
}

func (p *policy) pods(kv ...string) *policy {
	p.Spec.PodSelector = metav1.LabelSelector{MatchLabels: pairs(kv)}
	return p
}

func (p *policy) podsIn(key string, values ...string) *policy {
	p.Spec.PodSelector = metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}}}
	return p
}

func (p *policy) egress(ports []networkingv1.NetworkPolicyPort, to ...networkingv1.NetworkPolicyPeer) *policy {
	p.types(networkingv1.PolicyTypeEgress)
	p.Spec.Egress = append(p.Spec.Egress, networkingv1.NetworkPolicyEgressRule{To: to, Ports: ports})
	return p
}

func (p *policy) ingress(ports []networkingv1.NetworkPolicyPort, from ...networkingv1.NetworkPolicyPeer) *policy {
	p.types(networkingv1.PolicyTypeIngress)
	p.Spec.Ingress = append(p.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{From: from, Ports: ports})
	return p
}

func (p *policy) types(t ...networkingv1.PolicyType) *policy {
	for _, x := range t {
		if !slices.Contains(p.Spec.PolicyTypes, x) {
			p.Spec.PolicyTypes = append(p.Spec.PolicyTypes, x)
		}
	}
	return p
}

func pairs(kv []string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func cidr(c string, except ...string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: c, Except: except}}
}

func nsLabels(kv ...string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchLabels: pairs(kv)}}
}

func podsOf(ns *metav1.LabelSelector, kv ...string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: ns, PodSelector: &metav1.LabelSelector{MatchLabels: pairs(kv)}}
}

func tcp(ports ...int32) []networkingv1.NetworkPolicyPort {
	return portsOf(corev1.ProtocolTCP, ports...)
}

func portsOf(proto corev1.Protocol, ports ...int32) []networkingv1.NetworkPolicyPort {
	var out []networkingv1.NetworkPolicyPort
	for _, p := range ports {
		proto, v := proto, intstr.FromInt32(p)
		out = append(out, networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &v})
	}
	return out
}

func named(name string) []networkingv1.NetworkPolicyPort {
	v := intstr.FromString(name)
	return []networkingv1.NetworkPolicyPort{{Port: &v}}
}

func portRange(from, to int32) []networkingv1.NetworkPolicyPort {
	v := intstr.FromInt32(from)
	return []networkingv1.NetworkPolicyPort{{Port: &v, EndPort: &to}}
}

func allProto(proto corev1.Protocol) []networkingv1.NetworkPolicyPort {
	return []networkingv1.NetworkPolicyPort{{Protocol: &proto}}
}

// configs of the platform the cases are evaluated against.
func widenConfigs() map[string]spec.TrainingNetworkPolicy {
	public := spec.DefaultTrainingNetworkPolicy(wns)
	public.PublicHTTPSEgress = true
	custom := spec.DefaultTrainingNetworkPolicy(wns)
	custom.AllowSameNamespace = false
	custom.ExtraEgress = []spec.EgressRule{{CIDRs: []string{"10.20.0.0/16"}, Ports: []int32{5432}, Protocol: "TCP"}}
	custom.IngressFromNamespaces = map[string][]int32{"monitoring": {9090}}
	kubeSystem := spec.DefaultTrainingNetworkPolicy(wns)
	kubeSystem.IngressFromNamespaces = map[string][]int32{"kube-system": nil}
	return map[string]spec.TrainingNetworkPolicy{"defaults": spec.DefaultTrainingNetworkPolicy(wns), "public": public, "custom": custom,
		"ingress from kube-system": kubeSystem}
}

type widenCase struct {
	config string
	policy *policy
	want   string // Opens(); "" when the policy is no widening
}

// widenCases: one policy each, with what it opens beyond the platform's
// holes. Each probe family of the detector is needed by one of them
// (TestWideningDetectorMutations).
func widenCases() map[string]widenCase {
	kubeSystem := &metav1.LabelSelector{MatchLabels: map[string]string{NamespaceLabel: "kube-system"}}
	return map[string]widenCase{
		"allow everything": {"defaults", pol("x").egress(nil).ingress(nil),
			"egress to anywhere on every port, ingress from anywhere on every port"},
		"https anywhere, public off": {"defaults", pol("x").egress(tcp(443), cidr("0.0.0.0/0")), "egress to 0.0.0.0/0 on TCP 443"},
		// public HTTPS excludes private ranges: 0.0.0.0/0 on 443 opens them
		"https anywhere, public on": {"public", pol("x").egress(tcp(443), cidr("0.0.0.0/0")), "egress to 0.0.0.0/0 on TCP 443"},
		"public https copied":       {"public", pol("x").egress(tcp(443), cidr("0.0.0.0/0", PublicExcept...)), ""},
		"public https, one except dropped": {"public", pol("x").egress(tcp(443), cidr("0.0.0.0/0", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")),
			"egress to 0.0.0.0/0 except 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 on TCP 443"},
		"https to 8.0.0.0/7, public on": {"public", pol("x").egress(tcp(443), cidr("8.0.0.0/7")), ""},
		// as the API server takes it: the address masked, 8.0.0.0/7
		"https to 9.0.0.0/7, public on": {"public", pol("x").egress(tcp(443), cidr("9.0.0.0/7")), ""},
		// 8.0.0.0-11.255.255.255 holds 10/8, which public HTTPS leaves out
		"https to 8.0.0.0/6, public on": {"public", pol("x").egress(tcp(443), cidr("8.0.0.0/6")), "egress to 8.0.0.0/6 on TCP 443"},
		// public HTTPS reaches no pod: an ipBlock does not select pods
		"kube-system pods on 443, public on": {"public", pol("x").egress(tcp(443), nsLabels(NamespaceLabel, "kube-system")),
			"egress to every pod of namespace kube-system on TCP 443"},
		"IPv6 anywhere on 443, public on": {"public", pol("x").egress(tcp(443), cidr("::/0")), "egress to ::/0 on TCP 443"},
		"a Google VIP address":            {"defaults", pol("x").egress(tcp(443), cidr("199.36.153.8/32")), ""},
		"the Google VIP and the next":     {"defaults", pol("x").egress(tcp(443), cidr("199.36.153.8/29")), "egress to 199.36.153.8/29 on TCP 443"},
		"ingress from every namespace": {"defaults", pol("x").ingress(nil, networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{}}),
			"ingress from every namespace on every port"},
		// the platform lets in kube-system and the namespace itself: only a
		// namespace no selector names shows the widening
		"ingress from every namespace, kube-system declared": {"ingress from kube-system",
			pol("x").ingress(nil, networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{}}),
			"ingress from every namespace on every port"},
		"ingress from labelled namespaces": {"defaults", pol("x").ingress(tcp(9090), nsLabels("team", "ml")),
			"ingress from every pod of namespaces team=ml on TCP 9090"},
		"ingress from monitoring, declared": {"custom", pol("x").ingress(tcp(9090), nsLabels(NamespaceLabel, "monitoring")), ""},
		"ingress from monitoring, one port more": {"custom", pol("x").ingress(tcp(9090, 9091), nsLabels(NamespaceLabel, "monitoring")),
			"ingress from every pod of namespace monitoring on TCP 9090, TCP 9091"},
		"ingress from an address": {"defaults", pol("x").ingress(tcp(22), cidr("10.0.0.0/8")), "ingress from 10.0.0.0/8 on TCP 22"},
		"some pods, egress": {"defaults", pol("x").pods("app", "notebook").egress(nil, cidr("10.0.0.0/8")),
			"for pods app=notebook: egress to 10.0.0.0/8 on every port"},
		"some pods by expression": {"defaults", pol("x").podsIn("app", "notebook", "debug").egress(tcp(22), cidr("10.0.0.0/8")),
			"for pods app in (debug,notebook): egress to 10.0.0.0/8 on TCP 22"},
		"kube-dns, as the platform": {"defaults", pol("x").egress(append(portsOf(corev1.ProtocolUDP, 53), tcp(53)...), podsOf(kubeSystem, "k8s-app", "kube-dns")), ""},
		"kube-dns, a named port": {"defaults", pol("x").egress(named("dns"), podsOf(kubeSystem, "k8s-app", "kube-dns")),
			"egress to pods k8s-app=kube-dns of namespace kube-system on TCP port named dns"},
		"kube-dns, SCTP": {"defaults", pol("x").egress(portsOf(corev1.ProtocolSCTP, 53), podsOf(kubeSystem, "k8s-app", "kube-dns")),
			"egress to pods k8s-app=kube-dns of namespace kube-system on SCTP 53"},
		"every kube-system pod on DNS": {"defaults", pol("x").egress(portsOf(corev1.ProtocolUDP, 53), nsLabels(NamespaceLabel, "kube-system")),
			"egress to every pod of namespace kube-system on UDP 53"},
		// 8080 is declared; 8081 is the widening
		"metadata, a port range": {"defaults", pol("x").egress(portRange(8080, 8090), cidr(MetadataServer)),
			"egress to 169.254.169.254/32 on TCP 8080-8090"},
		"metadata, declared ports": {"defaults", pol("x").egress(tcp(80, 8080), cidr(MetadataServer)), ""},
		"same namespace, on":       {"defaults", pol("x").egress(allProto(corev1.ProtocolSCTP), podsOf(nil, "app", "db")).ingress(nil, podsOf(nil)), ""},
		"same namespace, off": {"custom", pol("x").egress(allProto(corev1.ProtocolUDP), podsOf(nil, "app", "db")),
			"egress to pods app=db of namespace team-vision on every UDP port"},
		"deny only":      {"defaults", pol("x").types(networkingv1.PolicyTypeEgress, networkingv1.PolicyTypeIngress), ""},
		"no policy type": {"defaults", pol("x").egress(tcp(22), cidr("10.0.0.0/8")).typesNone(), "egress to 10.0.0.0/8 on TCP 22"},
	}
}

// typesNone leaves the policy types for the API server's default.
func (p *policy) typesNone() *policy { p.Spec.PolicyTypes = nil; return p }

func TestWidenings(t *testing.T) {
	t.Parallel()
	configs := widenConfigs()
	for name, tc := range widenCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			platform := Render(configs[tc.config])
			got, err := Widenings(wns, platform, []networkingv1.NetworkPolicy{tc.policy.NetworkPolicy})
			if err != nil {
				t.Fatal(err)
			}
			opens := ""
			if len(got) > 0 {
				opens = got[0].Opens()
			}
			if d := cmp.Diff(tc.want, opens); d != "" {
				t.Errorf("opens (-want +got):\n%s", d)
			}
			for _, w := range got {
				for _, o := range w.Openings {
					checkExample(t, platform, tc.policy.NetworkPolicy, o)
				}
			}
		})
	}
}

// checkExample: the example connection of an opening is one the platform's
// policies deny and the platform's with the policy allow, in its direction.
func checkExample(t *testing.T, platform []networkingv1.NetworkPolicy, p networkingv1.NetworkPolicy, o Opening) {
	t.Helper()
	allowed := func(ps []networkingv1.NetworkPolicy) bool {
		return engine(normalized(wns, ps)).IsIngressOrEgressAllowed(o.Example, o.Ingress).IsAllowed()
	}
	if allowed(platform) || !allowed(append(slices.Clone(platform), p)) {
		t.Errorf("%s: example %s is not allowed by the policy only", o.Rule, describeTraffic(o.Example))
	}
}

func describeTraffic(t *matcher.Traffic) string {
	peer := func(p *matcher.TrafficPeer) string {
		if p.Internal == nil {
			return p.IP
		}
		return p.Internal.Namespace + "/" + selectorString(&metav1.LabelSelector{MatchLabels: p.Internal.PodLabels})
	}
	return peer(t.Source) + " → " + peer(t.Destination) + " " + string(t.Protocol) + " " + t.ResolvedPortName + " " + strconv.Itoa(t.ResolvedPort)
}

func TestWideningsSeveralPolicies(t *testing.T) {
	t.Parallel()
	other := pol("elsewhere").egress(nil)
	other.Namespace = "team-other"
	others := []networkingv1.NetworkPolicy{
		pol("b-wide").egress(nil).NetworkPolicy,
		pol("a-narrow").egress(tcp(443), cidr("199.36.153.8/32")).NetworkPolicy,
		pol("c-wide").ingress(nil).NetworkPolicy,
		other.NetworkPolicy, // another namespace's: not this one's business
	}
	got, err := Widenings(wns, Render(spec.DefaultTrainingNetworkPolicy(wns)), others)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, w := range got {
		names[w.Policy] = w.Opens()
	}
	want := map[string]string{"b-wide": "egress to anywhere on every port", "c-wide": "ingress from anywhere on every port"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("widenings (-want +got):\n%s", d)
	}
	if got, _ := Widenings(wns, Render(spec.DefaultTrainingNetworkPolicy(wns)), nil); got != nil {
		t.Errorf("no other policy: %v", got)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	unmark := func(objs []networkingv1.NetworkPolicy) []networkingv1.NetworkPolicy {
		for i := range objs {
			objs[i].Labels = nil
		}
		return objs
	}
	gone := pol("gone").egress(nil).NetworkPolicy
	gone.DeletionTimestamp = &metav1.Time{}
	byHand := pol(AllowPublicHTTPS).egress(nil).NetworkPolicy // a platform name, not the platform's marker
	tests := map[string]struct {
		objs                  []networkingv1.NetworkPolicy
		wantPlatform, wantOut []string
	}{
		"the platform's and others": {append(Render(spec.DefaultTrainingNetworkPolicy(wns)), pol("team").egress(nil).NetworkPolicy, gone),
			[]string{DefaultDeny, AllowSameNamespace, AllowDNS, AllowMetadata, AllowGoogleAPIs}, []string{"team"}},
		"a platform name made by hand beside the platform's": {append(Render(spec.DefaultTrainingNetworkPolicy(wns)), byHand),
			[]string{DefaultDeny, AllowSameNamespace, AllowDNS, AllowMetadata, AllowGoogleAPIs}, []string{AllowPublicHTTPS}},
		"imported, not applied yet": {append(unmark(Render(spec.DefaultTrainingNetworkPolicy(wns))), byHand, pol("team").NetworkPolicy),
			[]string{DefaultDeny, AllowSameNamespace, AllowDNS, AllowMetadata, AllowGoogleAPIs, AllowPublicHTTPS}, []string{"team"}},
	}
	names := func(objs []networkingv1.NetworkPolicy) []string {
		var out []string
		for _, o := range objs {
			out = append(out, o.Name)
		}
		return out
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			platform, others := Split(tc.objs)
			if d := cmp.Diff(tc.wantPlatform, names(platform)); d != "" {
				t.Errorf("platform's (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantOut, names(others)); d != "" {
				t.Errorf("others (-want +got):\n%s", d)
			}
		})
	}
}

// A policy the evaluator cannot read is an error, not a panic.
func TestWideningsInvalidPolicy(t *testing.T) {
	t.Parallel()
	bad := pol("bad").egress(named("http"), cidr("10.0.0.0/8")) // a range from a named port: the API server refuses it
	end := int32(90)
	bad.Spec.Egress[0].Ports[0].EndPort = &end
	if _, err := Widenings(wns, Render(spec.DefaultTrainingNetworkPolicy(wns)), []networkingv1.NetworkPolicy{bad.NetworkPolicy}); err == nil {
		t.Error("no error for a port range that starts at a named port")
	}
}

func TestSatisfying(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		sel  *metav1.LabelSelector
		want []map[string]string
	}{
		"nil":   {nil, []map[string]string{{}}},
		"empty": {&metav1.LabelSelector{}, []map[string]string{{}}},
		"match labels and expressions": {&metav1.LabelSelector{MatchLabels: map[string]string{"a": "1"}, MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "b", Operator: metav1.LabelSelectorOpIn, Values: []string{"x", "y"}},
			{Key: "c", Operator: metav1.LabelSelectorOpExists},
			{Key: "d", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"z"}},
			{Key: "e", Operator: metav1.LabelSelectorOpDoesNotExist},
		}}, []map[string]string{{"a": "1", "b": "x", "c": "mlplatform-probe"}, {"a": "1", "b": "y", "c": "mlplatform-probe"}}},
		"contradiction": {&metav1.LabelSelector{MatchLabels: map[string]string{"a": "1"}, MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "a", Operator: metav1.LabelSelectorOpDoesNotExist}}}, []map[string]string{}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, satisfying(tc.sel)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestBounds(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"10.0.0.0/8":            {"10.0.0.0", "11.0.0.0"},
		"10.1.2.3/8":            {"10.0.0.0", "11.0.0.0"}, // as the API server masks it
		"255.255.255.0/24":      {"255.255.255.0"},        // nothing after the last address
		"0.0.0.0/0":             {"0.0.0.0"},
		"2600:2d00:2:2000::/64": {"2600:2d00:2:2000::", "2600:2d00:2:2001::"},
		"not a CIDR":            nil,
	}
	for c, want := range tests {
		var got []string
		for _, a := range bounds(c) {
			got = append(got, a.String())
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("bounds(%s) (-want +got):\n%s", c, d)
		}
	}
}

// TestWideningDetectorMutations: the detector is a choice of connections to
// ask the evaluator about. Each mutation drops one family of them (a
// detector with that bug); each must make a case of widenCases answer
// wrong, so no family is there for nothing and a detector that misses a
// widening fails TestWidenings.
func TestWideningDetectorMutations(t *testing.T) {
	t.Parallel()
	mutations := map[string]func(*space){
		"no address after a block's end": func(s *space) {
			s.ips = slices.DeleteFunc(s.ips, func(ip string) bool { return !isBlockStart(ip) })
		},
		"IPv4 only": func(s *space) {
			s.ips = slices.DeleteFunc(s.ips, func(ip string) bool { return netip.MustParseAddr(ip).Is6() })
		},
		"no port after a rule's ports": func(s *space) {
			for p := range s.ports {
				s.ports[p] = slices.DeleteFunc(s.ports[p], func(n int) bool { return n != 1 && !mentionedPort(n) })
			}
		},
		"TCP only": func(s *space) {
			delete(s.ports, corev1.ProtocolUDP)
			delete(s.ports, corev1.ProtocolSCTP)
		},
		"UDP and TCP only": func(s *space) { delete(s.ports, corev1.ProtocolSCTP) },
		"no named ports":   func(s *space) { s.names = nil },
		"no namespace a selector names": func(s *space) {
			s.nss = slices.DeleteFunc(s.nss, func(n namespaceProbe) bool {
				return n.name != wns && n.name != "kube-system" && !strings.HasPrefix(n.name, "mlplatform-probe-")
			})
		},
		"no namespace of a name of its own": func(s *space) {
			s.nss = slices.DeleteFunc(s.nss, func(n namespaceProbe) bool { return strings.HasPrefix(n.name, "mlplatform-probe-") })
		},
		"no namespace labelled as a selector asks": func(s *space) {
			s.nss = slices.DeleteFunc(s.nss, func(n namespaceProbe) bool { return len(n.labels) > 1 })
		},
		"only unlabelled peer pods": func(s *space) { s.podLabels = []map[string]string{{}} },
		"only labelled peer pods": func(s *space) {
			s.podLabels = slices.DeleteFunc(s.podLabels, func(l map[string]string) bool { return len(l) == 0 })
		},
		"only unlabelled pods of the namespace": func(s *space) {
			s.subjects = func(*metav1.LabelSelector) []map[string]string { return []map[string]string{{}} }
		},
		"pods at an address of a block": func(s *space) { s.podIP = "0.0.0.0" },
	}
	configs := widenConfigs()
	cases := widenCases()
	for name, tweak := range mutations {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, c := range slices.Sorted(maps.Keys(cases)) {
				tc := cases[c]
				got, err := widenings(wns, Render(configs[tc.config]), []networkingv1.NetworkPolicy{tc.policy.NetworkPolicy}, tweak)
				opens := ""
				if err == nil && len(got) > 0 {
					opens = got[0].Opens()
				}
				if opens != tc.want {
					t.Logf("caught by %q: %q, want %q", c, opens, tc.want)
					return
				}
			}
			t.Errorf("every case still answers right: this family of connections is never needed")
		})
	}
}

// isBlockStart: ip is where a CIDR of widenCases or the platform starts.
func isBlockStart(ip string) bool {
	a := netip.MustParseAddr(ip)
	if a.IsUnspecified() {
		return true
	}
	for _, tc := range widenCases() {
		for _, c := range append(cidrsOf(tc.policy.NetworkPolicy), platformCIDRs()...) {
			if b := bounds(c); len(b) > 0 && b[0] == a {
				return true
			}
		}
	}
	return false
}

func platformCIDRs() []string {
	var out []string
	for _, s := range widenConfigs() {
		for _, p := range Render(s) {
			out = append(out, cidrsOf(p)...)
		}
	}
	return out
}

func cidrsOf(p networkingv1.NetworkPolicy) []string {
	var out []string
	for _, r := range rulesOf(&p) {
		for _, peer := range r.peers {
			if peer.IPBlock != nil {
				out = append(out, peer.IPBlock.CIDR)
				out = append(out, peer.IPBlock.Except...)
			}
		}
	}
	return out
}

// mentionedPort: n is a port (or a range's first port) some policy names.
func mentionedPort(n int) bool {
	var all []networkingv1.NetworkPolicy
	for _, tc := range widenCases() {
		all = append(all, tc.policy.NetworkPolicy)
	}
	for _, s := range widenConfigs() {
		all = append(all, Render(s)...)
	}
	for i := range all {
		for _, r := range rulesOf(&all[i]) {
			for _, port := range r.ports {
				if port.Port != nil && int(port.Port.IntVal) == n {
					return true
				}
			}
		}
	}
	return false
}
