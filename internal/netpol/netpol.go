// Package netpol renders a spec.TrainingNetworkPolicy as Kubernetes
// NetworkPolicy objects, one per purpose, so `kubectl get netpol` reads like
// the configuration. It is pure: no clients, no Terraform.
package netpol

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Names of the objects, one per purpose.
const (
	DefaultDeny           = "mlplatform-default-deny"
	AllowSameNamespace    = "mlplatform-allow-same-namespace"
	AllowDNS              = "mlplatform-allow-dns"
	AllowMetadata         = "mlplatform-allow-metadata"
	AllowGoogleAPIs       = "mlplatform-allow-google-apis"
	AllowPublicHTTPS      = "mlplatform-allow-public-https"
	AllowExtraEgress      = "mlplatform-allow-extra-egress"
	AllowIngressFromNamsp = "mlplatform-allow-ingress-from-namespaces"
)

// Names lists every object name the platform may own in a namespace.
var Names = []string{DefaultDeny, AllowSameNamespace, AllowDNS, AllowMetadata, AllowGoogleAPIs, AllowPublicHTTPS, AllowExtraEgress, AllowIngressFromNamsp}

// ManagedByLabel marks objects the platform owns; objects without it are
// never changed or deleted.
const (
	ManagedByLabel = spec.ManagedByLabel
	ManagedBy      = spec.ManagedBy
)

// Addresses of the holes (GKE; see the resource documentation for sources).
const (
	NodeLocalDNS     = "169.254.20.10/32"
	MetadataServer   = "169.254.169.254/32"
	MetadataServerV1 = "169.254.169.252/32" // gke-metadata-server on Dataplane V1
	PrivateGoogle    = "199.36.153.8/30"    // private.googleapis.com
	RestrictedGoogle = "199.36.153.4/30"    // restricted.googleapis.com
	// The same VIPs over IPv6 (dual-stack clusters), in canonical form.
	PrivateGoogleV6    = "2600:2d00:2:2000::/64" // private.googleapis.com
	RestrictedGoogleV6 = "2600:2d00:2:1000::/64" // restricted.googleapis.com
	NamespaceLabel     = "kubernetes.io/metadata.name"
)

// PublicExcept are the ranges public HTTPS egress never reaches: RFC 1918,
// link-local (metadata) and carrier-grade NAT.
var PublicExcept = []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "100.64.0.0/10"}

// KubeDNS selects the kube-dns pods.
var KubeDNS = map[string]string{"k8s-app": "kube-dns"}

// Render returns the objects s needs, in the order of Names.
func Render(s spec.TrainingNetworkPolicy) []networkingv1.NetworkPolicy {
	both := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}
	egress := []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}
	out := []networkingv1.NetworkPolicy{object(s.Namespace, DefaultDeny, networkingv1.NetworkPolicySpec{PolicyTypes: both})}
	if s.AllowSameNamespace {
		same := []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}
		out = append(out, object(s.Namespace, AllowSameNamespace, networkingv1.NetworkPolicySpec{
			PolicyTypes: both,
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: same}},
			Egress:      []networkingv1.NetworkPolicyEgressRule{{To: same}},
		}))
	}
	if s.DNS {
		dns := ports([]int32{53}, corev1.ProtocolUDP, corev1.ProtocolTCP)
		out = append(out, object(s.Namespace, AllowDNS, networkingv1.NetworkPolicySpec{
			PolicyTypes: egress,
			Egress: []networkingv1.NetworkPolicyEgressRule{
				{To: []networkingv1.NetworkPolicyPeer{{
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{NamespaceLabel: "kube-system"}},
					PodSelector:       &metav1.LabelSelector{MatchLabels: KubeDNS},
				}}, Ports: dns},
				{To: ipBlocks(NodeLocalDNS, MetadataServer), Ports: dns},
			},
		}))
	}
	if s.MetadataServer {
		out = append(out, object(s.Namespace, AllowMetadata, networkingv1.NetworkPolicySpec{
			PolicyTypes: egress,
			Egress: []networkingv1.NetworkPolicyEgressRule{
				{To: ipBlocks(MetadataServer), Ports: ports([]int32{80, 8080}, corev1.ProtocolTCP)},
				{To: ipBlocks(MetadataServerV1), Ports: ports([]int32{987, 988}, corev1.ProtocolTCP)},
			},
		}))
	}
	var google []string
	switch s.GoogleAPIs {
	case "private":
		google = []string{PrivateGoogle, PrivateGoogleV6}
	case "restricted":
		google = []string{RestrictedGoogle, RestrictedGoogleV6}
	case "both":
		google = []string{PrivateGoogle, PrivateGoogleV6, RestrictedGoogle, RestrictedGoogleV6}
	}
	if len(google) > 0 {
		out = append(out, object(s.Namespace, AllowGoogleAPIs, networkingv1.NetworkPolicySpec{
			PolicyTypes: egress,
			Egress:      []networkingv1.NetworkPolicyEgressRule{{To: ipBlocks(google...), Ports: ports([]int32{443}, corev1.ProtocolTCP)}},
		}))
	}
	if s.PublicHTTPSEgress {
		out = append(out, object(s.Namespace, AllowPublicHTTPS, networkingv1.NetworkPolicySpec{
			PolicyTypes: egress,
			Egress: []networkingv1.NetworkPolicyEgressRule{{
				To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: append([]string(nil), PublicExcept...)}}},
				Ports: ports([]int32{443}, corev1.ProtocolTCP),
			}},
		}))
	}
	if len(s.ExtraEgress) > 0 {
		var rules []networkingv1.NetworkPolicyEgressRule
		for _, r := range s.ExtraEgress {
			proto := corev1.Protocol(r.Protocol)
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			rules = append(rules, networkingv1.NetworkPolicyEgressRule{To: ipBlocks(r.CIDRs...), Ports: ports(r.Ports, proto)})
		}
		out = append(out, object(s.Namespace, AllowExtraEgress, networkingv1.NetworkPolicySpec{PolicyTypes: egress, Egress: rules}))
	}
	if len(s.IngressFromNamespaces) > 0 {
		var rules []networkingv1.NetworkPolicyIngressRule
		for _, ns := range spec.SortedKeys(s.IngressFromNamespaces) {
			rules = append(rules, networkingv1.NetworkPolicyIngressRule{
				From:  []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{NamespaceLabel: ns}}}},
				Ports: ports(s.IngressFromNamespaces[ns], corev1.ProtocolTCP),
			})
		}
		out = append(out, object(s.Namespace, AllowIngressFromNamsp, networkingv1.NetworkPolicySpec{
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}, Ingress: rules,
		}))
	}
	return out
}

func object(namespace, name string, s networkingv1.NetworkPolicySpec) networkingv1.NetworkPolicy {
	s.PodSelector = metav1.LabelSelector{}
	return networkingv1.NetworkPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Labels: map[string]string{ManagedByLabel: ManagedBy}},
		Spec: s,
	}
}

func ipBlocks(cidrs ...string) []networkingv1.NetworkPolicyPeer {
	peers := make([]networkingv1.NetworkPolicyPeer, 0, len(cidrs))
	for _, c := range cidrs {
		peers = append(peers, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: c}})
	}
	return peers
}

// ports is every port on every protocol, port-major; no ports means all
// ports of the first protocol.
func ports(ps []int32, protos ...corev1.Protocol) []networkingv1.NetworkPolicyPort {
	if len(ps) == 0 {
		p := protos[0]
		return []networkingv1.NetworkPolicyPort{{Protocol: &p}}
	}
	var out []networkingv1.NetworkPolicyPort
	for _, port := range ps {
		for _, proto := range protos {
			port, proto := intstr.FromInt32(port), proto
			out = append(out, networkingv1.NetworkPolicyPort{Protocol: &proto, Port: &port})
		}
	}
	return out
}

// Hash identifies the content of a policy: its spec as JSON. Two objects
// with the same hash allow the same traffic.
func Hash(s networkingv1.NetworkPolicySpec) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err) // a NetworkPolicySpec always marshals
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Hashes maps the name of each object to Hash of its spec.
func Hashes(objs []networkingv1.NetworkPolicy) map[string]string {
	m := make(map[string]string, len(objs))
	for _, o := range objs {
		m[o.Name] = Hash(o.Spec)
	}
	return m
}
