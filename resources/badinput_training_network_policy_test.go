package resources_test

import "strings"

// Training network policy, from what Kubernetes accepts in a NetworkPolicy
// (k8s.io/kubernetes/pkg/apis/networking/validation) and what the policies
// would mean:
//   - namespace and the keys of ingress_from_namespaces: DNS-1123 labels;
//     no default-deny in a system namespace (kube-system, kueue-system, ...).
//   - extra_egress.cidrs: at least one (a rule with no destination allows
//     every destination); each an IPv4 or IPv6 network with a prefix length,
//     no host bits, no leading zeros, no IPv4-mapped IPv6 (ambiguous or
//     invalid for the API server's strict CIDR validation).
//   - ports 1 to 65535; protocol TCP, UDP or SCTP (upper case).
//   - google_apis: private, restricted, both or none.
func init() {
	egress := func(cidrs []any, ports []any, protocol any) map[string]any {
		rule := map[string]any{"cidrs": cidrs, "ports": ports}
		if protocol != nil {
			rule["protocol"] = protocol
		}
		return map[string]any{"extra_egress": []any{rule}}
	}
	cidrs := func(c ...any) map[string]any { return egress(c, []any{5432}, "TCP") }
	ingress := func(ns string, ports ...any) map[string]any {
		return map[string]any{"ingress_from_namespaces": map[string]any{ns: map[string]any{"ports": ports}}}
	}
	const cidr0 = "extra_egress[0].cidrs[0]"
	badInputs["mlplatform_training_network_policy"] = badInput{
		valid: map[string]any{"namespace": "team-vision", "google_apis": "both",
			"extra_egress":            []any{map[string]any{"cidrs": []any{"10.20.0.0/16", "2001:db8::/32", "10.30.0.5/32"}, "ports": []any{5432}, "protocol": "TCP"}},
			"ingress_from_namespaces": map[string]any{"monitoring": map[string]any{"ports": []any{9090}}}},
		cases: map[string]badCase{
			// namespace
			"namespace with upper case": {set: map[string]any{"namespace": "Team-Vision"}, path: "namespace", want: `(?s)Invalid Namespace.*upper-case.*"team-vision"`},
			"namespace with underscore": {set: map[string]any{"namespace": "team_vision"}, path: "namespace", want: `(?s)Invalid Namespace.*contains '_'.*"team-vision"`},
			"namespace too long":        {set: map[string]any{"namespace": strings.Repeat("t", 64)}, path: "namespace", want: `(?s)Invalid Namespace.*64 characters long; the limit is 63`},
			"namespace empty":           {set: map[string]any{"namespace": ""}, path: "namespace", want: `(?s)Invalid Namespace.*empty`},
			"kube-system":               {set: map[string]any{"namespace": "kube-system"}, path: "namespace", want: `(?s)System Namespace.*cut off the cluster.s DNS.*team.s namespace`},
			"kueue-system":              {set: map[string]any{"namespace": "kueue-system"}, path: "namespace", want: `(?s)System Namespace.*"kueue-system" belongs to.*cut off the system components that run in it`},
			"a gke- namespace":          {set: map[string]any{"namespace": "gke-managed-system"}, path: "namespace", want: `(?s)System Namespace`},
			// google_apis
			"google apis capitalized": {set: map[string]any{"google_apis": "Private"}, path: "google_apis", want: `(?s)Invalid Google APIs Choice.*lower case: write "private"`},
			"google apis unknown":     {set: map[string]any{"google_apis": "all"}, path: "google_apis", want: `(?s)Invalid Google APIs Choice.*"all" is not a choice.*"restricted".*VPC Service Controls.*"none"`},
			"google apis empty":       {set: map[string]any{"google_apis": ""}, path: "google_apis", want: `(?s)Invalid Google APIs Choice.*"" is not a choice`},
			// extra_egress CIDRs
			"IPv4 address without prefix": {set: cidrs("10.20.0.5"), path: cidr0, want: `(?s)Invalid CIDR.*without a prefix length: write "10\.20\.0\.5/32" for this one address.*"10\.20\.0\.0/24"`},
			"IPv6 address without prefix": {set: cidrs("2001:db8::1"), path: cidr0, want: `(?s)Invalid CIDR.*write "2001:db8::1/128" for this one address.*"2001:db8::/64"`},
			"IPv4 host bits":              {set: cidrs("10.20.0.5/16"), path: cidr0, want: `(?s)Invalid CIDR.*bits set after the prefix length: write "10\.20\.0\.0/16" for the network, or "10\.20\.0\.5/32"`},
			"IPv6 host bits":              {set: cidrs("2001:db8::1/32"), path: cidr0, want: `(?s)Invalid CIDR.*write "2001:db8::/32" for the network, or "2001:db8::1/128"`},
			"IPv4 prefix too long":        {set: cidrs("10.20.0.0/33"), path: cidr0, want: `(?s)Invalid CIDR.*prefix length "33" is not a number from 0 to 32`},
			"IPv6 prefix too long":        {set: cidrs("2001:db8::/129"), path: cidr0, want: `(?s)Invalid CIDR.*prefix length "129" is not a number from 0 to 128`},
			"prefix not a number":         {set: cidrs("10.20.0.0/x"), path: cidr0, want: `(?s)Invalid CIDR.*prefix length "x"`},
			"leading zeros":               {set: cidrs("010.20.0.0/16"), path: cidr0, want: `(?s)Invalid CIDR.*leading zeros; write "10\.20\.0\.0/16"`},
			"IPv4-mapped IPv6":            {set: cidrs("::ffff:10.20.0.0/112"), path: cidr0, want: `(?s)Invalid CIDR.*IPv4 network written as IPv6; write "10\.20\.0\.0/16"`},
			"a host name":                 {set: cidrs("pypi.org/32"), path: cidr0, want: `(?s)Invalid CIDR.*not host names`},
			"a range":                     {set: cidrs("10.0.0.1-10.0.0.9"), path: cidr0, want: `(?s)Invalid CIDR.*no '/'.*a range is written as the CIDRs that cover it`},
			"not an address":              {set: cidrs("10.20.300.0/24"), path: cidr0, want: `(?s)Invalid CIDR.*"10\.20\.300\.0" is not an IPv4 or IPv6 address`},
			"a space":                     {set: cidrs("10.20.0.0/16 "), path: cidr0, want: `(?s)Invalid CIDR.*contains a space`},
			"an empty CIDR":               {set: cidrs(""), path: cidr0, want: `(?s)Invalid CIDR.*"" is not a CIDR: it is empty.*e\.g\. "10\.20\.0\.0/16"`},
			"a zone":                      {set: cidrs("fe80::1%eth0/64"), path: cidr0, want: `(?s)Invalid CIDR.*zone \(eth0\)`},
			"a list in one string":        {set: cidrs("10.20.0.0/16,10.30.0.0/16"), path: cidr0, want: `(?s)Invalid CIDR.*several CIDRs in one string; write each as its own element: \["10\.20\.0\.0/16", "10\.30\.0\.0/16"\]`},
			"the second CIDR":             {set: cidrs("10.20.0.0/16", "10.30.0.0"), path: "extra_egress[0].cidrs[1]", want: `(?s)Invalid CIDR.*"10\.30\.0\.0/32"`},
			"no CIDRs":                    {set: cidrs(), path: "extra_egress[0].cidrs", want: `(?s)Missing CIDRs.*allows every destination.*"0\.0\.0\.0/0", "::/0"`},
			// ports and protocol
			"egress port 0":          {set: egress([]any{"10.20.0.0/16"}, []any{0}, "TCP"), path: "extra_egress[0].ports[0]", want: `(?s)Invalid Port.*port 0 is not a port: ports are 1 to 65535.*leave ports out`},
			"egress port 70000":      {set: egress([]any{"10.20.0.0/16"}, []any{443, 70000}, "TCP"), path: "extra_egress[0].ports[1]", want: `(?s)Invalid Port.*port 70000 is not a port`},
			"egress port negative":   {set: egress([]any{"10.20.0.0/16"}, []any{-1}, "TCP"), path: "extra_egress[0].ports[0]", want: `(?s)Invalid Port.*port -1`},
			"egress port far out":    {set: egress([]any{"10.20.0.0/16"}, []any{1 << 40}, "TCP"), path: "extra_egress[0].ports[0]", want: `(?s)Invalid Port.*this number is not a port`},
			"protocol lower case":    {set: egress([]any{"10.20.0.0/16"}, []any{53}, "udp"), path: "extra_egress[0].protocol", want: `(?s)Invalid Protocol.*upper case; write "UDP"`},
			"protocol ICMP":          {set: egress([]any{"10.20.0.0/16"}, nil, "ICMP"), path: "extra_egress[0].protocol", want: `(?s)Invalid Protocol.*"ICMP" is not one a NetworkPolicy can name.*"SCTP"`},
			"protocol empty":         {set: egress([]any{"10.20.0.0/16"}, []any{53}, ""), path: "extra_egress[0].protocol", want: `(?s)Invalid Protocol.*protocol is empty.*leave it out for TCP`},
			"ingress namespace":      {set: ingress("Monitoring", 9090), path: `ingress_from_namespaces["Monitoring"]`, want: `(?s)Invalid Namespace.*key "Monitoring" is not a namespace name.*upper-case.*"monitoring"`},
			"ingress namespace dots": {set: ingress("monitoring.prod", 9090), path: `ingress_from_namespaces["monitoring.prod"]`, want: `(?s)Invalid Namespace.*contains '\.'.*"monitoring-prod"`},
			"ingress namespace ''":   {set: ingress("", 9090), path: `ingress_from_namespaces[""]`, want: `(?s)Invalid Namespace.*empty`},
			"ingress port 0":         {set: ingress("monitoring", 0), path: `ingress_from_namespaces["monitoring"].ports[0]`, want: `(?s)Invalid Port.*port 0`},
			"ingress port 65536":     {set: ingress("monitoring", 9090, 65536), path: `ingress_from_namespaces["monitoring"].ports[1]`, want: `(?s)Invalid Port.*port 65536`},
		},
	}
}
