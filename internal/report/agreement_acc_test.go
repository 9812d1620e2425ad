package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/report"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// The plan and the live platform agree. One fixture platform holds a broken
// copy of the checks' small platform per rule that can be judged live (the
// real-plan check cases, each in its own module under its own prefix) and
// the flavor-pool relation's two cases. It is planned against the sandbox
// (the rules run on the saved plan, as `mlplatform report` runs them), then
// applied, and doctor runs on the live sandbox. For every rule that runs in
// both, the two must find the same rule on the same objects.

// agreementCases are the real-plan check cases that can be applied to the
// one sandbox cluster: "undecided" can only be judged on a plan, and mlp006
// puts a pool in a second cluster (mlp006b is the same rule in one).
func agreementCases() map[string]checkCase {
	cases := realCheckCases()
	for _, name := range []string{"undecided", "mlp006"} {
		delete(cases, name)
	}
	return cases
}

// agreementPrefix names a case's objects: "a" and its check prefix.
func agreementPrefix(name string) string { return "a" + checkPrefix(name)[1:] }

var (
	// waitedResource is a resource that waits for Kueue's Active condition:
	// the fixture breaks them on purpose, so it does not wait.
	waitedResource = regexp.MustCompile(`(?m)^resource "mlplatform_(cluster_queue|local_queue|multikueue_check)" "\w+" \{$`)
	// ours matches the name of an object of the fixture (in "Kind name").
	ours = regexp.MustCompile(` a[a-z0-9]+-`)
)

// one is a finding as both sides can name it: its rule and its objects as
// "Kind name", sorted.
type one struct {
	ID      string
	Objects string
}

func ones(fs []rules.Finding, name func(label string) string) []one {
	var out []one
	for _, f := range fs {
		r, ok := rules.Lookup(f.ID)
		if !ok || r.In() != rules.Both {
			continue
		}
		var objs []string
		for _, o := range f.Objects {
			objs = append(objs, name(o))
		}
		if !slices.ContainsFunc(objs, ours.MatchString) {
			continue // another test's object in the shared sandbox
		}
		sort.Strings(objs)
		out = append(out, one{f.ID, strings.Join(objs, ", ")})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID+out[i].Objects < out[j].ID+out[j].Objects })
	return slices.Compact(out)
}

// planFindings are the rules' findings on the plan's configuration, their
// objects named as the live cluster names them.
func planFindings(t *testing.T, planJSON []byte) []one {
	t.Helper()
	p, err := report.ReadPlan(bytes.NewReader(planJSON))
	if err != nil {
		t.Fatal(err)
	}
	pl := model.FromPlan(p, tfplan.After)
	names := map[string]string{}
	for _, o := range pl.Objects() {
		s := o.Source()
		names[s.Label()] = s.Kind + " " + s.Name
	}
	for _, f := range rules.Run(pl) {
		if f.Severity == rules.SevUndecided {
			t.Errorf("the fixture's plan leaves a rule undecided: %s", f.Sentence())
		}
	}
	return ones(rules.Run(pl), func(l string) string {
		if n, ok := names[l]; ok {
			return n
		}
		return l
	})
}

func TestAccPlanAndLiveAgree(t *testing.T) {
	env := acctest.Env(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	t.Cleanup(cancel) // after the destroy at the end
	cli := acctest.NewCLI(ctx, t, root)
	main := acctest.ProviderConfig(t)
	want := map[string]bool{} // the rules the fixture breaks
	for name, tc := range agreementCases() {
		hcl := strings.ReplaceAll(tc.Edit(checkBaseHCL), "P-", agreementPrefix(name)+"-")
		hcl = waitedResource.ReplaceAllString(hcl, "$0\n  wait_for_active = false")
		dir := filepath.Join(cli.Dir, name)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(checkTerraformBlock+hcl), 0o600); err != nil {
			t.Fatal(err)
		}
		main += fmt.Sprintf("\nmodule %q {\n  source = \"./%s\"\n}\n", name, name)
		if tc.ID != "" {
			want[tc.ID] = true
		}
	}
	cli.Write(main)
	cli.Run("get", "-no-color") // the modules
	cli.DestroyAtEnd()
	cli.Run("plan", "-input=false", "-no-color", "-out", "plan.tfplan")
	planJSON, err := planFixture(jsonOf(t, cli.Run("show", "-json", "plan.tfplan")))
	if err != nil {
		t.Fatal(err)
	}
	fromPlan := planFindings(t, planJSON)
	cli.Run("apply", "-input=false", "-no-color", "plan.tfplan")

	kc, err := kube.New(env.REST, "agreement-test")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gke.New(ctx, env.GCP.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = g.Close() }()
	src := doctor.Sources{Kube: kc, GKE: g, Cluster: fmt.Sprintf("projects/%s/locations/%s/clusters/%s", env.Project, env.Location, env.Cluster)}
	snap, err := doctor.Gather(ctx, src, doctor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live := func(s *doctor.Snapshot) []one {
		return ones(doctor.Analyze(s, doctor.Options{}).Findings, func(l string) string { return l })
	}
	fromLive := live(snap)

	t.Logf("the plan's findings:\n%s\nthe live platform's:\n%s", show(fromPlan), show(fromLive))
	if d := cmp.Diff(fromPlan, fromLive); d != "" {
		t.Errorf("report (on the plan) and doctor (on the applied platform) disagree (-plan +live):\n%s", d)
	}
	for _, r := range rules.Rules {
		if r.In() == rules.Both && !want[r.ID] {
			t.Errorf("rule %s runs in both commands and the fixture does not break it: add a real-plan check case", r.ID)
		}
	}
	found := map[string]bool{}
	for _, f := range fromLive {
		found[f.ID] = true
	}
	for id := range want {
		if !found[id] {
			t.Errorf("%s: the fixture breaks it, and neither side found it", id)
		}
	}

	// The comparison sees a change of the matching on one side: the live
	// pools read without their own labels (as an adapter that forgot them
	// would), or the flavors without their tolerations.
	for what, mutate := range map[string]func(*doctor.Snapshot){
		"pools without their labels": func(s *doctor.Snapshot) {
			for _, np := range s.Pools {
				np.Config.Labels = nil
			}
		},
		"flavors without tolerations": func(s *doctor.Snapshot) {
			for i := range s.Flavors {
				s.Flavors[i].Spec.Tolerations = nil
			}
		},
	} {
		again, err := doctor.Gather(ctx, src, doctor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		mutate(again)
		if cmp.Equal(fromPlan, live(again)) {
			t.Errorf("with %s on the live side, the two sides still agree: the comparison cannot see a change of the matching", what)
		}
	}

	// The relation's cases on the plan: the extra label's flavor counts no
	// pool; the accelerator's counts both A100 80GB pools.
	r := buildReport(t, planJSON)
	counted := 0
	for flavor, pools := range map[string][]string{
		agreementPrefix("relation_extra_label") + "-h100": nil,
		agreementPrefix("relation_accelerator") + "-h100": {agreementPrefix("relation_accelerator") + "-a100b", agreementPrefix("relation_accelerator") + "-h100"},
	} {
		for _, c := range r.Capacity {
			if c.Flavor != flavor {
				continue
			}
			counted++
			if strings.Join(c.Pools, ",") != strings.Join(pools, ",") {
				t.Errorf("capacity of flavor %s counts pools %q, want %q", flavor, c.Pools, pools)
			}
		}
	}
	if counted != 2 {
		t.Errorf("the capacity table has %d rows for the relation's two flavors, want 2", counted)
	}
}

func show(xs []one) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintf(&b, "  %s %s\n", x.ID, x.Objects)
	}
	return b.String()
}
