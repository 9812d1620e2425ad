package spec

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWorkloadPriorityClassValidate(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		in   WorkloadPriorityClass
		want []string // "path: summary"
	}{
		"valid":                {in: WorkloadPriorityClass{Name: "production", Value: 1000, Description: "prod"}},
		"negative is fine":     {in: WorkloadPriorityClass{Name: "low", Value: -5}},
		"int32 bounds":         {in: WorkloadPriorityClass{Name: "max", Value: 2147483647}},
		"dotted name":          {in: WorkloadPriorityClass{Name: "team.a.high", Value: 1}},
		"missing name":         {in: WorkloadPriorityClass{Value: 1}, want: []string{"name: Missing Name"}},
		"upper case name":      {in: WorkloadPriorityClass{Name: "High", Value: 1}, want: []string{"name: Invalid Name"}},
		"value above int32":    {in: WorkloadPriorityClass{Name: "a", Value: 2147483648}, want: []string{"value: Priority Out Of Range"}},
		"value below int32":    {in: WorkloadPriorityClass{Name: "a", Value: -2147483649}, want: []string{"value: Priority Out Of Range"}},
		"description 2048 ok":  {in: WorkloadPriorityClass{Name: "a", Description: strings.Repeat("é", 2048)}},
		"description too long": {in: WorkloadPriorityClass{Name: "a", Description: strings.Repeat("x", 2049)}, want: []string{"description: Description Too Long"}},
		"63-character name":    {in: WorkloadPriorityClass{Name: strings.Repeat("p", 63), Value: 1}},
		"64-character name":    {in: WorkloadPriorityClass{Name: strings.Repeat("p", 64), Value: 1}, want: []string{"name: Name Too Long For Jobs"}},
		"254-character name":   {in: WorkloadPriorityClass{Name: strings.Repeat("p", 254), Value: 1}, want: []string{"name: Invalid Name"}},
		"int32 minimum":        {in: WorkloadPriorityClass{Name: "min", Value: -2147483648}},
		"name ending with '-'": {in: WorkloadPriorityClass{Name: "high-", Value: 1}, want: []string{"name: Invalid Name"}},
		"empty part of a name": {in: WorkloadPriorityClass{Name: "team..high", Value: 1}, want: []string{"name: Invalid Name"}},
		"several problems": {
			in:   WorkloadPriorityClass{Name: "A_B", Value: 1 << 40},
			want: []string{"name: Invalid Name", "value: Priority Out Of Range"},
		},
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

func TestInvalidNameSuggestsAFix(t *testing.T) {
	t.Parallel()
	errs := WorkloadPriorityClass{Name: "High_Priority!", Value: 1}.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, `"high-priority"`) {
		t.Fatalf("want a suggestion of high-priority, got %v", errs)
	}
	for _, e := range (WorkloadPriorityClass{Name: "A_B", Value: 1}).Validate() {
		if strings.Contains(e.Detail, "regex") || strings.Contains(e.Detail, "[a-z0-9]") {
			t.Errorf("the message quotes a regular expression: %s", e.Detail)
		}
	}
}

func TestPathString(t *testing.T) {
	t.Parallel()
	got := Path{"resource_groups", 0, "flavors", Key("h100"), "nominal_quota"}.String()
	if diff := cmp.Diff(`resource_groups[0].flavors["h100"].nominal_quota`, got); diff != "" {
		t.Error(diff)
	}
}
