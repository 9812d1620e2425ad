package resources_test

import (
	"fmt"
	"strings"
)

// A provisioning admission check: an AdmissionCheck and its
// ProvisioningRequestConfig, from Kueue v0.17's
// apis/kueue/v1beta2/admissioncheck_types.go (the check names its config in
// parameters.name: a DNS label of at most 63 characters) and
// provisioningrequestconfig_types.go (provisioningClassName a DNS subdomain
// of 1 to 253 characters; at most 100 managed resources; at most 100
// parameters, values at most 255 characters; the retry settings int32).
func init() {
	manyResources := make([]any, 101)
	for i := range manyResources {
		manyResources[i] = fmt.Sprintf("example.com/r%d", i)
	}
	manyParams := map[string]any{}
	for i := range 101 {
		manyParams[fmt.Sprintf("p%d", i)] = "v"
	}
	retry := func(attr string, v int) map[string]any {
		return map[string]any{"retry_strategy": map[string]any{attr: v}}
	}
	badInputs["mlplatform_provisioning_admission_check"] = badInput{
		valid: map[string]any{
			"name": "dws", "provisioning_class": "queued-provisioning.gke.io", "managed_resources": []any{"nvidia.com/gpu", "example.com/tpu"},
			"parameters":                   map[string]any{"ValidUntilSeconds": "3600", "long": strings.Repeat("é", 255)},
			"retry_strategy":               map[string]any{"backoff_limit_count": 0, "backoff_base_seconds": 30, "backoff_max_seconds": 2147483647},
			"pod_set_node_selector_update": true,
		},
		cases: map[string]badCase{
			// parameters.name of the AdmissionCheck: a DNS label.
			"name with a dot":        {set: map[string]any{"name": "dws.gke"}, path: "name", want: `(?s)Invalid Name.*"dws.gke" cannot name a provisioning admission check.*\(no dots\).*"dws-gke"`},
			"name with upper case":   {set: map[string]any{"name": "DWS"}, path: "name", want: `(?s)Invalid Name.*upper-case.*"dws"`},
			"name too long":          {set: map[string]any{"name": strings.Repeat("a", 64)}, path: "name", want: `(?s)Invalid Name.*64 characters long; the limit is 63`},
			"name starting with '-'": {set: map[string]any{"name": "-dws"}, path: "name", want: `(?s)Invalid Name.*starts or ends with '-'.*"dws"`},
			"name empty":             {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*e\.g\. "dws"`},

			// provisioningClassName: MinLength=1, MaxLength=253, DNS subdomain.
			"class with upper case and '_'": {set: map[string]any{"provisioning_class": "Queued_Provisioning"}, path: "provisioning_class",
				want: `(?s)Invalid Provisioning Class.*"Queued_Provisioning".*upper-case.*queued-provisioning.gke.io`},
			"class with a slash": {set: map[string]any{"provisioning_class": "gke.io/queued"}, path: "provisioning_class", want: `(?s)Invalid Provisioning Class.*contains '/'`},
			"class too long":     {set: map[string]any{"provisioning_class": strings.Repeat("c", 254)}, path: "provisioning_class", want: `(?s)Invalid Provisioning Class.*254 characters long`},
			"class empty": {set: map[string]any{"provisioning_class": ""}, path: "provisioning_class",
				want: `(?s)Missing Provisioning Class.*leave it out for "queued-provisioning.gke.io"`},

			// managedResources: MaxItems=100, resource names.
			"managed resource with a '!'": {set: map[string]any{"managed_resources": []any{"gpu!"}}, path: "managed_resources",
				want: `(?s)Invalid Resource Name.*"gpu!".*contains '!'.*nvidia.com/gpu`},
			"managed resource with an upper-case prefix": {set: map[string]any{"managed_resources": []any{"NVIDIA.com/gpu"}}, path: "managed_resources",
				want: `(?s)Invalid Resource Name.*prefix "NVIDIA.com"`},
			"managed resource empty": {set: map[string]any{"managed_resources": []any{""}}, path: "managed_resources", want: `(?s)Invalid Resource Name.*name part is empty`},
			"101 managed resources": {set: map[string]any{"managed_resources": manyResources}, path: "managed_resources",
				want: `(?s)Too Many Entries.*101 entries; Kueue accepts at most 100 managed resources`},

			// parameters: MaxProperties=100, values MaxLength=255.
			"101 parameters": {set: map[string]any{"parameters": manyParams}, path: "parameters", want: `(?s)Too Many Entries.*101 entries; Kueue accepts at most 100 parameters`},
			"parameter of 256 characters": {set: map[string]any{"parameters": map[string]any{"k": strings.Repeat("x", 256)}}, path: `parameters["k"]`,
				want: `(?s)Parameter Too Long.*"k" has 256 characters; Kueue accepts at most 255`},
			"parameter of 256 accented characters": {set: map[string]any{"parameters": map[string]any{"k": strings.Repeat("é", 256)}}, path: `parameters["k"]`,
				want: `(?s)Parameter Too Long.*256 characters`},
			"parameter without a name": {set: map[string]any{"parameters": map[string]any{"": "3600"}}, path: "parameters",
				want: `(?s)Empty Parameter Name.*ValidUntilSeconds`},

			// retryStrategy: int32 counts and seconds, not negative.
			"negative retry count": {set: retry("backoff_limit_count", -1), path: "retry_strategy.backoff_limit_count",
				want: `(?s)Retry Setting Out Of Range.*backoff_limit_count is -1; it must be between 0 and 2147483647 \(use 0 to switch retries off\)`},
			"retry count beyond 32 bits": {set: retry("backoff_limit_count", 2147483648), path: "retry_strategy.backoff_limit_count",
				want: `(?s)Retry Setting Out Of Range.*2147483648`},
			"negative backoff base": {set: retry("backoff_base_seconds", -60), path: "retry_strategy.backoff_base_seconds",
				want: `(?s)Retry Setting Out Of Range.*Kueue's default is 60`},
			"backoff max beyond 32 bits": {set: retry("backoff_max_seconds", 4294967296), path: "retry_strategy.backoff_max_seconds",
				want: `(?s)Retry Setting Out Of Range.*Kueue's default is 1800`},
		},
	}
}
