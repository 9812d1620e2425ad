package netpol

// What a widening policy opens, in words.

import (
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

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
