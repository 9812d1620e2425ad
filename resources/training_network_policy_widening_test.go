package resources_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol/netpoltest"
)

// wideningOpens is what the plan must say each of netpoltest.Widening's
// policies opens beyond the default configuration's holes.
var wideningOpens = map[string]string{
	"allow-everything":             "opens egress to anywhere on every port, ingress from anywhere on every port:",
	"allow-https-anywhere":         "opens egress to 0.0.0.0/0 on TCP 443:",
	"allow-ingress-all-namespaces": "opens ingress from every namespace on every port:",
	"allow-rank0-egress":           "opens for pods rank=0: egress to 10.0.0.0/8 on every port:",
}

// TestAccTrainingNetworkPolicyWidened, with the real CLI: a team namespace
// with the default holes (public HTTPS egress off). Each of the issue's
// widening policies, added out of band, is a warning of the next plan that
// names it and what it opens, and the plan stays clean (plan
// -detailed-exitcode exits 0); an apply changes nothing, the foreign
// policy included (same uid and resourceVersion); once it is deleted, the
// plan is silent again. The narrower policies, all at once, are no warning.
func TestAccTrainingNetworkPolicyWidened(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	const ns = "acc-tnp-widen"
	givenNamespace(t, ns)
	core, _ := acctest.Kube(t)
	api := core.NetworkingV1().NetworkPolicies(ns)
	ctx, cli := newCLI(t)
	cli.Apply(trainingNetworkPolicyConfig(t, ns, ""))

	// plan runs plan -detailed-exitcode -json: it must exit 0 (no change),
	// and returns its warnings as summary → detail.
	plan := func(when string) map[string]string {
		t.Helper()
		out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-json")
		if code != 0 {
			t.Fatalf("%s: plan -detailed-exitcode exited %d, want 0 (warnings are not changes):\n%s", when, code, out)
		}
		return planWarnings(t, out)
	}
	widens := func(ws map[string]string) []string {
		var out []string
		for s := range ws {
			if strings.Contains(s, "Widens The Default Deny") {
				out = append(out, s)
			}
		}
		slices.Sort(out)
		return out
	}
	if ws := widens(plan("after apply")); len(ws) > 0 {
		t.Fatalf("warnings before any foreign policy: %v", ws)
	}

	fixtures := netpoltest.Widening(ns)
	for _, name := range slices.Sorted(maps.Keys(fixtures)) {
		t.Run(name, func(t *testing.T) {
			p := fixtures[name]
			created, err := api.Create(ctx, &p, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			summary := "NetworkPolicy " + name + " Widens The Default Deny of Namespace " + ns
			ws := plan("with " + name)
			if got := widens(ws); !slices.Equal(got, []string{summary}) {
				t.Errorf("warnings %v, want exactly %q", got, summary)
			}
			if d := ws[summary]; !strings.Contains(d, wideningOpens[name]) || !strings.Contains(d, "kubectl -n "+ns+" delete networkpolicy "+name) {
				t.Errorf("the warning does not say %q and how to delete it:\n%s", wideningOpens[name], d)
			}
			out := cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
			if !strings.Contains(string(out), "No changes.") {
				t.Errorf("apply with %s changed something:\n%s", name, out)
			}
			after, err := api.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if after.UID != created.UID || after.ResourceVersion != created.ResourceVersion {
				t.Errorf("apply touched the foreign policy: uid %s → %s, resourceVersion %s → %s", created.UID, after.UID, created.ResourceVersion, after.ResourceVersion)
			}
			if err := api.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := widens(plan("after " + name + " is deleted")); len(got) > 0 {
				t.Errorf("warnings once it is gone: %v", got)
			}
		})
	}

	t.Run("narrower", func(t *testing.T) {
		narrower := netpoltest.Narrower(ns)
		for _, name := range slices.Sorted(maps.Keys(narrower)) {
			p := narrower[name]
			if _, err := api.Create(ctx, &p, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = api.Delete(context.Background(), name, metav1.DeleteOptions{}) })
		}
		if got := widens(plan("with the narrower policies")); len(got) > 0 {
			t.Errorf("narrower policies warned: %v", got)
		}
	})
}

// planWarnings reads the warnings of terraform plan -json (one JSON object
// per line; diagnostics have type "diagnostic"), summary → detail.
func planWarnings(t *testing.T, out []byte) map[string]string {
	t.Helper()
	ws := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity, Summary, Detail string
			} `json:"diagnostic"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "diagnostic" {
			continue
		}
		if line.Diagnostic.Severity == "warning" {
			ws[line.Diagnostic.Summary] = line.Diagnostic.Detail
		}
	}
	return ws
}
