package spec

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResourceFlavorValidate(t *testing.T) {
	t.Parallel()
	secs := int64(30)
	nine := map[string]string{}
	for i := range 9 {
		nine[fmt.Sprintf("k%d", i)] = "v"
	}
	ok := ResourceFlavor{Name: "h100-spot",
		NodeLabels:  map[string]string{"cloud.google.com/gke-nodepool": "h100-spot"},
		NodeTaints:  []Taint{{Key: "cloud.google.com/gke-spot", Value: "true", Effect: "NoSchedule"}},
		Tolerations: []Toleration{{Key: "nvidia.com/gpu", Operator: "Exists", Effect: "NoSchedule"}, {Operator: "Exists"}, {Key: "k", Value: "v"}, {Key: "k", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: &secs}},
	}
	cases := map[string]struct {
		in   ResourceFlavor
		want []string
	}{
		"valid":                  {in: ok},
		"too many labels":        {in: ResourceFlavor{Name: "f", NodeLabels: nine}, want: []string{"node_labels: Too Many Entries"}},
		"bad label key":          {in: ResourceFlavor{Name: "f", NodeLabels: map[string]string{"a b": "x"}}, want: []string{`node_labels["a b"]: Invalid Label Key`}},
		"taint effect":           {in: ResourceFlavor{Name: "f", NodeTaints: []Taint{{Key: "k", Effect: "Never"}}}, want: []string{"node_taints[0].effect: Invalid Taint Effect"}},
		"taint needs a key":      {in: ResourceFlavor{Name: "f", NodeTaints: []Taint{{Effect: "NoSchedule"}}}, want: []string{"node_taints[0].key: Missing Taint Key"}},
		"exists with value":      {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Key: "k", Operator: "Exists", Value: "v"}}}, want: []string{"tolerations[0].value: Toleration Value With Exists"}},
		"no key needs Exists":    {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Value: "v"}}}, want: []string{"tolerations[0].operator: Toleration Without Key Must Use Exists"}},
		"bad operator":           {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Key: "k", Operator: "In"}}}, want: []string{"tolerations[0].operator: Invalid Toleration Operator"}},
		"seconds need NoExecute": {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Key: "k", Operator: "Exists", TolerationSeconds: &secs}}}, want: []string{"tolerations[0].toleration_seconds: Toleration Seconds Need NoExecute"}},
		"topology needs labels":  {in: ResourceFlavor{Name: "f", TopologyName: "gke"}, want: []string{"topology_name: Topology Needs Node Labels"}},
		"topology with labels":   {in: ResourceFlavor{Name: "f", TopologyName: "gke", NodeLabels: map[string]string{"a": "b"}}},
		"duplicate taint": {in: ResourceFlavor{Name: "f", NodeTaints: []Taint{{Key: "k", Effect: "NoSchedule"}, {Key: "k", Value: "v", Effect: "NoSchedule"}, {Key: "k", Effect: "NoExecute"}}},
			want: []string{"node_taints[1]: Duplicate Taint"}},
		"bad taint key is not also a duplicate": {in: ResourceFlavor{Name: "f", NodeTaints: []Taint{{Key: "a b", Effect: "NoSchedule"}, {Key: "a b", Effect: "NoSchedule"}}},
			want: []string{"node_taints[0].key: Invalid Taint Key", "node_taints[1].key: Invalid Taint Key"}},
		"taint effect missing": {in: ResourceFlavor{Name: "f", NodeTaints: []Taint{{Key: "k"}}}, want: []string{"node_taints[0].effect: Missing Taint Effect"}},
		"bad toleration value": {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Key: "k", Value: "a b"}}}, want: []string{"tolerations[0].value: Invalid Toleration Value"}},
		"seconds with a bad effect is one error": {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Key: "k", Operator: "Exists", Effect: "NoExecut", TolerationSeconds: &secs}}},
			want: []string{"tolerations[0].effect: Invalid Toleration Effect"}},
		"bad topology name":        {in: ResourceFlavor{Name: "f", TopologyName: "GKE", NodeLabels: map[string]string{"a": "b"}}, want: []string{"topology_name: Invalid Name"}},
		"second toleration is bad": {in: ResourceFlavor{Name: "f", Tolerations: []Toleration{{Operator: "Exists"}, {Key: "k", Effect: "Sometimes"}}}, want: []string{"tolerations[1].effect: Invalid Toleration Effect"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range tc.in.Validate() {
				got = append(got, e.Path.String()+": "+e.Summary)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
