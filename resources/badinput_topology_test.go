package resources_test

import "strings"

// A Topology, from Kueue's apis/kueue/v1beta2/topology_types.go (1 to 16
// levels, unique, kubernetes.io/hostname only as the lowest, each a node
// label key) and GKE's order of its own levels (block, subblock, host).
func init() {
	const (
		block    = "cloud.google.com/gce-topology-block"
		subblock = "cloud.google.com/gce-topology-subblock"
		host     = "cloud.google.com/gce-topology-host"
		hostname = "kubernetes.io/hostname"
	)
	seventeen := make([]any, 17)
	for i := range seventeen {
		seventeen[i] = "example.com/level-" + string(rune('a'+i))
	}
	badInputs["mlplatform_topology"] = badInput{
		valid: map[string]any{"name": "gke-default", "levels": []any{block, subblock, host, hostname}},
		cases: map[string]badCase{
			"name with upper case": {set: map[string]any{"name": "GKE-Default"}, path: "name", want: `(?s)Invalid Name.*"GKE-Default" is not a valid Topology name.*"gke-default"`},
			"name empty":           {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*Topology needs a name.*"gke-default"`},
			"name too long":        {set: map[string]any{"name": strings.Repeat("t", 254)}, path: "name", want: `(?s)Invalid Name.*254 characters long`},
			"no levels":            {set: map[string]any{"levels": []any{}}, path: "levels", want: `(?s)No Topology Levels.*at least one level.*cloud.google.com/gce-topology-block`},
			"seventeen levels":     {set: map[string]any{"levels": seventeen}, path: "levels", want: `(?s)Too Many Topology Levels.*17 entries; Kueue accepts at most 16`},
			"empty level":          {set: map[string]any{"levels": []any{block, ""}}, path: "levels[1]", want: `(?s)Empty Topology Level.*write a node label key`},
			"level with a space":   {set: map[string]any{"levels": []any{"topology block"}}, path: "levels[0]", want: `(?s)Invalid Node Label.*"topology block" is not a node label key`},
			"level with two slashes": {set: map[string]any{"levels": []any{"a/b/c"}}, path: "levels[0]",
				want: `(?s)Invalid Node Label.*more than one '/'`},
			"duplicate level": {set: map[string]any{"levels": []any{block, host, block}}, path: "levels[2]", want: `(?s)Duplicate Topology Level.*already levels\[0\]`},
			"hostname above a rack": {set: map[string]any{"levels": []any{hostname, "example.com/rack"}}, path: "levels[0]",
				want: `(?s)Hostname Not Lowest.*can only be the lowest level.*move it to the end`},
			"host above block": {set: map[string]any{"levels": []any{host, block}}, path: "levels[0]",
				want: `(?s)GKE Topology Levels Out Of Order.*"cloud.google.com/gce-topology-host" is listed above "cloud.google.com/gce-topology-block".*a host lies inside a block`},
			"subblock above block": {set: map[string]any{"levels": []any{subblock, block}}, path: "levels[0]",
				want: `(?s)GKE Topology Levels Out Of Order.*a subblock lies inside a block`},
		},
	}
}
