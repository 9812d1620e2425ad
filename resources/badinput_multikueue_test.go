package resources_test

import (
	"fmt"
	"strings"
)

// MultiKueue: the check (an AdmissionCheck naming its MultiKueueConfig by a
// DNS label; 1 to 20 clusters, each once, in order: Kueue v0.19
// multikueue_types.go) and a
// worker's access (a name that makes a valid Secret name; one worker
// source; token validity the API server accepts; a rotation window inside
// it).
func init() {
	many := make([]any, 21)
	for i := range many {
		many[i] = fmt.Sprintf("w%d", i)
	}
	badInputs["mlplatform_multikueue_check"] = badInput{
		valid: map[string]any{"name": "multikueue", "clusters": []any{"europe", "us"}, "active_timeout": "90s"},
		cases: map[string]badCase{
			"name with a dot":  {set: map[string]any{"name": "multi.kueue"}, path: "name", want: `(?s)Invalid Name.*"multi.kueue" cannot name a MultiKueue check.*\(no dots\).*"multi-kueue"`},
			"name empty":       {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*e\.g\. "multikueue"`},
			"no clusters":      {set: map[string]any{"clusters": []any{}}, path: "clusters", want: `(?s)No Worker Clusters.*at least one worker.*mlplatform_multikueue_cluster`},
			"21 clusters":      {set: map[string]any{"clusters": many}, path: "clusters", want: `(?s)Too Many Worker Clusters.*21 clusters; Kueue accepts at most 20.*Remove 1`},
			"cluster name bad": {set: map[string]any{"clusters": []any{"europe", "Europe_1"}}, path: "clusters[1]", want: `(?s)Invalid Cluster Name.*"Europe_1" is not a MultiKueueCluster name`},
			"cluster listed twice": {set: map[string]any{"clusters": []any{"europe", "us", "europe"}}, path: "clusters[2]",
				want: `(?s)Duplicate Worker Cluster.*"europe" is listed twice, as clusters\[0\] and clusters\[2\].*Remove clusters\[2\]`},
			"timeout not a duration": {set: map[string]any{"active_timeout": "soon"}, path: "active_timeout",
				want: `(?s)Invalid Duration.*"soon" is not a positive duration`},
		},
	}
	gke := map[string]any{"gke_cluster": map[string]any{"location": "europe-west4", "name": "training-eu"}}
	badInputs["mlplatform_multikueue_cluster"] = badInput{
		valid: map[string]any{"name": "europe", "worker": gke, "token_validity": "48h", "rotate_before": "12h"},
		cases: map[string]badCase{
			"name with upper case": {set: map[string]any{"name": "Europe"}, path: "name", want: `(?s)Invalid Name.*"Europe" cannot name a MultiKueue worker.*"europe"`},
			"name too long for its Secret": {set: map[string]any{"name": strings.Repeat("e", 53)}, path: "name",
				want: `(?s)Name Too Long.*53 characters; the kubeconfig Secret .* would exceed 63.*at most 52`},
			"no worker source": {set: map[string]any{"worker": map[string]any{}}, path: "worker", want: `(?s)No Worker Cluster.*gke_cluster = \{ location = "europe-west4", name = "training-eu" \}.*kubeconfig`},
			"two worker sources": {set: map[string]any{"worker": map[string]any{"gke_cluster": gke["gke_cluster"], "kubeconfig": "/k"}}, path: "worker",
				want: `(?s)Two Worker Clusters.*both gke_cluster and kubeconfig; keep one`},
			"context without kubeconfig": {set: map[string]any{"worker": map[string]any{"kube_context": "eu"}}, path: "worker.kube_context",
				want: `(?s)Context Without Kubeconfig.*kube_context needs kubeconfig`},
			"GKE location empty": {set: map[string]any{"worker": map[string]any{"gke_cluster": map[string]any{"location": "", "name": "training-eu"}}},
				path: "worker.gke_cluster.location", want: `(?s)Missing GKE Cluster Location.*e\.g\. "europe-west4"`},
			"token validity below the API server's floor": {set: map[string]any{"token_validity": "5m", "rotate_before": "1m"}, path: "token_validity",
				want: `(?s)Token Validity Too Short.*token_validity is 5m; the Kubernetes API server issues tokens for at least 10m\. Default 720h`},
			"rotation window as long as the token": {set: map[string]any{"rotate_before": "48h"}, path: "rotate_before",
				want: `(?s)Rotation Window Out Of Range.*rotate_before is 48h.*shorter than token_validity \(48h\).*every plan would rotate`},
			"rotation window with the default validity": {set: map[string]any{"token_validity": nil, "rotate_before": "800h"}, path: "rotate_before",
				want: `(?s)Rotation Window Out Of Range.*rotate_before is 800h.*token_validity \(720h\)`},
			"service account name bad": {set: map[string]any{"worker_service_account": "Manager_SA"}, path: "worker_service_account",
				want: `(?s)Invalid Service Account Name.*"Manager_SA" is not a service account name`},
			"validity not a duration": {set: map[string]any{"token_validity": "a month"}, path: "token_validity", want: `(?s)Invalid Duration.*"a month"`},
			"unknown framework": {set: map[string]any{"frameworks": []any{"batch/job", "jobset.x-k8s.io/JobSet"}}, path: "frameworks[1]",
				want: `(?s)Unknown Framework.*"jobset.x-k8s.io/JobSet" is not one of Kueue's integrations.*did you mean "jobset.x-k8s.io/jobset"`},
			"framework twice": {set: map[string]any{"frameworks": []any{"batch/job", "batch/job"}}, path: "frameworks[1]",
				want: `(?s)Duplicate Framework.*batch/job is listed twice`},
		},
	}
}
