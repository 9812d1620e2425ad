package resources_test

import "strings"

// A LocalQueue, from Kueue v0.17's apis/kueue/v1beta2/localqueue_types.go
// (clusterQueue a ClusterQueueReference: a DNS subdomain of at most 253
// characters; stopPolicy Enum=None;Hold;HoldAndDrain), Kubernetes (the
// namespace a DNS label, the name a DNS subdomain) and Kueue's job
// integration (jobs name the queue in the label kueue.x-k8s.io/queue-name,
// whose value is at most 63 characters).
func init() {
	badInputs["mlplatform_local_queue"] = badInput{
		valid: map[string]any{"namespace": "team-vision", "name": "gpu", "cluster_queue": "team-vision", "stop_policy": "Hold",
			"wait_for_active": false, "active_timeout": "90s"},
		cases: map[string]badCase{
			"namespace with a dot":      {set: map[string]any{"namespace": "team.vision"}, path: "namespace", want: `(?s)Invalid Namespace.*"team.vision" is not a valid namespace name.*contains '.'.*\(no dots\).*"team-vision"`},
			"namespace with upper case": {set: map[string]any{"namespace": "Team-Vision"}, path: "namespace", want: `(?s)Invalid Namespace.*upper-case.*"team-vision"`},
			"namespace too long":        {set: map[string]any{"namespace": strings.Repeat("n", 64)}, path: "namespace", want: `(?s)Invalid Namespace.*64 characters long; the limit is 63`},
			"namespace ending with '-'": {set: map[string]any{"namespace": "team-"}, path: "namespace", want: `(?s)Invalid Namespace.*starts or ends with '-'`},
			"namespace empty":           {set: map[string]any{"namespace": ""}, path: "namespace", want: `(?s)Missing Namespace.*mlplatform_team_namespace`},

			"name with upper case":    {set: map[string]any{"name": "GPU"}, path: "name", want: `(?s)Invalid Name.*"GPU" is not a valid LocalQueue name.*upper-case.*"gpu"`},
			"name with an underscore": {set: map[string]any{"name": "gpu_queue"}, path: "name", want: `(?s)Invalid Name.*contains '_'.*"gpu-queue"`},
			"name too long for a label": {set: map[string]any{"name": strings.Repeat("q", 64)}, path: "name",
				want: `(?s)LocalQueue Name Too Long.*64 characters long; jobs name their LocalQueue in the label kueue.x-k8s.io/queue-name.*at most 63`},
			"name too long for an object": {set: map[string]any{"name": strings.Repeat("q", 254)}, path: "name", want: `(?s)Invalid Name.*254 characters long; the limit is 253`},
			"name empty":                  {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*LocalQueue needs a name`},

			"cluster queue with upper case": {set: map[string]any{"cluster_queue": "Team-Vision"}, path: "cluster_queue",
				want: `(?s)Invalid Name.*"Team-Vision" is not a valid ClusterQueue name.*"team-vision"`},
			"cluster queue with a slash": {set: map[string]any{"cluster_queue": "team-vision/gpu"}, path: "cluster_queue", want: `(?s)Invalid Name.*contains '/'`},
			"cluster queue too long":     {set: map[string]any{"cluster_queue": strings.Repeat("c", 254)}, path: "cluster_queue", want: `(?s)Invalid Name.*254 characters long`},
			"cluster queue empty": {set: map[string]any{"cluster_queue": ""}, path: "cluster_queue",
				want: `(?s)Missing ClusterQueue Name.*cluster_queue is empty; set it to the name of the ClusterQueue.*mlplatform_cluster_queue`},

			"stop policy unknown":    {set: map[string]any{"stop_policy": "Pause"}, path: "stop_policy", want: `(?s)Invalid Stop Policy.*"Pause" is not one of None \(admit\), Hold \(admit nothing new\) or HoldAndDrain.*leave it out for None`},
			"stop policy wrong case": {set: map[string]any{"stop_policy": "holdAndDrain"}, path: "stop_policy", want: `(?s)Invalid Stop Policy.*did you mean "HoldAndDrain"\?`},
			"stop policy empty":      {set: map[string]any{"stop_policy": ""}, path: "stop_policy", want: `(?s)Empty Stop Policy.*leave stop_policy out for None`},

			"active timeout in words": {set: map[string]any{"active_timeout": "2 minutes"}, path: "active_timeout", want: `(?s)Invalid Duration.*"2 minutes" is not a positive duration`},
			"active timeout negative": {set: map[string]any{"active_timeout": "-1m"}, path: "active_timeout", want: `(?s)Invalid Duration`},
			"active timeout empty":    {set: map[string]any{"active_timeout": ""}, path: "active_timeout", want: `(?s)Invalid Duration`},
			"active timeout no unit":  {set: map[string]any{"active_timeout": "120"}, path: "active_timeout", want: `(?s)Invalid Duration.*90s, 5m or 1h`},
		},
	}
}
