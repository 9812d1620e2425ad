package spec

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProvisioningAdmissionCheckValidate(t *testing.T) {
	t.Parallel()
	ok := ProvisioningAdmissionCheck{
		Name: "dws", ProvisioningClass: QueuedProvisioningClass, ManagedResources: DefaultManagedResources,
		Parameters: map[string]string{"ValidUntilSeconds": "3600"}, RetryStrategy: DefaultRetryStrategy,
		PodSetNodeSelectors: []PodSetNodeSelector{GKEProvisioningNodeSelector},
	}
	with := func(f func(*ProvisioningAdmissionCheck)) ProvisioningAdmissionCheck {
		p := ok
		f(&p)
		return p
	}
	many := map[string]string{}
	for i := range 101 {
		many[fmt.Sprintf("p%d", i)] = "v"
	}
	cases := map[string]struct {
		in   ProvisioningAdmissionCheck
		want []string
	}{
		"valid":              {in: ok},
		"no retries":         {in: with(func(p *ProvisioningAdmissionCheck) { p.RetryStrategy.BackoffLimitCount = 0 })},
		"all resources":      {in: with(func(p *ProvisioningAdmissionCheck) { p.ManagedResources = nil })},
		"dotted name":        {in: with(func(p *ProvisioningAdmissionCheck) { p.Name = "dws.gke" }), want: []string{"name: Invalid Name"}},
		"64-character name":  {in: with(func(p *ProvisioningAdmissionCheck) { p.Name = strings.Repeat("a", 64) }), want: []string{"name: Invalid Name"}},
		"no name":            {in: with(func(p *ProvisioningAdmissionCheck) { p.Name = "" }), want: []string{"name: Missing Name"}},
		"no class":           {in: with(func(p *ProvisioningAdmissionCheck) { p.ProvisioningClass = "" }), want: []string{"provisioning_class: Missing Provisioning Class"}},
		"bad class":          {in: with(func(p *ProvisioningAdmissionCheck) { p.ProvisioningClass = "Queued_Provisioning" }), want: []string{"provisioning_class: Invalid Provisioning Class"}},
		"bad resource":       {in: with(func(p *ProvisioningAdmissionCheck) { p.ManagedResources = []string{"gpu!"} }), want: []string{"managed_resources: Invalid Resource Name"}},
		"101 parameters":     {in: with(func(p *ProvisioningAdmissionCheck) { p.Parameters = many }), want: []string{"parameters: Too Many Entries"}},
		"long parameter":     {in: with(func(p *ProvisioningAdmissionCheck) { p.Parameters = map[string]string{"k": strings.Repeat("x", 256)} }), want: []string{`parameters["k"]: Parameter Too Long`}},
		"negative retries":   {in: with(func(p *ProvisioningAdmissionCheck) { p.RetryStrategy.BackoffLimitCount = -1 }), want: []string{"retry_strategy.backoff_limit_count: Retry Setting Out Of Range"}},
		"backoff over int32": {in: with(func(p *ProvisioningAdmissionCheck) { p.RetryStrategy.BackoffMaxSeconds = 1 << 31 }), want: []string{"retry_strategy.backoff_max_seconds: Retry Setting Out Of Range"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, summaries(tc.in.Validate())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestProvisioningAdmissionCheckPointsAtItsConfig(t *testing.T) {
	t.Parallel()
	want := AdmissionCheck{Name: "dws", ControllerName: "kueue.x-k8s.io/provisioning-request",
		Parameters: &AdmissionCheckParameters{APIGroup: "kueue.x-k8s.io", Kind: "ProvisioningRequestConfig", Name: "dws"}}
	if diff := cmp.Diff(want, ProvisioningAdmissionCheck{Name: "dws"}.AdmissionCheck()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
