package spec

import (
	"strings"
	"testing"
)

func TestTrainingNetworkPolicyValidate(t *testing.T) {
	ok := DefaultTrainingNetworkPolicy("team-vision")
	ok.ExtraEgress = []EgressRule{{CIDRs: []string{"10.20.0.0/16"}, Ports: []int32{5432}, Protocol: "TCP"}}
	ok.IngressFromNamespaces = map[string][]int32{"monitoring": {9090}}
	tests := map[string]struct {
		mutate func(*TrainingNetworkPolicy)
		want   []string // paths with errors
	}{
		"valid":             {mutate: func(*TrainingNetworkPolicy) {}},
		"bad namespace":     {mutate: func(p *TrainingNetworkPolicy) { p.Namespace = "Team_X" }, want: []string{"namespace"}},
		"no namespace":      {mutate: func(p *TrainingNetworkPolicy) { p.Namespace = "" }, want: []string{"namespace"}},
		"bad google apis":   {mutate: func(p *TrainingNetworkPolicy) { p.GoogleAPIs = "public" }, want: []string{"google_apis"}},
		"bad cidr":          {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"10.20.0.0"} }, want: []string{"extra_egress[0].cidrs[0]"}},
		"host bits":         {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"10.20.0.1/16"} }, want: []string{"extra_egress[0].cidrs[0]"}},
		"no cidrs":          {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = nil }, want: []string{"extra_egress[0].cidrs"}},
		"port 0":            {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Ports = []int32{0} }, want: []string{"extra_egress[0].ports[0]"}},
		"port 65536":        {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Ports = []int32{80, 65536} }, want: []string{"extra_egress[0].ports[1]"}},
		"protocol":          {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Protocol = "ICMP" }, want: []string{"extra_egress[0].protocol"}},
		"ingress namespace": {mutate: func(p *TrainingNetworkPolicy) { p.IngressFromNamespaces["Bad NS"] = nil }, want: []string{`ingress_from_namespaces["Bad NS"]`}},
		"ingress port":      {mutate: func(p *TrainingNetworkPolicy) { p.IngressFromNamespaces["monitoring"] = []int32{70000} }, want: []string{`ingress_from_namespaces["monitoring"].ports[0]`}},
		// Kubernetes accepts every destination, IPv6, single addresses and
		// non-canonical IPv6 spelling (IsValidCIDRForLegacyField).
		"all destinations": {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"0.0.0.0/0", "::/0"} }},
		"single addresses": {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"10.20.0.5/32", "2001:db8::5/128"} }},
		"IPv6 upper case":  {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"2001:DB8::/32"} }},
		"all ports":        {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Ports = nil }},
		"UDP and SCTP": {mutate: func(p *TrainingNetworkPolicy) {
			p.ExtraEgress = append(p.ExtraEgress, EgressRule{CIDRs: []string{"10.0.0.0/8"}, Protocol: "UDP"}, EgressRule{CIDRs: []string{"10.0.0.0/8"}, Protocol: "SCTP"})
		}},
		"port bounds":           {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Ports = []int32{1, 65535} }},
		"own namespace ingress": {mutate: func(p *TrainingNetworkPolicy) { p.IngressFromNamespaces["team-vision"] = []int32{8080} }},
		"default namespace":     {mutate: func(p *TrainingNetworkPolicy) { p.Namespace = "default" }},
		"no google apis":        {mutate: func(p *TrainingNetworkPolicy) { p.GoogleAPIs = "none" }},
		"kube-system":           {mutate: func(p *TrainingNetworkPolicy) { p.Namespace = "kube-system" }, want: []string{"namespace"}},
		"kube- prefix":          {mutate: func(p *TrainingNetworkPolicy) { p.Namespace = "kube-team" }, want: []string{"namespace"}},
		"empty protocol":        {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Protocol = "" }, want: []string{"extra_egress[0].protocol"}},
		"lower-case protocol":   {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].Protocol = "tcp" }, want: []string{"extra_egress[0].protocol"}},
		"leading zeros":         {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"10.020.0.0/16"} }, want: []string{"extra_egress[0].cidrs[0]"}},
		"IPv4-mapped":           {mutate: func(p *TrainingNetworkPolicy) { p.ExtraEgress[0].CIDRs = []string{"::ffff:10.0.0.0/104"} }, want: []string{"extra_egress[0].cidrs[0]"}},
		"each mistake once": {mutate: func(p *TrainingNetworkPolicy) {
			p.ExtraEgress[0] = EgressRule{CIDRs: []string{"10.20.0.0", "ok", "10.0.0.0/8"}, Ports: []int32{0, 80}, Protocol: "ICMP"}
		}, want: []string{"extra_egress[0].cidrs[0]", "extra_egress[0].cidrs[1]", "extra_egress[0].ports[0]", "extra_egress[0].protocol"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := ok
			p.ExtraEgress = []EgressRule{{CIDRs: []string{"10.20.0.0/16"}, Ports: []int32{5432}, Protocol: "TCP"}}
			p.IngressFromNamespaces = map[string][]int32{"monitoring": {9090}}
			tc.mutate(&p)
			var got []string
			for _, e := range p.Validate() {
				got = append(got, e.Path.String())
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("errors at %v, want %v (%v)", got, tc.want, p.Validate())
			}
		})
	}
}

// The advice of a CIDR problem is the value to write.
func TestCIDRProblemSaysWhatToWrite(t *testing.T) {
	for in, want := range map[string]string{
		"10.20.0.5":                  `"10.20.0.5/32"`,
		"10.20.0.5/16":               `"10.20.0.0/16"`,
		"2001:db8::1/32":             `"2001:db8::/32"`,
		"010.20.0.0/16":              `"10.20.0.0/16"`,
		"::ffff:10.20.0.0/112":       `"10.20.0.0/16"`,
		"10.20.0.0/33":               "0 to 32",
		"2001:db8::/200":             "0 to 128",
		"example.com/24":             "host names",
		"10.20.0.0/16, 10.30.0.0/16": `["10.20.0.0/16", "10.30.0.0/16"]`,
		"10.20.0.0/16x":              `"16x" is not a number`,
	} {
		if got := cidrProblem(in); !strings.Contains(got, want) {
			t.Errorf("cidrProblem(%q) = %q, want it to say %s", in, got, want)
		}
	}
}
