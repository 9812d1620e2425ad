package netpol

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func extraConfig() spec.TrainingNetworkPolicy {
	s := spec.DefaultTrainingNetworkPolicy("team-vision")
	s.DNS, s.GoogleAPIs, s.PublicHTTPSEgress = false, "both", true
	s.ExtraEgress = []spec.EgressRule{
		{CIDRs: []string{"10.20.0.0/16", "10.30.0.0/16"}, Ports: []int32{5432}, Protocol: "TCP"},
		{CIDRs: []string{"10.40.0.0/24"}, Protocol: "UDP"},
	}
	s.IngressFromNamespaces = map[string][]int32{"monitoring": {9090, 9091}, "ingress": nil}
	return s
}

func TestRenderNames(t *testing.T) {
	tests := map[string]struct {
		spec spec.TrainingNetworkPolicy
		want []string
	}{
		"defaults":       {spec.DefaultTrainingNetworkPolicy("ns"), []string{DefaultDeny, AllowSameNamespace, AllowDNS, AllowMetadata, AllowGoogleAPIs}},
		"everything off": {spec.TrainingNetworkPolicy{Namespace: "ns", GoogleAPIs: "none"}, []string{DefaultDeny}},
		"extras":         {extraConfig(), []string{DefaultDeny, AllowSameNamespace, AllowMetadata, AllowGoogleAPIs, AllowPublicHTTPS, AllowExtraEgress, AllowIngressFromNamsp}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, o := range Render(tc.spec) {
				got = append(got, o.Name)
				if o.Namespace != tc.spec.Namespace || o.Labels[ManagedByLabel] != ManagedBy {
					t.Errorf("%s: namespace %q labels %v", o.Name, o.Namespace, o.Labels)
				}
				if len(o.Spec.PolicyTypes) == 0 {
					t.Errorf("%s: no policy types", o.Name)
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("names (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadRoundTrip(t *testing.T) {
	tests := map[string]spec.TrainingNetworkPolicy{
		"defaults": spec.DefaultTrainingNetworkPolicy("ns"),
		"restricted": func() spec.TrainingNetworkPolicy {
			s := spec.DefaultTrainingNetworkPolicy("ns")
			s.GoogleAPIs = "restricted"
			return s
		}(),
		"all off": {Namespace: "ns", GoogleAPIs: "none"},
		"extras":  extraConfig(),
	}
	for name, s := range tests {
		t.Run(name, func(t *testing.T) {
			objs := Render(s)
			got := Read(s.Namespace, objs)
			want := s
			want.Rendered = Hashes(objs)
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("Read(Render(s)) (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadDrift(t *testing.T) {
	objs := Render(spec.DefaultTrainingNetworkPolicy("ns"))
	var kept = objs[:0:0]
	for _, o := range objs {
		if o.Name != AllowDNS {
			kept = append(kept, o)
		}
	}
	if got := Read("ns", kept); got.DNS {
		t.Error("a missing DNS policy reads as dns = true")
	}
	edited := Render(spec.DefaultTrainingNetworkPolicy("ns"))
	before := Hashes(edited)[AllowMetadata]
	edited[3].Spec.Egress[0].Ports = edited[3].Spec.Egress[0].Ports[:1]
	if edited[3].Name != AllowMetadata || Read("ns", edited).Rendered[AllowMetadata] == before {
		t.Error("an edited metadata policy keeps its hash")
	}
}
