package spec

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gpuGroup is a valid group: cpu, memory and GPUs on two flavors.
func gpuGroup() ResourceGroup {
	return ResourceGroup{
		CoveredResources: []string{"cpu", "memory", "nvidia.com/gpu"},
		Flavors: []FlavorQuotas{
			{Name: "h100-spot", Resources: []ResourceQuota{{Name: "cpu", NominalQuota: "96"}, {Name: "memory", NominalQuota: "1Ti"}, {Name: "nvidia.com/gpu", NominalQuota: "16"}}},
			{Name: "h100", Resources: []ResourceQuota{{Name: "cpu", NominalQuota: "48"}, {Name: "memory", NominalQuota: "512Gi"}, {Name: "nvidia.com/gpu", NominalQuota: "8"}}},
		},
	}
}

func quotas(names ...string) []ResourceQuota {
	out := make([]ResourceQuota, 0, len(names))
	for _, n := range names {
		out = append(out, ResourceQuota{Name: n, NominalQuota: "1"})
	}
	return out
}

func withQuota(q ResourceQuota) []ResourceGroup {
	return []ResourceGroup{{CoveredResources: []string{"nvidia.com/gpu"}, Flavors: []FlavorQuotas{{Name: "f", Resources: []ResourceQuota{q}}}}}
}

func TestValidateResourceGroups(t *testing.T) {
	t.Parallel()
	manyGroups := make([]ResourceGroup, 17)
	for i := range manyGroups {
		r := fmt.Sprintf("example.com/r%d", i)
		manyGroups[i] = ResourceGroup{CoveredResources: []string{r}, Flavors: []FlavorQuotas{{Name: fmt.Sprintf("f%d", i), Resources: quotas(r)}}}
	}
	var manyCovered []string
	for i := range 65 {
		manyCovered = append(manyCovered, fmt.Sprintf("example.com/r%d", i))
	}
	// 16 groups of 16 flavors (ok) plus one more group: 257 flavors in all.
	var manyFlavors []ResourceGroup
	for i := range 17 {
		r := fmt.Sprintf("example.com/r%d", i)
		g := ResourceGroup{CoveredResources: []string{r}}
		for j := range 16 {
			if i == 16 && j > 0 {
				break
			}
			g.Flavors = append(g.Flavors, FlavorQuotas{Name: fmt.Sprintf("f%d-%d", i, j), Resources: quotas(r)})
		}
		manyFlavors = append(manyFlavors, g)
	}
	// 9 resources × 57 flavors = 513 quotas in one group.
	var wide ResourceGroup
	for i := range 9 {
		wide.CoveredResources = append(wide.CoveredResources, fmt.Sprintf("example.com/r%d", i))
	}
	for j := range 57 {
		wide.Flavors = append(wide.Flavors, FlavorQuotas{Name: fmt.Sprintf("f%d", j), Resources: quotas(wide.CoveredResources...)})
	}

	cases := map[string]struct {
		groups    []ResourceGroup
		hasCohort bool
		want      []string
	}{
		"valid":     {groups: []ResourceGroup{gpuGroup()}},
		"none":      {},
		"17 groups": {groups: manyGroups, want: []string{"rg: Too Many Resource Groups"}},
		"no covered resources": {groups: []ResourceGroup{{Flavors: []FlavorQuotas{{Name: "f"}}}},
			want: []string{"rg[0].covered_resources: No Covered Resources"}},
		"65 covered resources": {groups: []ResourceGroup{{CoveredResources: manyCovered, Flavors: []FlavorQuotas{{Name: "f", Resources: quotas(manyCovered...)}}}},
			want: []string{"rg[0].covered_resources: Too Many Covered Resources"}},
		"no flavors": {groups: []ResourceGroup{{CoveredResources: []string{"cpu"}}}, want: []string{"rg[0].flavors: No Flavors"}},
		"bad resource name": {groups: []ResourceGroup{{CoveredResources: []string{"GPU!"}, Flavors: []FlavorQuotas{{Name: "f", Resources: quotas("GPU!")}}}},
			want: []string{"rg[0].covered_resources[0]: Invalid Resource Name"}},
		"resource in two groups": {groups: []ResourceGroup{gpuGroup(), {CoveredResources: []string{"cpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu")}}}},
			want: []string{"rg[1].covered_resources[0]: Resource In Several Groups"}},
		"resource twice in a group": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "cpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu", "cpu")}}}},
			want: []string{"rg[0].covered_resources[1]: Duplicate Covered Resource"}},
		"quota twice in a flavor": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu", "cpu")}}}},
			want: []string{"rg[0].flavors[0].resources[1].name: Duplicate Resource Quota"}},
		"flavor in two groups": {groups: []ResourceGroup{gpuGroup(), {CoveredResources: []string{"example.com/x"}, Flavors: []FlavorQuotas{{Name: "h100", Resources: quotas("example.com/x")}}}},
			want: []string{"rg[1].flavors[0].name: Flavor In Several Groups"}},
		"flavor twice in a group": {groups: []ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu")}, {Name: "c", Resources: quotas("cpu")}}}},
			want: []string{"rg[0].flavors[1].name: Duplicate Flavor"}},
		"bad flavor name": {groups: []ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []FlavorQuotas{{Name: "H100", Resources: quotas("cpu")}}}},
			want: []string{"rg[0].flavors[0].name: Invalid Name"}},
		"missing resource": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu")}}}},
			want: []string{"rg[0].flavors[0].resources: Missing Resource Quota"}},
		"resource not covered": {groups: []ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu", "memory")}}}},
			want: []string{"rg[0].flavors[0].resources[1].name: Resource Not Covered"}},
		"out of order": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("memory", "cpu")}}}},
			want: []string{"rg[0].flavors[0].resources: Resources Out Of Order"}},
		"missing nominal quota": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu"}), want: []string{"rg[0].flavors[0].resources[0].nominal_quota: Missing Nominal Quota"}},
		"bad quantity":          {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8 GPUs"}), want: []string{"rg[0].flavors[0].resources[0].nominal_quota: Invalid Quantity"}},
		"negative quota":        {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "-1"}), want: []string{"rg[0].flavors[0].resources[0].nominal_quota: Negative Quantity"}},
		"limits without a cohort": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", BorrowingLimit: "4", LendingLimit: "2"}),
			want: []string{"rg[0].flavors[0].resources[0].borrowing_limit: Limit Needs A Cohort", "rg[0].flavors[0].resources[0].lending_limit: Limit Needs A Cohort"}},
		"limits with a cohort": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", BorrowingLimit: "4", LendingLimit: "8000m"}), hasCohort: true},
		"lending above nominal": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", LendingLimit: "9"}), hasCohort: true,
			want: []string{"rg[0].flavors[0].resources[0].lending_limit: Lending Limit Above Nominal Quota"}},
		"negative borrowing limit": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", BorrowingLimit: "-1"}), hasCohort: true,
			want: []string{"rg[0].flavors[0].resources[0].borrowing_limit: Negative Quantity"}},
		"misspelt resource is one error": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "nvidia.com/gpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu", "nvidia.com/gpus")}}}},
			want: []string{"rg[0].flavors[0].resources[1].name: Resource Not Covered"}},
		"two resources missing is one error": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "memory", "nvidia.com/gpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("memory")}}}},
			want: []string{"rg[0].flavors[0].resources: Missing Resource Quota"}},
		"an extra and a missing resource elsewhere": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("example.com/x", "cpu")}}}},
			want: []string{"rg[0].flavors[0].resources[0].name: Resource Not Covered", "rg[0].flavors[0].resources: Missing Resource Quota"}},
		"duplicate covered resource is not also a flavor mismatch": {groups: []ResourceGroup{{CoveredResources: []string{"cpu", "cpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu")}}}},
			want: []string{"rg[0].covered_resources[1]: Duplicate Covered Resource"}},
		"bad covered name is not also a flavor mismatch": {groups: []ResourceGroup{{CoveredResources: []string{"gpu!"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("gpu!")}}}},
			want: []string{"rg[0].covered_resources[0]: Invalid Resource Name"}},
		"bad quota with a lending limit is one error": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "lots", LendingLimit: "9"}), hasCohort: true,
			want: []string{"rg[0].flavors[0].resources[0].nominal_quota: Invalid Quantity"}},
		"257 flavors in a queue":      {groups: manyFlavors, want: []string{"rg: Too Many Resource Groups", "rg: Too Many Flavors"}},
		"513 quotas in a queue group": {groups: []ResourceGroup{wide}, want: []string{"rg[0].flavors: Too Many Quotas"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var errs FieldErrors
			validateResourceGroups(&errs, Path{"rg"}, tc.groups, tc.hasCohort)
			if diff := cmp.Diff(tc.want, summaries(errs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A Cohort's groups follow the same rules except the ClusterQueue-only ones.
func TestValidateCohortResourceGroups(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		groups    []ResourceGroup
		hasParent bool
		want      []string
	}{
		"lending above nominal is fine for a cohort": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", LendingLimit: "9"}), hasParent: true},
		"limits need a parent": {groups: withQuota(ResourceQuota{Name: "nvidia.com/gpu", NominalQuota: "8", LendingLimit: "4"}),
			want: []string{"rg[0].flavors[0].resources[0].lending_limit: Limit Needs A Parent"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var errs FieldErrors
			validateCohortResourceGroups(&errs, Path{"rg"}, tc.groups, tc.hasParent)
			if diff := cmp.Diff(tc.want, summaries(errs)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The messages say what to write (here in the Plain notation; internal/diagnostics
// writes the same settings as HCL).
func TestResourceGroupRemedies(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		group ResourceGroup
		want  string
	}{
		"missing": {
			group: ResourceGroup{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu")}}},
			want:  `rg[0].flavors[0].resources: flavor "c" has no quota for "memory", which covered_resources lists as covered_resources[1]; every flavor must list all covered resources, in their order. Add {name: "memory", nominal_quota: "0"} as resources[1] (a quota of 0 grants none).`,
		},
		"misspelt": {
			group: ResourceGroup{CoveredResources: []string{"cpu", "nvidia.com/gpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("cpu", "nvidia.com/gpus")}}},
			want:  `rg[0].flavors[0].resources[1].name: flavor "c" has a quota for "nvidia.com/gpus", which the group's covered_resources (cpu, nvidia.com/gpu) does not list; covered_resources[1] is "nvidia.com/gpu": did you mean it? Otherwise add "nvidia.com/gpus" to covered_resources or remove this quota.`,
		},
		"missing and out of order": {
			group: ResourceGroup{CoveredResources: []string{"cpu", "memory", "nvidia.com/gpu"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("memory", "cpu")}}},
			want:  `rg[0].flavors[0].resources: flavor "c" has no quota for "nvidia.com/gpu", which covered_resources lists as covered_resources[2]; every flavor must list all covered resources, in their order. Add {name: "nvidia.com/gpu", nominal_quota: "0"} as resources[2] (a quota of 0 grants none). Also reorder them: they must follow covered_resources (cpu, memory, nvidia.com/gpu).`,
		},
		"order": {
			group: ResourceGroup{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{{Name: "c", Resources: quotas("memory", "cpu")}}},
			want:  `rg[0].flavors[0].resources: flavor "c" lists its quotas as memory, cpu, but they must follow covered_resources: cpu, memory. Reorder the resources of this flavor.`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var errs FieldErrors
			validateResourceGroups(&errs, Path{"rg"}, []ResourceGroup{tc.group}, false)
			if diff := cmp.Diff(tc.want, errs.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestQuantityEqual(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		a, b string
		want bool
	}{
		"same":                  {"16", "16", true},
		"milli":                 {"12", "12000m", true},
		"binary":                {"1Gi", "1024Mi", true},
		"decimal is not binary": {"1G", "1Gi", false},
		"different":             {"16", "24", false},
		"unset and zero":        {"", "0", false},
		"both unset":            {"", "", true},
		"unparseable":           {"x", "y", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := quantityEqual(tc.a, tc.b); got != tc.want {
				t.Errorf("quantityEqual(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestResourceGroupsEqual(t *testing.T) {
	t.Parallel()
	respelled := gpuGroup()
	respelled.Flavors[0].Resources[1].NominalQuota = "1024Gi"
	respelled.Flavors[1].Resources[2].NominalQuota = "8000m"
	changed := gpuGroup()
	changed.Flavors[0].Resources[2].NominalQuota = "24"
	limit := gpuGroup()
	limit.Flavors[0].Resources[2].BorrowingLimit = "0"
	cases := map[string]struct {
		a, b []ResourceGroup
		want bool
	}{
		"same":            {[]ResourceGroup{gpuGroup()}, []ResourceGroup{gpuGroup()}, true},
		"spelling":        {[]ResourceGroup{gpuGroup()}, []ResourceGroup{respelled}, true},
		"quota changed":   {[]ResourceGroup{gpuGroup()}, []ResourceGroup{changed}, false},
		"limit added":     {[]ResourceGroup{gpuGroup()}, []ResourceGroup{limit}, false},
		"nil and empty":   {nil, []ResourceGroup{}, true},
		"group removed":   {[]ResourceGroup{gpuGroup()}, nil, false},
		"flavor order":    {[]ResourceGroup{gpuGroup()}, []ResourceGroup{{CoveredResources: gpuGroup().CoveredResources, Flavors: []FlavorQuotas{gpuGroup().Flavors[1], gpuGroup().Flavors[0]}}}, false},
		"covered changed": {[]ResourceGroup{gpuGroup()}, []ResourceGroup{{CoveredResources: []string{"cpu"}, Flavors: gpuGroup().Flavors}}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := ResourceGroupsEqual(tc.a, tc.b); got != tc.want {
				t.Errorf("ResourceGroupsEqual = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestKeepQuotaSpelling(t *testing.T) {
	t.Parallel()
	server := []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{
		{Name: "a", Resources: []ResourceQuota{{Name: "cpu", NominalQuota: "12", LendingLimit: "2"}, {Name: "memory", NominalQuota: "1Gi"}}},
	}}}
	prior := []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{
		{Name: "a", Resources: []ResourceQuota{{Name: "cpu", NominalQuota: "12000m", LendingLimit: "3"}, {Name: "memory", NominalQuota: "1024Mi"}}},
	}}}
	want := []ResourceGroup{{CoveredResources: []string{"cpu", "memory"}, Flavors: []FlavorQuotas{
		{Name: "a", Resources: []ResourceQuota{{Name: "cpu", NominalQuota: "12000m", LendingLimit: "2"}, {Name: "memory", NominalQuota: "1024Mi"}}},
	}}}
	if diff := cmp.Diff(want, KeepQuotaSpelling(server, prior)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(server, KeepQuotaSpelling(server, nil)); diff != "" {
		t.Errorf("without prior (-want +got):\n%s", diff)
	}
}

func summaries(errs FieldErrors) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Path.String()+": "+e.Summary)
	}
	return out
}
