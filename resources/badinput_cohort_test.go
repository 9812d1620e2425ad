package resources_test

import "strings"

// A Cohort, from Kueue v0.17's apis/kueue/v1beta2/cohort_types.go (parentName
// a CohortReference: a DNS subdomain of at most 253 characters; at most 16
// resource groups, with the ClusterQueue's group markers and CEL rule; a
// cycle disables its queues) and pkg/webhooks/cohort_webhook.go (the
// resource group rules of the ClusterQueue webhook without lendingLimit ≤
// nominalQuota and the totals; limits need a parent; fair sharing weight 0
// or more than 1n).
func init() {
	const q0 = "resource_groups[0].flavors[0].resources"
	cases := rgCases()
	for name, c := range map[string]badCase{
		// metadata.name, a DNS subdomain.
		"name with upper case":   {set: map[string]any{"name": "Research"}, path: "name", want: `(?s)Invalid Name.*"Research" is not a valid Cohort name.*upper-case.*"research"`},
		"name with a slash":      {set: map[string]any{"name": "org/research"}, path: "name", want: `(?s)Invalid Name.*contains '/'.*"org-research"`},
		"name too long":          {set: map[string]any{"name": strings.Repeat("c", 254)}, path: "name", want: `(?s)Invalid Name.*254 characters long; the limit is 253`},
		"name starting with '-'": {set: map[string]any{"name": "-research"}, path: "name", want: `(?s)Invalid Name.*each part between dots must begin and end with a letter or digit.*"research"`},
		"name empty":             {set: map[string]any{"name": ""}, path: "name", want: `(?s)Missing Name.*Cohort needs a name`},

		// parentName: a CohortReference; a cohort that is its own parent is a cycle.
		"parent with upper case": {set: map[string]any{"parent": "Org"}, path: "parent", want: `(?s)Invalid Name.*"Org" is not a valid Cohort name.*"org"`},
		"parent with a space":    {set: map[string]any{"parent": "the org"}, path: "parent", want: `(?s)Invalid Name.*contains a space.*"the-org"`},
		"parent too long":        {set: map[string]any{"parent": strings.Repeat("p", 254)}, path: "parent", want: `(?s)Invalid Name.*254 characters long`},
		"parent empty":           {set: map[string]any{"parent": ""}, path: "parent", want: `(?s)Empty Parent.*leave parent out to make this cohort the root of its tree`},
		"own parent":             {set: map[string]any{"parent": "research"}, path: "parent", want: `(?s)Cohort Is Its Own Parent.*name another cohort, or remove parent`},

		// Cohort-only wording of the limits rule.
		"borrowing limit without a parent": {set: map[string]any{"parent": nil, "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "4"))},
			path: q0 + "[0].borrowing_limit", want: `(?s)Limit Needs A Parent.*borrowing_limit only applies to a Cohort with a parent.*set parent`},
		"lending limit without a parent": {set: map[string]any{"parent": nil, "resource_groups": rgWithQuota(rgQuota("nvidia.com/gpu", "8", "", "4"))},
			path: q0 + "[0].lending_limit", want: `(?s)Limit Needs A Parent.*lending_limit only applies to a Cohort with a parent`},

		// fairSharing.weight.
		"fair sharing weight negative":  {set: map[string]any{"fair_sharing_weight": "-0.5"}, path: "fair_sharing_weight", want: `(?s)Negative Fair Sharing Weight.*-0.5 must not be negative`},
		"fair sharing weight too small": {set: map[string]any{"fair_sharing_weight": "0.000000001"}, path: "fair_sharing_weight", want: `(?s)Fair Sharing Weight Too Small.*use "0" or a larger weight`},
		"fair sharing weight with a unit": {set: map[string]any{"fair_sharing_weight": "2x"}, path: "fair_sharing_weight",
			want: `(?s)Invalid Quantity.*"2x" is not a Kubernetes quantity`},
		"fair sharing weight empty": {set: map[string]any{"fair_sharing_weight": ""}, path: "fair_sharing_weight", want: `(?s)Empty Fair Sharing Weight.*default weight of 1`},
	} {
		cases[name] = c
	}
	badInputs["mlplatform_cohort"] = badInput{
		valid: map[string]any{
			"name": "research", "parent": "org",
			// A cohort may lend more than its own nominal quota: it lends what its members own too.
			"resource_groups":     rgGroups(rgGPU(), rgGroup([]string{"example.com/tpu"}, rgFlavor("tpu", rgQuota("example.com/tpu", "4", "", "16")))),
			"fair_sharing_weight": "2",
		},
		cases: cases,
	}
}
