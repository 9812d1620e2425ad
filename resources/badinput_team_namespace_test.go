package resources_test

import "strings"

// Namespace names are DNS-1123 labels (Kubernetes: at most 63 lower-case
// letters, digits and '-', starting and ending with a letter or digit); the
// system's own namespaces are refused. team and owner become label values
// (at most 63 letters, digits, '-', '_', '.', starting and ending with a
// letter or digit), labels and annotations keys are qualified names.
func init() {
	badInputs["mlplatform_team_namespace"] = badInput{
		valid: map[string]any{"name": "team-vision", "team": "vision", "owner": "alice", "labels": map[string]any{"cost-center": "ml-123"},
			"annotations": map[string]any{"mlplatform.dev/description": "Vision team"}},
		cases: map[string]badCase{
			"name with upper case":      {set: map[string]any{"name": "Team-Vision"}, path: "name", want: `(?s)Invalid Namespace Name.*upper-case.*"team-vision"`},
			"name with an underscore":   {set: map[string]any{"name": "team_vision"}, path: "name", want: `(?s)Invalid Namespace Name.*contains '_'`},
			"name too long":             {set: map[string]any{"name": strings.Repeat("a", 64)}, path: "name", want: `(?s)64 characters long; the limit is 63`},
			"name ending with a dash":   {set: map[string]any{"name": "team-"}, path: "name", want: `(?s)starts or ends with '-'`},
			"name empty":                {set: map[string]any{"name": ""}, path: "name", want: `(?s)Invalid Namespace Name.*empty`},
			"default":                   {set: map[string]any{"name": "default"}, path: "name", want: `(?s)System Namespace.*"default" cannot be a team namespace.*never lets it be deleted`},
			"kube-system":               {set: map[string]any{"name": "kube-system"}, path: "name", want: `(?s)System Namespace.*restricted Pod Security there would block new system pods`},
			"a kube- prefix":            {set: map[string]any{"name": "kube-team"}, path: "name", want: `(?s)System Namespace.*reserves names beginning with kube-`},
			"a gke- prefix":             {set: map[string]any{"name": "gke-managed-cim"}, path: "name", want: `(?s)System Namespace.*GKE creates and manages`},
			"kueue-system":              {set: map[string]any{"name": "kueue-system"}, path: "name", want: `(?s)System Namespace.*would stop Kueue`},
			"team with a space":         {set: map[string]any{"team": "computer vision"}, path: "team", want: `(?s)Invalid Team.*contains a space`},
			"team empty":                {set: map[string]any{"team": ""}, path: "team", want: `(?s)Invalid Team.*empty`},
			"team too long":             {set: map[string]any{"team": strings.Repeat("v", 64)}, path: "team", want: `(?s)Invalid Team.*64 characters long`},
			"owner as an e-mail":        {set: map[string]any{"owner": "alice@example.com"}, path: "owner", want: `(?s)Invalid Owner.*not an e-mail address.*contains '@'`},
			"owner empty":               {set: map[string]any{"owner": ""}, path: "owner", want: `(?s)owner`},
			"pod security level":        {set: map[string]any{"pod_security_level": "strict"}, path: "pod_security_level", want: `(?s)Invalid Pod Security Level.*restricted, baseline, privileged`},
			"reserved label":            {set: map[string]any{"labels": map[string]any{"mlplatform.dev/team": "x"}}, path: `labels["mlplatform.dev/team"]`, want: `(?s)Reserved Label.*use the matching attribute`},
			"the marker label":          {set: map[string]any{"labels": map[string]any{"app.kubernetes.io/managed-by": "terraform"}}, path: `labels["app.kubernetes.io/managed-by"]`, want: `(?s)Reserved Label`},
			"label key with a space":    {set: map[string]any{"labels": map[string]any{"cost center": "x"}}, path: `labels["cost center"]`, want: `(?s)Invalid Label Key.*contains a space`},
			"label value with a space":  {set: map[string]any{"labels": map[string]any{"cost-center": "ml 123"}}, path: `labels["cost-center"]`, want: `(?s)Invalid Label Value.*contains a space`},
			"label key prefix":          {set: map[string]any{"labels": map[string]any{"Example.com/x": "y"}}, path: `labels["Example.com/x"]`, want: `(?s)Invalid Label Key.*prefix`},
			"annotation key with a '/'": {set: map[string]any{"annotations": map[string]any{"a/b/c": "x"}}, path: `annotations["a/b/c"]`, want: `(?s)Invalid Annotation Key.*more than one '/'`},
		},
	}
}
