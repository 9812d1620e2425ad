package spec

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// plainCheckers pairs each plain-language check with the apimachinery
// validation the API server applies: they must accept exactly the same
// strings.
var plainCheckers = map[string]struct {
	plain func(string) string
	k8s   func(string) []string
}{
	"dns label":      {DNSLabelProblem, validation.IsDNS1123Label},
	"dns subdomain":  {DNSSubdomainProblem, validation.IsDNS1123Subdomain},
	"label value":    {LabelValueProblem, validation.IsValidLabelValue},
	"qualified name": {QualifiedNameProblem, validation.IsQualifiedName},
}

var plainCorpus = []string{
	"", "a", "A", "-", "a-", "-a", "team-vision", "Team.Vision", "team_vision", "a.b", "a..b", ".a", "a.", "a b",
	"x@example.com", "nvidia.com/gpu", "example.com/", "/x", "a/b/c", "Example.com/x", "cloud.google.com/gke-spot",
	"1abc", "abc1", "ä", "a-ä", "_a", "a_", "9", strings.Repeat("a", 63), strings.Repeat("a", 64),
	strings.Repeat("a", 253), strings.Repeat("a.", 126) + "a", strings.Repeat("a", 254), "k8s.io/" + strings.Repeat("b", 64),
}

func TestPlainChecksAgreeWithTheAPIServer(t *testing.T) {
	t.Parallel()
	for name, c := range plainCheckers {
		for _, s := range plainCorpus {
			plain, k8s := c.plain(s), c.k8s(s)
			if (plain == "") != (len(k8s) == 0) {
				t.Errorf("%s %q: plain says %q, apimachinery says %q", name, s, plain, k8s)
			}
			if strings.ContainsAny(plain, "[]*+?^$") && !strings.Contains(plain, "'") {
				t.Errorf("%s %q: %q reads like a regular expression", name, s, plain)
			}
		}
	}
}

func FuzzPlainChecksAgreeWithTheAPIServer(f *testing.F) {
	for _, s := range plainCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, c := range plainCheckers {
			if plain, k8s := c.plain(s), c.k8s(s); (plain == "") != (len(k8s) == 0) {
				t.Errorf("%s %q: plain says %q, apimachinery says %q", name, s, plain, k8s)
			}
		}
	})
}
