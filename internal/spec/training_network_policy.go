package spec

import (
	"fmt"
	"math"
	"net/netip"
	"slices"
	"sort"
	"strings"

	netutils "k8s.io/utils/net"
)

// GoogleAPIsChoices are the values of TrainingNetworkPolicy.GoogleAPIs.
var GoogleAPIsChoices = []string{"private", "restricted", "both", "none"}

// Protocols are the protocols a NetworkPolicy port can name
// (ValidateNetworkPolicyPort: TCP, UDP or SCTP).
var Protocols = []string{"TCP", "UDP", "SCTP"}

// TrainingNetworkPolicy is default-deny networking for a training namespace
// with the holes training pods need (see internal/netpol for the objects).
type TrainingNetworkPolicy struct {
	Namespace          string
	AllowSameNamespace bool
	DNS                bool
	MetadataServer     bool
	GoogleAPIs         string // one of GoogleAPIsChoices
	PublicHTTPSEgress  bool
	ExtraEgress        []EgressRule
	// IngressFromNamespaces maps a namespace name to the ports its pods may
	// reach (TCP; none = all ports).
	IngressFromNamespaces map[string][]int32
	// Rendered maps the name of each policy object to a hash of its spec. It
	// is read from the server (Observe) and ignored by Validate.
	Rendered map[string]string
}

// EgressRule allows egress to CIDRs on ports (none = all ports) of a protocol.
type EgressRule struct {
	CIDRs    []string
	Ports    []int32
	Protocol string // one of Protocols
}

// DefaultTrainingNetworkPolicy is the configuration with every default.
func DefaultTrainingNetworkPolicy(namespace string) TrainingNetworkPolicy {
	return TrainingNetworkPolicy{Namespace: namespace, AllowSameNamespace: true, DNS: true, MetadataServer: true, GoogleAPIs: "private"}
}

// Validate checks names, CIDRs, ports and protocols against what the
// Kubernetes API server accepts in a NetworkPolicy
// (k8s.io/kubernetes/pkg/apis/networking/validation: ValidateNetworkPolicyPort,
// ValidateIPBlock), plus what would make the policy do something else than
// it says: a rule without CIDRs (which Kubernetes reads as every
// destination) and a default-deny in a system namespace.
func (p TrainingNetworkPolicy) Validate() FieldErrors {
	var errs FieldErrors
	// The policies live in the namespace: a DNS-1123 label
	// (ValidateNamespaceName = NameIsDNSLabel).
	if prob := DNSLabelProblem(p.Namespace); prob != "" {
		errs.add(Path{"namespace"}, "Invalid Namespace", "%q is not a valid namespace name: %s (e.g. %q).",
			p.Namespace, prob, exampleKubeName(p.Namespace, false, "team-vision"))
	} else if p.Namespace != "default" && SystemNamespace(p.Namespace) != "" {
		what := "the system components that run in it"
		if p.Namespace == "kube-system" {
			what = "the cluster's DNS, which runs there and every pod uses"
		}
		errs.add(Path{"namespace"}, "System Namespace",
			"%q belongs to Kubernetes, GKE or a cluster add-on, and a default-deny policy there would cut off %s. "+
				"Put the policy in a team's namespace, e.g. \"team-vision\".", p.Namespace, what)
	}
	if !slices.Contains(GoogleAPIsChoices, p.GoogleAPIs) {
		hint := ""
		if l := strings.ToLower(strings.TrimSpace(p.GoogleAPIs)); l != p.GoogleAPIs && slices.Contains(GoogleAPIsChoices, l) {
			hint = fmt.Sprintf(" (the choices are lower case: write %q)", l)
		}
		errs.add(Path{"google_apis"}, "Invalid Google APIs Choice",
			"%q is not a choice%s. Use \"private\" (private.googleapis.com), \"restricted\" (restricted.googleapis.com, for VPC Service Controls), "+
				"\"both\", or \"none\" (no Private Google Access hole).", p.GoogleAPIs, hint)
	}
	for i, r := range p.ExtraEgress {
		at := Path{"extra_egress", i}
		if len(r.CIDRs) == 0 {
			// netpol renders the rule's destinations from its CIDRs, and a
			// NetworkPolicyEgressRule with no "to" matches every destination.
			errs.add(append(slices.Clone(at), "cidrs"), "Missing CIDRs",
				"an extra egress rule needs at least one destination CIDR, e.g. [\"10.20.0.0/16\"]: a NetworkPolicy rule with none allows every "+
					"destination. To allow all destinations, say so: [\"0.0.0.0/0\", \"::/0\"].")
		}
		for j, c := range r.CIDRs {
			if prob := cidrProblem(c); prob != "" {
				errs.add(Path{"extra_egress", i, "cidrs", j}, "Invalid CIDR",
					"%q is not a CIDR: %s. A CIDR is an IPv4 or IPv6 network address, '/' and a prefix length, e.g. \"10.20.0.0/16\" or \"2001:db8::/32\".", c, prob)
			}
		}
		validatePorts(&errs, append(slices.Clone(at), "ports"), r.Ports)
		if !slices.Contains(Protocols, r.Protocol) {
			errs.add(append(slices.Clone(at), "protocol"), "Invalid Protocol", "%s", protocolProblem(r.Protocol))
		}
	}
	for _, ns := range SortedKeys(p.IngressFromNamespaces) {
		if prob := DNSLabelProblem(ns); prob != "" {
			errs.add(Path{"ingress_from_namespaces", Key(ns)}, "Invalid Namespace",
				"the key %q is not a namespace name: %s (e.g. %q). Each key names a namespace whose pods may connect.",
				ns, prob, exampleKubeName(ns, false, "monitoring"))
		}
		validatePorts(&errs, Path{"ingress_from_namespaces", Key(ns), "ports"}, p.IngressFromNamespaces[ns])
	}
	return errs
}

// validatePorts checks port numbers: Kubernetes' IsValidPortNum, 1 to 65535.
func validatePorts(errs *FieldErrors, path Path, ports []int32) {
	for i, port := range ports {
		if port >= 1 && port <= 65535 {
			continue
		}
		what := fmt.Sprintf("port %d", port)
		if port == math.MaxInt32 || port == math.MinInt32 { // clamped from something larger
			what = "this number"
		}
		errs.add(append(slices.Clone(path), i), "Invalid Port",
			"%s is not a port: ports are 1 to 65535 (e.g. 5432). To allow every port, leave ports out.", what)
	}
}

// protocolProblem says why proto is not a NetworkPolicy protocol
// (NetworkPolicyPort.protocol: TCP, UDP or SCTP, upper case).
func protocolProblem(proto string) string {
	switch up := strings.ToUpper(strings.TrimSpace(proto)); {
	case proto == "":
		return "protocol is empty: write \"TCP\", \"UDP\" or \"SCTP\", or leave it out for TCP."
	case slices.Contains(Protocols, up):
		return fmt.Sprintf("protocol %q is not one Kubernetes knows: protocol names are upper case; write %q.", proto, up)
	}
	return fmt.Sprintf("protocol %q is not one a NetworkPolicy can name: it filters \"TCP\", \"UDP\" or \"SCTP\" only. Write one of those, or leave it out for TCP.", proto)
}

// cidrProblem says why c is not a CIDR a NetworkPolicy ipBlock should hold,
// or "". The API server parses ipBlock.cidr leniently (k8s.io/utils/net
// ParseCIDRSloppy; IsValidCIDRForLegacyField) and warns that host bits set,
// leading zeros and IPv4-mapped IPv6 are ambiguous or will be invalid
// (GetWarningsForCIDR; refused outright with the StrictIPCIDRValidation
// gate), so those are refused here too, with the value to write instead.
func cidrProblem(c string) string {
	switch {
	case c == "":
		return "it is empty"
	case strings.Contains(c, ","):
		parts := strings.Split(c, ",")
		for i := range parts {
			parts[i] = fmt.Sprintf("%q", strings.TrimSpace(parts[i]))
		}
		return "it is several CIDRs in one string; write each as its own element: [" + strings.Join(parts, ", ") + "]"
	case strings.ContainsAny(c, " \t\n"):
		return "it contains a space"
	}
	addr, bits, hasSlash := strings.Cut(c, "/")
	a, addrErr := netip.ParseAddr(addr)
	if addrErr == nil && a.Zone() != "" {
		return "its address has a zone (" + a.Zone() + "); a NetworkPolicy address has none"
	}
	if !hasSlash {
		if addrErr == nil {
			return fmt.Sprintf("it is an address without a prefix length: write \"%s/%d\" for this one address, or the network's prefix length "+
				"(e.g. \"%s\")", a, a.BitLen(), exampleNetwork(a))
		}
		return "it has no '/' and prefix length, and " + addressProblem(addr)
	}
	pfx, err := netip.ParsePrefix(c)
	if err != nil {
		if _, n, err := netutils.ParseCIDRSloppy(c); err == nil {
			return fmt.Sprintf("it has leading zeros; write %q", n.String())
		}
		if addrErr != nil {
			return addressProblem(addr)
		}
		return fmt.Sprintf("the prefix length %q is not a number from 0 to %d", bits, a.BitLen())
	}
	if pfx.Addr().Is4In6() {
		if pfx.Bits() >= 96 {
			return fmt.Sprintf("it is an IPv4 network written as IPv6; write %q", netip.PrefixFrom(pfx.Addr().Unmap(), pfx.Bits()-96).Masked().String())
		}
		return "it is an IPv4-mapped IPv6 network; write the IPv4 network instead"
	}
	if m := pfx.Masked(); m != pfx {
		return fmt.Sprintf("its address has bits set after the prefix length: write %q for the network, or \"%s/%d\" for the one address",
			m.String(), pfx.Addr(), pfx.Addr().BitLen())
	}
	return ""
}

// addressProblem says why s is not an IP address.
func addressProblem(s string) string {
	if strings.Contains(s, "-") {
		return fmt.Sprintf("%q is not an address (a range is written as the CIDRs that cover it)", s)
	}
	if strings.ContainsFunc(s, func(r rune) bool { return (r >= 'g' && r <= 'z') || (r >= 'G' && r <= 'Z') }) {
		return fmt.Sprintf("%q is not an address (a NetworkPolicy matches IP addresses, not host names)", s)
	}
	return fmt.Sprintf("%q is not an IPv4 or IPv6 address", s)
}

// exampleNetwork is a /24 (IPv4) or /64 (IPv6) network containing a.
func exampleNetwork(a netip.Addr) string {
	bits := 24
	if a.Is6() {
		bits = 64
	}
	return netip.PrefixFrom(a, bits).Masked().String()
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
