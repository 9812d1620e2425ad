package netpol

import (
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Modified is what google_apis reads as when the object names neither VIP.
const Modified = "modified"

// Read is the configuration the objects the platform owns in namespace
// express: a purpose reads as on when its object exists; lists are read
// back from the rules. Rendered holds the hash of each object, so an edit
// Read cannot express still shows as a change.
func Read(namespace string, objs []networkingv1.NetworkPolicy) spec.TrainingNetworkPolicy {
	byName := map[string]networkingv1.NetworkPolicy{}
	for _, o := range objs {
		byName[o.Name] = o
	}
	has := func(n string) bool { _, ok := byName[n]; return ok }
	s := spec.TrainingNetworkPolicy{
		Namespace:          namespace,
		AllowSameNamespace: has(AllowSameNamespace),
		DNS:                has(AllowDNS),
		MetadataServer:     has(AllowMetadata),
		PublicHTTPSEgress:  has(AllowPublicHTTPS),
		GoogleAPIs:         "none",
		Rendered:           Hashes(objs),
	}
	if g, ok := byName[AllowGoogleAPIs]; ok {
		var private, restricted bool
		for _, r := range g.Spec.Egress {
			for _, p := range r.To {
				if p.IPBlock != nil {
					private = private || p.IPBlock.CIDR == PrivateGoogle
					restricted = restricted || p.IPBlock.CIDR == RestrictedGoogle
				}
			}
		}
		switch {
		case private && restricted:
			s.GoogleAPIs = "both"
		case private:
			s.GoogleAPIs = "private"
		case restricted:
			s.GoogleAPIs = "restricted"
		default:
			s.GoogleAPIs = Modified
		}
	}
	if x, ok := byName[AllowExtraEgress]; ok {
		for _, r := range x.Spec.Egress {
			var e spec.EgressRule
			for _, p := range r.To {
				if p.IPBlock != nil {
					e.CIDRs = append(e.CIDRs, p.IPBlock.CIDR)
				}
			}
			e.Ports, e.Protocol = readPorts(r.Ports)
			s.ExtraEgress = append(s.ExtraEgress, e)
		}
	}
	if x, ok := byName[AllowIngressFromNamsp]; ok {
		for _, r := range x.Spec.Ingress {
			ps, _ := readPorts(r.Ports)
			for _, p := range r.From {
				if p.NamespaceSelector == nil || p.PodSelector != nil || p.IPBlock != nil {
					continue
				}
				if ns := p.NamespaceSelector.MatchLabels[NamespaceLabel]; ns != "" {
					if s.IngressFromNamespaces == nil {
						s.IngressFromNamespaces = map[string][]int32{}
					}
					s.IngressFromNamespaces[ns] = append(s.IngressFromNamespaces[ns], ps...)
				}
			}
		}
	}
	return s
}

func readPorts(ps []networkingv1.NetworkPolicyPort) ([]int32, string) {
	proto := string(corev1.ProtocolTCP)
	var out []int32
	for i, p := range ps {
		if i == 0 && p.Protocol != nil {
			proto = string(*p.Protocol)
		}
		if p.Port != nil {
			out = append(out, int32(p.Port.IntValue()))
		}
	}
	return out, proto
}
