package spec

import (
	"net/netip"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// GoogleAPIsChoices are the values of TrainingNetworkPolicy.GoogleAPIs.
var GoogleAPIsChoices = []string{"private", "restricted", "both", "none"}

// Protocols are the protocols a NetworkPolicy port can name.
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
	Protocol string // "" means TCP
}

// DefaultTrainingNetworkPolicy is the configuration with every default.
func DefaultTrainingNetworkPolicy(namespace string) TrainingNetworkPolicy {
	return TrainingNetworkPolicy{Namespace: namespace, AllowSameNamespace: true, DNS: true, MetadataServer: true, GoogleAPIs: "private"}
}

// Validate checks names, CIDRs, ports and protocols.
func (p TrainingNetworkPolicy) Validate() FieldErrors {
	var errs FieldErrors
	validateNamespace(&errs, Path{"namespace"}, p.Namespace)
	if !slices.Contains(GoogleAPIsChoices, p.GoogleAPIs) {
		errs.add(Path{"google_apis"}, "Invalid Google APIs Choice", "google_apis %q is not one of %s.", p.GoogleAPIs, strings.Join(GoogleAPIsChoices, ", "))
	}
	for i, r := range p.ExtraEgress {
		if len(r.CIDRs) == 0 {
			errs.add(Path{"extra_egress", i, "cidrs"}, "Missing CIDRs", "an extra egress rule needs at least one CIDR (e.g. 10.20.0.0/16).")
		}
		for j, c := range r.CIDRs {
			if pfx, err := netip.ParsePrefix(c); err != nil {
				errs.add(Path{"extra_egress", i, "cidrs", j}, "Invalid CIDR", "%q is not a CIDR (address/prefix length, e.g. 10.20.0.0/16): %v.", c, err)
			} else if pfx.Masked() != pfx {
				errs.add(Path{"extra_egress", i, "cidrs", j}, "Invalid CIDR", "%q has host bits set; write %s.", c, pfx.Masked())
			}
		}
		validatePorts(&errs, Path{"extra_egress", i, "ports"}, r.Ports)
		if r.Protocol != "" && !slices.Contains(Protocols, r.Protocol) {
			errs.add(Path{"extra_egress", i, "protocol"}, "Invalid Protocol", "protocol %q is not one of TCP, UDP, SCTP.", r.Protocol)
		}
	}
	for _, ns := range SortedKeys(p.IngressFromNamespaces) {
		validateNamespace(&errs, Path{"ingress_from_namespaces", Key(ns)}, ns)
		validatePorts(&errs, Path{"ingress_from_namespaces", Key(ns), "ports"}, p.IngressFromNamespaces[ns])
	}
	return errs
}

func validateNamespace(errs *FieldErrors, path Path, ns string) {
	if ns == "" {
		errs.add(path, "Missing Namespace", "set the namespace name.")
	} else if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
		errs.add(path, "Invalid Namespace", "%q is not a valid namespace name: %s.", ns, strings.Join(msgs, "; "))
	}
}

func validatePorts(errs *FieldErrors, path Path, ports []int32) {
	for i, port := range ports {
		if port < 1 || port > 65535 {
			errs.add(append(slices.Clone(path), i), "Invalid Port", "port %d is outside 1–65535.", port)
		}
	}
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
