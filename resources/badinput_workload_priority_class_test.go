package resources_test

import "strings"

// Workload priority class, from Kueue's v1beta2 API (workloadpriorityclass_types.go
// and its CRD) and Kubernetes:
//   - name: a custom resource's name, a DNS-1123 subdomain; and at most 63
//     characters, since jobs name the class in the label
//     kueue.x-k8s.io/priority-class and a label value is at most 63.
//   - value: an int32.
//   - description: at most 2048 characters (not bytes); "" is left out.
//
// Nothing but the name is immutable (a change of name replaces the class).
func init() {
	badInputs["mlplatform_workload_priority_class"] = badInput{
		valid: map[string]any{"name": "high", "value": 1000, "description": "For production training runs"},
		cases: map[string]badCase{
			"name with upper case":      {set: map[string]any{"name": "High"}, path: "name", want: `(?s)Invalid Name.*"High" is not a valid WorkloadPriorityClass name.*upper-case.*e\.g\. "high"`},
			"name with an underscore":   {set: map[string]any{"name": "high_priority"}, path: "name", want: `(?s)Invalid Name.*contains '_'.*e\.g\. "high-priority"`},
			"name with a space":         {set: map[string]any{"name": "high priority"}, path: "name", want: `(?s)Invalid Name.*contains a space.*"high-priority"`},
			"name ending with a dash":   {set: map[string]any{"name": "high-"}, path: "name", want: `(?s)Invalid Name.*begin and end with a letter or digit.*"high"`},
			"name with an empty part":   {set: map[string]any{"name": "team..high"}, path: "name", want: `(?s)Invalid Name.*each part between dots.*e\.g\. "team\.high"`},
			"name empty":                {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*kueue\.x-k8s\.io/priority-class`},
			"name too long":             {set: map[string]any{"name": strings.Repeat("h", 254)}, path: "name", want: `(?s)Invalid Name.*254 characters long; the limit is 253`},
			"name too long for a label": {set: map[string]any{"name": strings.Repeat("h", 64)}, path: "name", want: `(?s)Name Too Long For Jobs.*64 characters long.*label kueue\.x-k8s\.io/priority-class.*at most 63`},
			"value above int32":         {set: map[string]any{"value": 2147483648}, path: "value", want: `(?s)Priority Out Of Range.*2147483648.*between -2147483648 and 2147483647`},
			"value below int32":         {set: map[string]any{"value": -2147483649}, path: "value", want: `(?s)Priority Out Of Range.*-2147483649`},
			"description too long":      {set: map[string]any{"description": strings.Repeat("d", 2049)}, path: "description", want: `(?s)Description Too Long.*2049 characters; Kueue accepts at most 2048: shorten it by 1 character\.`},
			"description too long, é":   {set: map[string]any{"description": strings.Repeat("é", 2050)}, path: "description", want: `(?s)Description Too Long.*2050 characters.*by 2 characters`},
			"description empty":         {set: map[string]any{"description": ""}, path: "description", want: `(?s)Empty Description.*(?i:leave) description out for none.*"For production training runs"`},
		},
	}
}
