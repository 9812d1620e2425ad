package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTopologyValidate(t *testing.T) {
	t.Parallel()
	gke := GKETopologyLevels()
	many := make([]string, 17)
	for i := range many {
		many[i] = "example.com/level-" + string(rune('a'+i))
	}
	cases := map[string]struct {
		in   Topology
		want []string // "path: summary"
	}{
		"GKE's four levels":         {in: Topology{Name: "gke-default", Levels: gke}},
		"one level":                 {in: Topology{Name: "hosts", Levels: []string{HostnameLabel}}},
		"block and host only":       {in: Topology{Name: "t", Levels: []string{GKETopologyBlock, GKETopologyHost}}},
		"a node pool level (A4X)":   {in: Topology{Name: "t", Levels: []string{GKETopologyBlock, GKETopologySubblock, "cloud.google.com/gke-nodepool", GKETopologyHost, HostnameLabel}}},
		"other labels":              {in: Topology{Name: "racks", Levels: []string{"example.com/rack", "example.com/row"}}},
		"sixteen levels":            {in: Topology{Name: "t", Levels: many[:16]}},
		"missing name":              {in: Topology{Levels: gke}, want: []string{"name: Missing Name"}},
		"upper-case name":           {in: Topology{Name: "GKE", Levels: gke}, want: []string{"name: Invalid Name"}},
		"no levels":                 {in: Topology{Name: "t"}, want: []string{"levels: No Topology Levels"}},
		"seventeen levels":          {in: Topology{Name: "t", Levels: many}, want: []string{"levels: Too Many Topology Levels"}},
		"empty level":               {in: Topology{Name: "t", Levels: []string{GKETopologyBlock, ""}}, want: []string{"levels[1]: Empty Topology Level"}},
		"level with a space":        {in: Topology{Name: "t", Levels: []string{"topology block"}}, want: []string{"levels[0]: Invalid Node Label"}},
		"level with two slashes":    {in: Topology{Name: "t", Levels: []string{"a/b/c"}}, want: []string{"levels[0]: Invalid Node Label"}},
		"level name over 63":        {in: Topology{Name: "t", Levels: []string{"example.com/" + strings.Repeat("x", 64)}}, want: []string{"levels[0]: Invalid Node Label"}},
		"duplicate level":           {in: Topology{Name: "t", Levels: []string{GKETopologyBlock, GKETopologyBlock}}, want: []string{"levels[1]: Duplicate Topology Level"}},
		"hostname not lowest":       {in: Topology{Name: "t", Levels: []string{HostnameLabel, "example.com/rack"}}, want: []string{"levels[0]: Hostname Not Lowest"}},
		"host above block":          {in: Topology{Name: "t", Levels: []string{GKETopologyHost, GKETopologyBlock}}, want: []string{"levels[0]: GKE Topology Levels Out Of Order"}},
		"subblock above block":      {in: Topology{Name: "t", Levels: []string{GKETopologySubblock, GKETopologyBlock, GKETopologyHost}}, want: []string{"levels[0]: GKE Topology Levels Out Of Order"}},
		"host above subblock":       {in: Topology{Name: "t", Levels: []string{GKETopologyBlock, GKETopologyHost, GKETopologySubblock}}, want: []string{"levels[1]: GKE Topology Levels Out Of Order"}},
		"hostname first, GKE after": {in: Topology{Name: "t", Levels: []string{HostnameLabel, GKETopologyBlock}}, want: []string{"levels[0]: Hostname Not Lowest"}},
		"several problems at once":  {in: Topology{Name: "A", Levels: []string{"", GKETopologyBlock, GKETopologyBlock}}, want: []string{"name: Invalid Name", "levels[0]: Empty Topology Level", "levels[2]: Duplicate Topology Level"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, e := range tc.in.Validate() {
				got = append(got, e.Path.String()+": "+e.Summary)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTopologyOrderMessageSaysWhatToWrite(t *testing.T) {
	t.Parallel()
	errs := Topology{Name: "t", Levels: []string{GKETopologyHost, GKETopologyBlock}}.Validate()
	if len(errs) != 1 {
		t.Fatalf("want one error, got %v", errs)
	}
	for _, s := range []string{"a host lies inside a block", `"cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock"`} {
		if !strings.Contains(errs[0].Detail, s) {
			t.Errorf("detail %q does not say %q", errs[0].Detail, s)
		}
	}
}
