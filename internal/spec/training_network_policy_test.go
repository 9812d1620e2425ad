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
