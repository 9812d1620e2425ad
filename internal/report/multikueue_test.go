package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// withMultiKueue makes the base platform's ClusterQueue team-a a MultiKueue
// manager of managerGPUs nvidia.com/gpu on h100, and adds one worker per
// quota in workerGPUs: module.wN's LocalQueue team-a/gpu and ClusterQueue
// team-a (the same name, as the same team module instantiated per cluster).
func withMultiKueue(p platform, managerGPUs string, workerGPUs ...string) platform {
	p = p.add("mlplatform_multikueue_check.mk", obj("name", "multikueue", "clusters", []any{"worker-1", "worker-2"})).
		set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", nil)),
			"resource_groups", gpuQuotaGroup("h100", managerGPUs))
	for i, q := range workerGPUs {
		w := "module.w" + string(rune('1'+i)) + "."
		p = p.add(w+"mlplatform_cluster_queue.a", obj("name", "team-a", "cohort", nil, "admission_checks", nil,
			"namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "a"), "match_expressions", nil),
			"resource_groups", gpuQuotaGroup("h100", q))).
			add(w+"mlplatform_local_queue.a", obj("namespace", "team-a", "name", "gpu", "cluster_queue", "team-a"))
	}
	return p
}

// quotaGroup is one resource group of the flavor with the resources'
// nominal quota: name, quota, name, quota...
func quotaGroup(flavor string, rq ...string) []any {
	var res, covered []any
	for i := 0; i < len(rq); i += 2 {
		covered = append(covered, rq[i])
		res = append(res, obj("name", rq[i], "nominal_quota", rq[i+1], "borrowing_limit", nil, "lending_limit", nil))
	}
	return []any{obj("covered_resources", covered, "flavors", []any{obj("name", flavor, "resources", res)})}
}

func TestMultiKueueChecks(t *testing.T) {
	t.Parallel()
	const (
		E = SevError
		W = SevWarning
		U = SevUndecided
	)
	b := basePlatform
	mk := func(m string, w ...string) func() platform {
		return func() platform { return withMultiKueue(b(), m, w...) }
	}
	tests := map[string]struct {
		p            func() platform
		mlp15, mlp16 []Severity
	}{
		"no MultiKueue":                {p: b},
		"equal":                        {p: mk("16", "8", "8")},
		"equal by value (8000m)":       {p: mk("16", "8000m", "8")},
		"manager above workers":        {p: mk("24", "8", "8"), mlp15: []Severity{E}},
		"manager below workers":        {p: mk("8", "8", "8"), mlp16: []Severity{W}},
		"manager above its one worker": {p: mk("16", "8"), mlp15: []Severity{E}},
		"no worker queue":              {p: mk("16"), mlp15: []Severity{E}},
		"no worker queue, zero quota":  {p: mk("0"), mlp15: []Severity{E}},
		"worker quota on a new flavor": {p: func() platform {
			return mk("16", "8", "8")().set("module.w2.mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("a100", "8"))
		}},
		"manager flavors are summed": {p: func() platform {
			return mk("16", "8", "16")().set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "16", "a100", "8"))
		}},
		"manager lacks a worker flavor": {p: func() platform {
			return mk("16", "8", "8")().set("module.w1.mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "8", "a100", "8"))
		}, mlp16: []Severity{W}},
		"cpu and memory too": {p: func() platform {
			return mk("16", "8", "8")().set("mlplatform_cluster_queue.a", "resource_groups", quotaGroup("h100", "nvidia.com/gpu", "16", "cpu", "64", "memory", "512Gi")).
				set("module.w1.mlplatform_cluster_queue.a", "resource_groups", quotaGroup("h100", "nvidia.com/gpu", "8", "cpu", "32", "memory", "256Gi")).
				set("module.w2.mlplatform_cluster_queue.a", "resource_groups", quotaGroup("h100", "nvidia.com/gpu", "8", "cpu", "64", "memory", "128Gi"))
		}, mlp15: []Severity{E}, mlp16: []Severity{W}},
		"a worker ClusterQueue without a LocalQueue is not a worker": {p: func() platform {
			p := mk("16", "8", "8")()
			delete(p.after, "module.w2.mlplatform_local_queue.a")
			return p
		}, mlp15: []Severity{E}},
		"another team's LocalQueue is not a worker": {p: func() platform {
			return mk("16", "8", "8")().set("module.w2.mlplatform_local_queue.a", "name", "cpu")
		}, mlp15: []Severity{E}},
		"worker LocalQueue's ClusterQueue not in the plan": {p: func() platform {
			return mk("16", "8", "8")().set("module.w2.mlplatform_local_queue.a", "cluster_queue", "team-x")
		}},
		"worker quota unknown": {p: func() platform {
			return mk("16", "8", "8")().unknownAt("module.w1.mlplatform_cluster_queue.a", "resource_groups")
		}, mlp15: []Severity{U}},
		"manager quota unknown": {p: func() platform {
			return mk("16", "8", "8")().unknownAt("mlplatform_cluster_queue.a", "resource_groups")
		}, mlp15: []Severity{U}},
		"worker admission_checks unknown": {p: func() platform {
			return mk("16", "8", "8")().unknownAt("module.w1.mlplatform_cluster_queue.a", "admission_checks")
		}, mlp15: []Severity{U}},
		"manager admission_checks unknown": {p: func() platform {
			return mk("16", "8", "8")().unknownAt("mlplatform_cluster_queue.a", "admission_checks")
		}, mlp15: []Severity{U}},
		"MultiKueue check name unknown":  {p: func() platform { return mk("16", "8", "8")().unknownAt("mlplatform_multikueue_check.mk", "name") }, mlp15: []Severity{U}},
		"worker LocalQueue name unknown": {p: func() platform { return mk("24", "8", "8")().unknownAt("module.w1.mlplatform_local_queue.a", "name") }, mlp15: []Severity{U}},
		"worker cluster_queue unknown": {p: func() platform {
			return mk("24", "8", "8")().unknownAt("module.w1.mlplatform_local_queue.a", "cluster_queue")
		}, mlp15: []Severity{U}},
		"manager LocalQueue name unknown": {p: func() platform {
			p := mk("16", "8", "8")().unknownAt("mlplatform_local_queue.a", "name")
			delete(p.after, "module.w1.mlplatform_local_queue.a")
			delete(p.after, "module.w2.mlplatform_local_queue.a")
			return p
		}, mlp15: []Severity{U}},
		"MultiKueue check name unknown, only a provisioning check": {p: func() platform {
			return withCheck(b(), nil).add("mlplatform_multikueue_check.mk", obj("name", "multikueue", "clusters", []any{"worker-1"})).unknownAt("mlplatform_multikueue_check.mk", "name")
		}},
		"manager ClusterQueue name unknown": {p: func() platform { return mk("16")().unknownAt("mlplatform_cluster_queue.a", "name") }, mlp15: []Severity{U}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Build(tc.p().plan(t), Options{Prices: pricing.Default()})
			got := struct{ MLP015, MLP016 []Severity }{sevOf(r, "MLP015"), sevOf(r, "MLP016")}
			want := struct{ MLP015, MLP016 []Severity }{tc.mlp15, tc.mlp16}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s\nall findings: %+v", diff, r.Checks)
			}
		})
	}
}

// teamText is a MultiKueueTeam as comparable text.
type teamText struct {
	Team, Managers, Checks, Workers string
	NoWorker, Undecided             bool
	NotCompared                     string
	Rows                            []string // resource: manager vs workers
}

func teamsText(teams []MultiKueueTeam) []teamText {
	var out []teamText
	for _, t := range teams {
		tt := teamText{Team: t.Team, Managers: strings.Join(t.Managers, ","), Checks: strings.Join(t.Checks, ","), Workers: strings.Join(t.Workers, ","),
			NoWorker: t.NoWorker, Undecided: t.Undecided, NotCompared: t.NotCompared}
		for _, r := range t.Rows {
			tt.Rows = append(tt.Rows, r.Resource+": "+r.Manager.Text("-")+" vs "+r.Workers.Text("-"))
		}
		out = append(out, tt)
	}
	return out
}

func TestMultiKueueTeams(t *testing.T) {
	t.Parallel()
	const w1, w2 = "module.w1.mlplatform_cluster_queue.a", "module.w2.mlplatform_cluster_queue.a"
	tests := map[string]struct {
		p    platform
		want []teamText
	}{
		"no MultiKueue check": {p: basePlatform()},
		"two workers": {p: withMultiKueue(basePlatform(), "24", "8", "8"),
			want: []teamText{{Team: "team-a/gpu", Managers: "team-a", Checks: "multikueue", Workers: w1 + "," + w2, Rows: []string{"nvidia.com/gpu: 24 vs 16"}}}},
		"no worker": {p: withMultiKueue(basePlatform(), "24"),
			want: []teamText{{Team: "team-a/gpu", Managers: "team-a", Checks: "multikueue", NoWorker: true, Rows: []string{"nvidia.com/gpu: 24 vs -"}}}},
		"resources in configuration order, flavors summed": {p: withMultiKueue(basePlatform(), "1", "1", "1").
			set("mlplatform_cluster_queue.a", "resource_groups", append(quotaGroup("h100", "cpu", "64", "nvidia.com/gpu", "8"), quotaGroup("a100", "nvidia.com/gpu", "8")...)).
			set(w1, "resource_groups", quotaGroup("h100", "nvidia.com/gpu", "8", "memory", "1Ti")).
			set(w2, "resource_groups", quotaGroup("a100", "nvidia.com/gpu", "4", "cpu", "32000m")),
			want: []teamText{{Team: "team-a/gpu", Managers: "team-a", Checks: "multikueue", Workers: w1 + "," + w2,
				Rows: []string{"cpu: 64 vs 32", "nvidia.com/gpu: 16 vs 12", "memory: 0 vs 1Ti"}}}},
		"an unrelated admission check": {p: withMultiKueue(basePlatform(), "16", "16").set(w1, "admission_checks", obj("dws", obj("on_flavors", nil))),
			want: []teamText{{Team: "team-a/gpu", Managers: "team-a", Checks: "multikueue", Workers: w1, Rows: []string{"nvidia.com/gpu: 16 vs 16"}}}},
		"worker ClusterQueue not in the plan": {p: withMultiKueue(basePlatform(), "16", "8", "8").set("module.w2.mlplatform_local_queue.a", "cluster_queue", "team-x"),
			want: []teamText{{Team: "team-a/gpu", Managers: "team-a", Checks: "multikueue", Workers: w1,
				NotCompared: "not compared: ClusterQueue team-x of worker LocalQueue module.w2.mlplatform_local_queue.a is not in this plan (MLP003)",
				Rows:        []string{"nvidia.com/gpu: 16 vs 8"}}}},
		"worker quota unknown": {p: withMultiKueue(basePlatform(), "16", "8", "8").unknownAt(w2, "resource_groups"),
			want: []teamText{{Team: "team-a/gpu", Managers: "team-a", Checks: "multikueue", Workers: w1 + "," + w2, Undecided: true,
				NotCompared: "could not decide whether MultiKueue team team-a/gpu's manager quota matches its workers': the resource_groups of ClusterQueue " + w2 + " are (known after apply)"}}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Build(tc.p.plan(t), Options{Prices: pricing.Default()})
			if diff := cmp.Diff(tc.want, teamsText(r.MultiKueue)); diff != "" {
				t.Errorf("MultiKueue teams (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMultiKueueMessages(t *testing.T) {
	t.Parallel()
	res := []string{"mlplatform_local_queue.a", "mlplatform_cluster_queue.a", "module.w1.mlplatform_local_queue.a", "module.w1.mlplatform_cluster_queue.a",
		"module.w2.mlplatform_local_queue.a", "module.w2.mlplatform_cluster_queue.a", "mlplatform_multikueue_check.mk"}
	tests := map[string]struct {
		p    platform
		want []Finding
	}{
		"above": {p: withMultiKueue(basePlatform(), "24", "8", "8"), want: []Finding{{ID: "MLP015", Check: "multikueue-manager-quota-above-workers", Severity: SevError, Objects: res,
			Message: "team team-a/gpu: MultiKueue manager ClusterQueue team-a admits up to 24 nvidia.com/gpu (nominal quota over its flavors), and its workers' ClusterQueues hold only 16 together: " +
				"workloads it admits beyond 16 find no worker that can run them and wait on admission check multikueue",
			Fix: "set the manager's nominal_quota of nvidia.com/gpu to the workers' sum, 16, or raise the workers' quota"}}},
		"below": {p: withMultiKueue(basePlatform(), "8", "8", "8"), want: []Finding{{ID: "MLP016", Check: "multikueue-manager-quota-below-workers", Severity: SevWarning, Objects: res,
			Message: "team team-a/gpu: its workers' ClusterQueues hold 16 nvidia.com/gpu together, and MultiKueue manager ClusterQueue team-a admits only 8 (nominal quota over its flavors): " +
				"8 of the workers' capacity is never used by the team's workloads",
			Fix: "set the manager's nominal_quota of nvidia.com/gpu to the workers' sum, 16, or lower the workers' quota"}}},
		"no worker": {p: withMultiKueue(basePlatform(), "8"), want: []Finding{{ID: "MLP015", Check: "multikueue-manager-quota-above-workers", Severity: SevError,
			Objects: []string{"mlplatform_local_queue.a", "mlplatform_cluster_queue.a", "mlplatform_multikueue_check.mk"},
			Message: "team team-a/gpu: MultiKueue manager ClusterQueue team-a (admission check multikueue) admits workloads to dispatch to worker clusters worker-1, worker-2, " +
				"and no worker LocalQueue team-a/gpu with a worker ClusterQueue is in this plan, so no worker can run them and they wait on the admission check",
			Fix: "create the team's queues in every worker cluster (LocalQueue team-a/gpu, pointing at a ClusterQueue without the MultiKueue check), and set the manager's nominal_quota to the workers' sum"}}},
	}
	// undecided findings name what the check could not see
	p := withMultiKueue(basePlatform(), "16").unknownAt("mlplatform_local_queue.a", "name")
	tests["manager LocalQueue name unknown"] = struct {
		p    platform
		want []Finding
	}{p: p, want: []Finding{{ID: "MLP015", Check: "multikueue-manager-quota-above-workers", Severity: SevUndecided,
		Objects: []string{"mlplatform_local_queue.a", "mlplatform_cluster_queue.a"},
		Message: "could not decide which team LocalQueue team-a/(name (known after apply)) of MultiKueue manager ClusterQueue team-a serves: its namespace or name is (known after apply)",
		Fix:     rules.UndecidedFix}}}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Build(tc.p.plan(t), Options{Prices: pricing.Default()})
			var got []Finding
			for _, f := range r.Checks {
				if f.ID == "MLP015" || f.ID == "MLP016" {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestModulePath(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"mlplatform_local_queue.gpu":                                                        "",
		`module.team["nlp"].mlplatform_local_queue.gpu`:                                     `module.team["nlp"].`,
		`module.w1.module.team["mlplatform_local_queue.x"].mlplatform_local_queue.gpu["a"]`: `module.w1.module.team["mlplatform_local_queue.x"].`,
		`module.m.mlplatform_local_queue.gpu["xmlplatform_local_queue.z"]`:                  `module.m.`,
		`module.t["a\"].b"].mlplatform_local_queue.gpu`:                                     `module.t["a\"].b"].`,
		`module.t[0].module.u["x"].mlplatform_cluster_queue.q[1]`:                           `module.t[0].module.u["x"].`,
	}
	for addr, want := range tests {
		if got := tfplan.ModulePath(addr); got != want {
			t.Errorf("tfplan.ModulePath(%q) = %q, want %q", addr, got, want)
		}
	}
}

// Without a MultiKueue check the report has no MultiKueue section; with one
// it does (the goldens hold its layout).
func TestMultiKueueSectionOnlyWithMultiKueue(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"full", "unknown", "no_pools", "gpu_sharing", "multikueue"} {
		r := buildFile(t, filepath.Join("testdata", name+".json"))
		var b bytes.Buffer
		if err := Render(&b, r, Markdown); err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Contains(b.String(), "## MultiKueue: manager quota vs workers"), name == "multikueue"; got != want {
			t.Errorf("%s: MultiKueue section %v, want %v", name, got, want)
		}
	}
}
