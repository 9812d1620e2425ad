package resources_test

import (
	"fmt"
	"strings"
)

// A ClusterQueue, from Kueue v0.17's apis/kueue/v1beta2/clusterqueue_types.go
// (names and references are DNS subdomains of at most 253 characters; at
// most 16 resource groups of 1 to 64 covered resources and 1 to 64 flavors;
// the enumerations; the CEL rules on flavor resources, borrowing without a
// cohort, borrowWithinCohort and flavor fungibility) and
// pkg/webhooks/clusterqueue_webhook.go (resource names are label keys; a
// resource and a flavor in one group only; each flavor's resources follow
// coveredResources; quantities not negative; limits need a cohort;
// lendingLimit ≤ nominalQuota; ≤ 256 flavors and covered resources per
// queue; ≤ 512 quotas per group; the namespace selector is a valid label
// selector; fair sharing weight 0 or more than 1n).

// rgQuota is one quota: name, nominal quota, then optionally borrowing and
// lending limits ("" for unset).
func rgQuota(name, nominal string, limits ...string) map[string]any {
	q := map[string]any{"name": name, "nominal_quota": nominal}
	if len(limits) > 0 && limits[0] != "" {
		q["borrowing_limit"] = limits[0]
	}
	if len(limits) > 1 && limits[1] != "" {
		q["lending_limit"] = limits[1]
	}
	return q
}

func rgFlavor(name string, quotas ...map[string]any) map[string]any {
	rs := make([]any, len(quotas))
	for i, q := range quotas {
		rs[i] = q
	}
	return map[string]any{"name": name, "resources": rs}
}

func rgGroup(covered []string, flavors ...map[string]any) map[string]any {
	cs := make([]any, len(covered))
	for i, c := range covered {
		cs[i] = c
	}
	fs := make([]any, len(flavors))
	for i, f := range flavors {
		fs[i] = f
	}
	return map[string]any{"covered_resources": cs, "flavors": fs}
}

func rgGroups(groups ...map[string]any) []any {
	out := make([]any, len(groups))
	for i, g := range groups {
		out[i] = g
	}
	return out
}

// rgGPU is a valid group: cpu, memory and GPUs on two flavors, with limits
// on the GPUs (valid only in a cohort, or for a cohort with a parent).
func rgGPU() map[string]any {
	return rgGroup([]string{"cpu", "memory", "nvidia.com/gpu"},
		rgFlavor("h100-spot", rgQuota("cpu", "96"), rgQuota("memory", "1Ti"), rgQuota("nvidia.com/gpu", "16", "8", "8")),
		rgFlavor("h100-flex", rgQuota("cpu", "48"), rgQuota("memory", "512Gi"), rgQuota("nvidia.com/gpu", "8")))
}

// rgOneFlavor is a group of the given resources on one flavor, 1 of each.
func rgOneFlavor(flavor string, covered ...string) map[string]any {
	qs := make([]map[string]any, len(covered))
	for i, c := range covered {
		qs[i] = rgQuota(c, "1")
	}
	return rgGroup(covered, rgFlavor(flavor, qs...))
}

// rgWide is n groups of one resource each on one flavor each.
func rgWide(n int) []any {
	out := make([]any, n)
	for i := range n {
		out[i] = rgOneFlavor(fmt.Sprintf("f%d", i), fmt.Sprintf("example.com/r%d", i))
	}
	return out
}

// rgManyFlavors is a group of one resource on n flavors named prefix0...
func rgManyFlavors(prefix, resource string, n int) map[string]any {
	fs := make([]map[string]any, n)
	for i := range n {
		fs[i] = rgFlavor(fmt.Sprintf("%s%d", prefix, i), rgQuota(resource, "1"))
	}
	return rgGroup([]string{resource}, fs...)
}

// rgResources is example.com/<prefix>0..n-1.
func rgResources(prefix string, n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = fmt.Sprintf("example.com/%s%d", prefix, i)
	}
	return out
}

// rgWithQuota is one group covering nvidia.com/gpu on flavor f with quota q.
func rgWithQuota(q map[string]any) []any {
	return rgGroups(rgGroup([]string{"nvidia.com/gpu"}, rgFlavor("f", q)))
}

// rgCases are the resource group mistakes a ClusterQueue and a Cohort share
// (Kueue's validateResourceGroups and the CRD's markers, for both kinds).
func rgCases() map[string]badCase {
	const q0 = "resource_groups[0].flavors[0].resources"
	covered := []string{"cpu", "memory", "nvidia.com/gpu"}
	return map[string]badCase{
		"17 resource groups": {set: map[string]any{"resource_groups": rgWide(17)}, path: "resource_groups",
			want: `(?s)Too Many Resource Groups.*17 resource groups; Kueue accepts at most 16`},
		"no covered resources": {set: map[string]any{"resource_groups": rgGroups(rgGroup(nil, rgFlavor("f", rgQuota("cpu", "1"))))},
			path: "resource_groups[0].covered_resources", want: `(?s)No Covered Resources.*e\.g\. \["cpu", "memory", "nvidia.com/gpu"\]`},
		"65 covered resources": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("f", rgResources("r", 65)...))},
			path: "resource_groups[0].covered_resources", want: `(?s)Too Many Covered Resources.*65 covered resources; Kueue accepts at most 64 per group`},
		"covered resource with a '!'": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("f", "gpu!"))},
			path: "resource_groups[0].covered_resources[0]", want: `(?s)Invalid Resource Name.*"gpu!".*contains '!'.*nvidia.com/gpu`},
		"covered resource with two slashes": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("f", "nvidia.com/gpu/h100"))},
			path: "resource_groups[0].covered_resources[0]", want: `(?s)Invalid Resource Name.*more than one '/'`},
		"covered resource with an upper-case prefix": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("f", "NVIDIA.com/gpu"))},
			path: "resource_groups[0].covered_resources[0]", want: `(?s)Invalid Resource Name.*prefix "NVIDIA.com".*upper-case`},
		"covered resource twice in a group": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("f", "cpu", "cpu"))},
			path: "resource_groups[0].covered_resources[1]", want: `(?s)Duplicate Covered Resource.*"cpu" is listed twice`},
		"resource in two groups": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("a", "cpu"), rgOneFlavor("b", "cpu"))},
			path: "resource_groups[1].covered_resources[0]", want: `(?s)Resource In Several Groups.*already covered by resource_groups\[0\]`},
		"no flavors": {set: map[string]any{"resource_groups": rgGroups(rgGroup([]string{"cpu"}))},
			path: "resource_groups[0].flavors", want: `(?s)No Flavors.*at least one flavor`},
		"65 flavors in a group": {set: map[string]any{"resource_groups": rgGroups(rgManyFlavors("f", "cpu", 65))},
			path: "resource_groups[0].flavors", want: `(?s)Too Many Flavors.*65 flavors; Kueue accepts at most 64 per group`},
		"flavor name with upper case": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("H100-Spot", "cpu"))},
			path: "resource_groups[0].flavors[0].name", want: `(?s)Invalid Name.*"H100-Spot" is not a valid ResourceFlavor name.*upper-case.*"h100-spot"`},
		"flavor name with an underscore": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("h100_spot", "cpu"))},
			path: "resource_groups[0].flavors[0].name", want: `(?s)Invalid Name.*contains '_'.*"h100-spot"`},
		"flavor name too long": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor(strings.Repeat("f", 254), "cpu"))},
			path: "resource_groups[0].flavors[0].name", want: `(?s)Invalid Name.*254 characters long; the limit is 253`},
		"flavor name empty": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("", "cpu"))},
			path: "resource_groups[0].flavors[0].name", want: `(?s)Missing Flavor Name.*mlplatform_resource_flavor`},
		"flavor twice in a group": {set: map[string]any{"resource_groups": rgGroups(rgGroup([]string{"cpu"}, rgFlavor("f", rgQuota("cpu", "1")), rgFlavor("f", rgQuota("cpu", "2"))))},
			path: "resource_groups[0].flavors[1].name", want: `(?s)Duplicate Flavor.*"f" appears twice`},
		"flavor in two groups": {set: map[string]any{"resource_groups": rgGroups(rgOneFlavor("f", "cpu"), rgOneFlavor("f", "memory"))},
			path: "resource_groups[1].flavors[0].name", want: `(?s)Flavor In Several Groups.*resource_groups\[0\].*one group only`},
		"resources out of order": {set: map[string]any{"resource_groups": rgGroups(rgGroup(covered,
			rgFlavor("f", rgQuota("memory", "1Gi"), rgQuota("cpu", "1"), rgQuota("nvidia.com/gpu", "1"))))},
			path: q0, want: `(?s)Resources Out Of Order.*memory, cpu, nvidia.com/gpu.*must follow covered_resources: cpu, memory, nvidia.com/gpu`},
		"a resource missing": {set: map[string]any{"resource_groups": rgGroups(rgGroup(covered, rgFlavor("f", rgQuota("cpu", "1"), rgQuota("memory", "1Gi"))))},
			path: q0, want: `(?s)Missing Resource Quota.*no quota for "nvidia.com/gpu".*Add \{ name = "nvidia.com/gpu", nominal_quota = "0" \} as resources\[2\]`},
		"two resources missing": {set: map[string]any{"resource_groups": rgGroups(rgGroup(covered, rgFlavor("f", rgQuota("memory", "1Gi"))))},
			path: q0, want: `(?s)Missing Resource Quota.*"cpu" \(covered_resources\[0\]\), "nvidia.com/gpu" \(covered_resources\[2\]\)`},
		"a resource missing and the rest out of order": {set: map[string]any{"resource_groups": rgGroups(rgGroup(covered,
			rgFlavor("f", rgQuota("memory", "1Gi"), rgQuota("cpu", "1"))))},
			path: q0, want: `(?s)Missing Resource Quota.*"nvidia.com/gpu".*Also reorder them`},
		"no resources at all": {set: map[string]any{"resource_groups": rgGroups(rgGroup([]string{"cpu"}, rgFlavor("f")))},
			path: q0, want: `(?s)Missing Resource Quota.*no quota for "cpu"`},
		"a resource not covered": {set: map[string]any{"resource_groups": rgGroups(rgGroup([]string{"cpu"}, rgFlavor("f", rgQuota("cpu", "1"), rgQuota("memory", "1Gi"))))},
			path: q0 + "[1].name", want: `(?s)Resource Not Covered.*"memory".*add "memory" to covered_resources or remove this quota`},
		"a misspelt resource": {set: map[string]any{"resource_groups": rgGroups(rgGroup(covered,
			rgFlavor("f", rgQuota("cpu", "1"), rgQuota("memory", "1Gi"), rgQuota("nvidia.com/gpus", "8"))))},
			path: q0 + "[2].name", want: `(?s)Resource Not Covered.*"nvidia.com/gpus".*covered_resources\[2\] is "nvidia.com/gpu": did you mean it\?`},
		"a resource quota twice": {set: map[string]any{"resource_groups": rgGroups(rgGroup([]string{"cpu", "memory"}, rgFlavor("f", rgQuota("cpu", "1"), rgQuota("cpu", "2"))))},
			path: q0 + "[1].name", want: `(?s)Duplicate Resource Quota.*two quotas for "cpu".*must be cpu, memory`},
		"nominal quota in words": {set: map[string]any{"resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8 GPUs"))},
			path: q0 + "[0].nominal_quota", want: `(?s)Invalid Quantity.*"8 GPUs" is not a Kubernetes quantity.*"64Gi"`},
		"nominal quota with a unit Kubernetes lacks": {set: map[string]any{"resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8GB"))},
			path: q0 + "[0].nominal_quota", want: `(?s)Invalid Quantity.*"8GB"`},
		"nominal quota negative": {set: map[string]any{"resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "-1"))},
			path: q0 + "[0].nominal_quota", want: `(?s)Negative Quantity.*-1 must not be negative; use "0"`},
		"nominal quota empty": {set: map[string]any{"resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", ""))},
			path: q0 + "[0].nominal_quota", want: `(?s)Missing Nominal Quota.*use "0" to grant none`},
		"borrowing limit empty": {set: map[string]any{"resource_groups": rgEmptyLimit("borrowing_limit")},
			path: q0 + "[0].borrowing_limit", want: `(?s)Empty Borrowing Limit.*leave borrowing_limit out for no limit`},
		"lending limit empty": {set: map[string]any{"resource_groups": rgEmptyLimit("lending_limit")},
			path: q0 + "[0].lending_limit", want: `(?s)Empty Lending Limit.*leave lending_limit out to lend all unused quota`},
		"borrowing limit negative": {set: map[string]any{"resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "-2"))},
			path: q0 + "[0].borrowing_limit", want: `(?s)Negative Quantity.*-2 must not be negative`},
		"lending limit not a quantity": {set: map[string]any{"resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "", "half"))},
			path: q0 + "[0].lending_limit", want: `(?s)Invalid Quantity.*"half"`},
	}
}

// rgEmptyLimit is a quota whose limit attr is written as "".
func rgEmptyLimit(attr string) []any {
	q := rgQuota("nvidia.com/gpu", "8")
	q[attr] = ""
	return rgWithQuota(q)
}

func init() {
	const q0 = "resource_groups[0].flavors[0].resources"
	cases := rgCases()
	for _, c := range cases {
		c.set["admission_checks"] = nil // they name flavors of the valid groups
	}
	for name, c := range map[string]badCase{
		// ClusterQueue-only rules of the webhook.
		"borrowing limit without a cohort": {set: map[string]any{"cohort": nil, "admission_checks": nil, "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "4"))},
			path: q0 + "[0].borrowing_limit", want: `(?s)Limit Needs A Cohort.*borrowing_limit only applies to a ClusterQueue that belongs to a cohort`},
		"lending limit without a cohort": {set: map[string]any{"cohort": nil, "admission_checks": nil, "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "", "4"))},
			path: q0 + "[0].lending_limit", want: `(?s)Limit Needs A Cohort.*put the queue in a cohort`},
		"lending limit above nominal quota": {set: map[string]any{"admission_checks": nil, "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "", "9"))},
			path: q0 + "[0].lending_limit", want: `(?s)Lending Limit Above Nominal Quota.*lending_limit 9 is more than nominal_quota 8.*at most 8`},
		"lending limit above nominal quota, other spellings": {set: map[string]any{"admission_checks": nil, "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8000m", "", "8001m"))},
			path: q0 + "[0].lending_limit", want: `(?s)Lending Limit Above Nominal Quota`},
		"257 flavors in a queue": {set: map[string]any{"admission_checks": nil, "resource_groups": rgGroups(
			rgManyFlavors("a", "example.com/a", 52), rgManyFlavors("b", "example.com/b", 52), rgManyFlavors("c", "example.com/c", 52),
			rgManyFlavors("d", "example.com/d", 52), rgManyFlavors("e", "example.com/e", 52))},
			path: "resource_groups", want: `(?s)Too Many Flavors.*260 flavors across all resource groups; Kueue accepts at most 256 per ClusterQueue`},
		"257 covered resources in a queue": {set: map[string]any{"admission_checks": nil, "resource_groups": rgGroups(
			rgOneFlavor("a", rgResources("a", 52)...), rgOneFlavor("b", rgResources("b", 52)...), rgOneFlavor("c", rgResources("c", 52)...),
			rgOneFlavor("d", rgResources("d", 52)...), rgOneFlavor("e", rgResources("e", 52)...))},
			path: "resource_groups", want: `(?s)Too Many Covered Resources.*260 covered resources across all resource groups; Kueue accepts at most 256`},
		"513 quotas in a group": {set: map[string]any{"admission_checks": nil, "resource_groups": rgGroups(func() map[string]any {
			res := rgResources("r", 9)
			fs := make([]map[string]any, 57)
			for i := range fs {
				qs := make([]map[string]any, len(res))
				for j, r := range res {
					qs[j] = rgQuota(r, "1")
				}
				fs[i] = rgFlavor(fmt.Sprintf("f%d", i), qs...)
			}
			return rgGroup(res, fs...)
		}())},
			path: "resource_groups[0].flavors", want: `(?s)Too Many Quotas.*513 flavor×resource quotas in this group; Kueue accepts at most 512`},

		// name: metadata.name of a custom resource, a DNS subdomain.
		"name with upper case":    {set: map[string]any{"name": "Team-Vision"}, path: "name", want: `(?s)Invalid Name.*"Team-Vision" is not a valid ClusterQueue name.*upper-case.*"team-vision"`},
		"name with an underscore": {set: map[string]any{"name": "team_vision"}, path: "name", want: `(?s)Invalid Name.*contains '_'.*"team-vision"`},
		"name with a space":       {set: map[string]any{"name": "team vision"}, path: "name", want: `(?s)Invalid Name.*contains a space`},
		"name too long":           {set: map[string]any{"name": strings.Repeat("q", 254)}, path: "name", want: `(?s)Invalid Name.*254 characters long; the limit is 253`},
		"name ending with a dot":  {set: map[string]any{"name": "team."}, path: "name", want: `(?s)Invalid Name.*each part between dots must begin and end with a letter or digit.*"team"`},
		"name empty":              {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*ClusterQueue needs a name`},

		// cohort: a CohortReference (DNS subdomain, ≤ 253).
		"cohort with upper case": {set: map[string]any{"cohort": "Research_Team"}, path: "cohort", want: `(?s)Invalid Name.*not a valid Cohort name.*"research-team"`},
		"cohort with a slash":    {set: map[string]any{"cohort": "org/research"}, path: "cohort", want: `(?s)Invalid Name.*contains '/'`},
		"cohort too long":        {set: map[string]any{"cohort": strings.Repeat("c", 254)}, path: "cohort", want: `(?s)Invalid Name.*254 characters long`},
		"cohort empty":           {set: map[string]any{"cohort": ""}, path: "cohort", want: `(?s)Empty Cohort.*leave cohort out for a queue that neither borrows nor lends.*"research"`},

		// namespace_selector: a metav1.LabelSelector (ValidateLabelSelector).
		"selector label key with a space": {set: map[string]any{"namespace_selector": map[string]any{"match_labels": map[string]any{"team name": "vision"}}},
			path: `namespace_selector.match_labels["team name"]`, want: `(?s)Invalid Label Key.*contains a space.*e\.g\. "team"`},
		"selector label value too long": {set: map[string]any{"namespace_selector": map[string]any{"match_labels": map[string]any{"team": strings.Repeat("v", 64)}}},
			path: `namespace_selector.match_labels["team"]`, want: `(?s)Invalid Label Value.*64 characters long; the limit is 63`},
		"selector label value with a slash": {set: map[string]any{"namespace_selector": map[string]any{"match_labels": map[string]any{"team": "ml/vision"}}},
			path: `namespace_selector.match_labels["team"]`, want: `(?s)Invalid Label Value.*contains '/'`},
		"selector expression key invalid": {set: map[string]any{"namespace_selector": cqExpr("-team", "In", "vision")},
			path: "namespace_selector.match_expressions[0].key", want: `(?s)Invalid Label Key.*"-team".*begin and end with a letter or digit`},
		"selector expression key empty": {set: map[string]any{"namespace_selector": cqExpr("", "Exists")},
			path: "namespace_selector.match_expressions[0].key", want: `(?s)Missing Label Key.*mlplatform.dev/team`},
		"selector operator unknown": {set: map[string]any{"namespace_selector": cqExpr("team", "Equals", "vision")},
			path: "namespace_selector.match_expressions[0].operator", want: `(?s)Invalid Operator.*"Equals" is not one of In, NotIn, Exists, DoesNotExist`},
		"selector operator in lower case": {set: map[string]any{"namespace_selector": cqExpr("team", "in", "vision")},
			path: "namespace_selector.match_expressions[0].operator", want: `(?s)Invalid Operator.*did you mean "In"\?`},
		"selector In without values": {set: map[string]any{"namespace_selector": cqExpr("team", "In")},
			path: "namespace_selector.match_expressions[0].values", want: `(?s)Values Required.*operator In needs at least one value`},
		"selector NotIn without values": {set: map[string]any{"namespace_selector": cqExpr("team", "NotIn")},
			path: "namespace_selector.match_expressions[0].values", want: `(?s)Values Required.*NotIn`},
		"selector Exists with values": {set: map[string]any{"namespace_selector": cqExpr("team", "Exists", "vision")},
			path: "namespace_selector.match_expressions[0].values", want: `(?s)Values Not Allowed.*matches on the key alone`},
		"selector DoesNotExist with values": {set: map[string]any{"namespace_selector": cqExpr("team", "DoesNotExist", "vision")},
			path: "namespace_selector.match_expressions[0].values", want: `(?s)Values Not Allowed`},
		"selector value not a label value": {set: map[string]any{"namespace_selector": cqExpr("team", "In", "vision", "computer vision")},
			path: "namespace_selector.match_expressions[0].values[1]", want: `(?s)Invalid Label Value.*"computer vision" cannot be a label value.*contains a space`},

		// queueing_strategy: Enum=StrictFIFO;BestEffortFIFO.
		"queueing strategy unknown":    {set: map[string]any{"queueing_strategy": "LIFO"}, path: "queueing_strategy", want: `(?s)Invalid Queueing Strategy.*"LIFO" is not one of BestEffortFIFO, StrictFIFO.*Kueue's default, BestEffortFIFO`},
		"queueing strategy wrong case": {set: map[string]any{"queueing_strategy": "strictFIFO"}, path: "queueing_strategy", want: `(?s)Invalid Queueing Strategy.*did you mean "StrictFIFO"\?`},
		"queueing strategy empty":      {set: map[string]any{"queueing_strategy": ""}, path: "queueing_strategy", want: `(?s)Empty Queueing Strategy.*BestEffortFIFO, StrictFIFO`},

		// preemption: the enumerations and the CEL rule on borrowWithinCohort.
		"reclaim policy unknown": {set: map[string]any{"preemption": map[string]any{"reclaim_within_cohort": "Always"}},
			path: "preemption.reclaim_within_cohort", want: `(?s)Invalid Preemption Policy.*"Always" is not one of Never, LowerPriority, Any`},
		"reclaim policy empty": {set: map[string]any{"preemption": map[string]any{"reclaim_within_cohort": ""}},
			path: "preemption.reclaim_within_cohort", want: `(?s)Empty Reclaim Within Cohort.*Never, LowerPriority, Any`},
		"within-queue policy Any": {set: map[string]any{"preemption": map[string]any{"within_cluster_queue": "Any"}},
			path: "preemption.within_cluster_queue", want: `(?s)Invalid Preemption Policy.*"Any" is not one of Never, LowerPriority, LowerOrNewerEqualPriority`},
		"borrowing policy Any": {set: map[string]any{"preemption": map[string]any{"reclaim_within_cohort": "Any", "borrow_within_cohort": map[string]any{"policy": "Any"}}},
			path: "preemption.borrow_within_cohort.policy", want: `(?s)Invalid Preemption Policy.*"Any" is not one of Never, LowerPriority`},
		"borrowing policy misspelt (no second error)": {set: map[string]any{"preemption": map[string]any{"borrow_within_cohort": map[string]any{"policy": "lowerPriority"}}},
			path: "preemption.borrow_within_cohort.policy", want: `(?s)Invalid Preemption Policy.*did you mean "LowerPriority"\?`},
		"borrowing preemption without reclaim": {set: map[string]any{"preemption": map[string]any{"borrow_within_cohort": map[string]any{"policy": "LowerPriority"}}},
			path: "preemption.borrow_within_cohort.policy", want: `(?s)Borrowing Preemption Needs Reclaim.*set reclaim_within_cohort to LowerPriority or Any`},
		"threshold without borrowing preemption": {set: map[string]any{"preemption": map[string]any{"borrow_within_cohort": map[string]any{"max_priority_threshold": 100}}},
			path: "preemption.borrow_within_cohort.max_priority_threshold", want: `(?s)Threshold Without Borrowing Preemption.*policy = "LowerPriority"`},
		"threshold beyond 32 bits": {set: map[string]any{"preemption": map[string]any{"reclaim_within_cohort": "Any",
			"borrow_within_cohort": map[string]any{"policy": "LowerPriority", "max_priority_threshold": 3000000000}}},
			path: "preemption.borrow_within_cohort.max_priority_threshold", want: `(?s)Threshold Out Of Range.*3000000000.*-2147483648 to 2147483647`},

		// flavor_fungibility: the enumerations and the CEL rule on preference.
		"when_can_borrow unknown": {set: map[string]any{"flavor_fungibility": map[string]any{"when_can_borrow": "Borrow"}},
			path: "flavor_fungibility.when_can_borrow", want: `(?s)Invalid Flavor Fungibility Policy.*"Borrow" is not one of MayStopSearch, TryNextFlavor.*default, MayStopSearch`},
		"when_can_preempt wrong case": {set: map[string]any{"flavor_fungibility": map[string]any{"when_can_preempt": "trynextflavor"}},
			path: "flavor_fungibility.when_can_preempt", want: `(?s)Invalid Flavor Fungibility Policy.*did you mean "TryNextFlavor"\?.*default, TryNextFlavor`},
		"when_can_borrow empty": {set: map[string]any{"flavor_fungibility": map[string]any{"when_can_borrow": ""}},
			path: "flavor_fungibility.when_can_borrow", want: `(?s)Empty When Can Borrow`},
		"preference unknown": {set: map[string]any{"flavor_fungibility": map[string]any{"when_can_borrow": "TryNextFlavor", "preference": "Borrowing"}},
			path: "flavor_fungibility.preference", want: `(?s)Invalid Flavor Fungibility Preference.*BorrowingOverPreemption, PreemptionOverBorrowing`},
		"preference without TryNextFlavor": {set: map[string]any{"flavor_fungibility": map[string]any{"preference": "BorrowingOverPreemption"}},
			path: "flavor_fungibility.preference", want: `(?s)Preference Needs TryNextFlavor.*they are MayStopSearch and TryNextFlavor`},
		"preference with a misspelt policy (no second error)": {set: map[string]any{"flavor_fungibility": map[string]any{"when_can_borrow": "TryNext", "preference": "BorrowingOverPreemption"}},
			path: "flavor_fungibility.when_can_borrow", want: `(?s)Invalid Flavor Fungibility Policy.*"TryNext"`},
		"preference empty": {set: map[string]any{"flavor_fungibility": map[string]any{"preference": ""}},
			path: "flavor_fungibility.preference", want: `(?s)Empty Preference.*leave preference out`},

		// admission_checks: ≤ 64, names of AdmissionChecks, on_flavors a set of ≤ 64 of the queue's flavors.
		"admission check name with upper case": {set: map[string]any{"admission_checks": map[string]any{"DWS": map[string]any{}}},
			path: `admission_checks["DWS"]`, want: `(?s)Invalid Name.*"DWS" is not a valid AdmissionCheck name.*"dws"`},
		"admission check name empty": {set: map[string]any{"admission_checks": map[string]any{"": map[string]any{}}},
			path: `admission_checks[""]`, want: `(?s)Missing Admission Check Name.*mlplatform_provisioning_admission_check`},
		"admission check on a flavor the queue lacks": {set: map[string]any{"admission_checks": map[string]any{"dws": map[string]any{"on_flavors": []any{"a100"}}}},
			path: `admission_checks["dws"].on_flavors[0]`, want: `(?s)Unknown Flavor.*"a100".*use one of h100-flex, h100-spot`},
		"admission check on a flavor twice": {set: map[string]any{"admission_checks": map[string]any{"dws": map[string]any{"on_flavors": []any{"h100-flex", "h100-flex"}}}},
			path: `admission_checks["dws"].on_flavors[1]`, want: `(?s)Duplicate Flavor.*listed twice in on_flavors`},
		"65 admission checks": {set: map[string]any{"admission_checks": func() map[string]any {
			m := map[string]any{}
			for i := range 65 {
				m[fmt.Sprintf("check-%d", i)] = map[string]any{}
			}
			return m
		}()}, path: "admission_checks", want: `(?s)Too Many Entries.*65 entries; Kueue accepts at most 64 admission checks per ClusterQueue`},
		"65 flavors for one check": {set: map[string]any{"resource_groups": rgGroups(rgManyFlavors("f", "nvidia.com/gpu", 64), rgManyFlavors("g", "cpu", 1)),
			"admission_checks": map[string]any{"dws": map[string]any{"on_flavors": func() []any {
				var on []any
				for i := range 64 {
					on = append(on, fmt.Sprintf("f%d", i))
				}
				return append(on, "g0")
			}()}}}, path: `admission_checks["dws"].on_flavors`, want: `(?s)Too Many Entries.*65 entries; Kueue accepts at most 64 flavors per admission check`},

		// stop_policy: Enum=None;Hold;HoldAndDrain.
		"stop policy unknown":    {set: map[string]any{"stop_policy": "Pause"}, path: "stop_policy", want: `(?s)Invalid Stop Policy.*"Pause" is not one of None \(admit\), Hold \(admit nothing new\) or HoldAndDrain`},
		"stop policy wrong case": {set: map[string]any{"stop_policy": "hold"}, path: "stop_policy", want: `(?s)Invalid Stop Policy.*did you mean "Hold"\?`},
		"stop policy empty":      {set: map[string]any{"stop_policy": ""}, path: "stop_policy", want: `(?s)Empty Stop Policy.*None, Hold, HoldAndDrain`},

		// fair_sharing_weight: a quantity, not negative, 0 or more than 1n.
		"fair sharing weight negative":  {set: map[string]any{"fair_sharing_weight": "-1"}, path: "fair_sharing_weight", want: `(?s)Negative Fair Sharing Weight.*use "0"`},
		"fair sharing weight too small": {set: map[string]any{"fair_sharing_weight": "1n"}, path: "fair_sharing_weight", want: `(?s)Fair Sharing Weight Too Small.*more than 1n`},
		"fair sharing weight in words":  {set: map[string]any{"fair_sharing_weight": "heavy"}, path: "fair_sharing_weight", want: `(?s)Invalid Quantity.*"heavy" is not a Kubernetes quantity.*"0.5"`},
		"fair sharing weight empty":     {set: map[string]any{"fair_sharing_weight": ""}, path: "fair_sharing_weight", want: `(?s)Empty Fair Sharing Weight.*default weight of 1`},

		// active_timeout: the provider's own setting, a positive duration.
		"active timeout in words": {set: map[string]any{"active_timeout": "soon"}, path: "active_timeout", want: `(?s)Invalid Duration.*"soon" is not a positive duration.*5m`},
		"active timeout zero":     {set: map[string]any{"active_timeout": "0s"}, path: "active_timeout", want: `(?s)Invalid Duration`},
	} {
		cases[name] = c
	}
	badInputs["mlplatform_cluster_queue"] = badInput{
		valid: map[string]any{
			"name": "team-vision", "cohort": "research",
			"namespace_selector": map[string]any{"match_labels": map[string]any{"mlplatform.dev/team": "vision"},
				"match_expressions": []any{map[string]any{"key": "mlplatform.dev/tier", "operator": "In", "values": []any{"training", "batch"}}}},
			"resource_groups":   rgGroups(rgGPU()),
			"queueing_strategy": "StrictFIFO",
			"preemption": map[string]any{"reclaim_within_cohort": "LowerPriority", "within_cluster_queue": "LowerOrNewerEqualPriority",
				"borrow_within_cohort": map[string]any{"policy": "LowerPriority", "max_priority_threshold": 100}},
			"flavor_fungibility":  map[string]any{"when_can_borrow": "TryNextFlavor", "when_can_preempt": "TryNextFlavor", "preference": "PreemptionOverBorrowing"},
			"admission_checks":    map[string]any{"dws": map[string]any{"on_flavors": []any{"h100-flex"}}},
			"stop_policy":         "None",
			"fair_sharing_weight": "1.5",
			"active_timeout":      "5m",
		},
		cases: cases,
	}
}

// cqExpr is a namespace selector of one match expression.
func cqExpr(key, op string, values ...string) map[string]any {
	e := map[string]any{"key": key, "operator": op}
	if len(values) > 0 {
		vs := make([]any, len(values))
		for i, v := range values {
			vs[i] = v
		}
		e["values"] = vs
	}
	return map[string]any{"match_expressions": []any{e}}
}
