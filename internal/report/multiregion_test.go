package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// withConfiguration gives the plan a configuration in which each resource
// (by address, instance keys dropped) has the provider configuration key
// of keys; the others have none.
func withConfiguration(p Plan, keys map[string]string) Plan {
	type tree struct {
		resources []ConfigResource
		calls     map[string]*tree
	}
	root := &tree{calls: map[string]*tree{}}
	for addr, key := range keys {
		m := root
		rest := tfplan.StripKeys(addr)
		for strings.HasPrefix(rest, "module.") {
			rest = strings.TrimPrefix(rest, "module.")
			name := rest[:strings.Index(rest, ".")]
			rest = rest[len(name)+1:]
			if m.calls[name] == nil {
				m.calls[name] = &tree{calls: map[string]*tree{}}
			}
			m = m.calls[name]
		}
		m.resources = append(m.resources, ConfigResource{Address: rest, ProviderConfigKey: key})
	}
	var conv func(t *tree) ConfigModule
	conv = func(t *tree) ConfigModule {
		m := ConfigModule{Resources: t.resources}
		for name, c := range t.calls {
			if m.ModuleCalls == nil {
				m.ModuleCalls = map[string]ModuleCall{}
			}
			m.ModuleCalls[name] = ModuleCall{Module: conv(c)}
		}
		return m
	}
	p.Configuration = &Configuration{RootModule: conv(root)}
	return p
}

// multiRegion is examples/multi-region in small: a manager (root module,
// mlplatform.manager) with team-a's MultiKueue ClusterQueue on flavor h100,
// which no pool backs, and workers europe and us, each with a pool and a
// flavor named h100-spot in the root module and team-a's queues in a module
// (module.team_europe["a"], module.team_us["a"]).
func multiRegion(europeGPUs, usGPUs string) (platform, map[string]string) {
	p := platform{after: objs{
		"mlplatform_multikueue_check.mk":                            obj("name", "multikueue", "clusters", []any{"europe", "us"}),
		"mlplatform_resource_flavor.manager_h100":                   obj("name", "h100", "node_labels", nil, "tolerations", nil),
		"module.team_manager[\"a\"].mlplatform_team_namespace.this": obj("name", "team-a", "team", "a", "owner", nil, "labels", nil, "pod_security_level", "restricted"),
		"module.team_manager[\"a\"].mlplatform_cluster_queue.this": obj("name", "team-a", "cohort", nil,
			"admission_checks", obj("multikueue", obj("on_flavors", nil)),
			"namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "a"), "match_expressions", nil),
			"resource_groups", gpuQuotaGroup("h100", "16")),
		"module.team_manager[\"a\"].mlplatform_local_queue.gpu": obj("namespace", "team-a", "name", "gpu", "cluster_queue", "team-a"),
	}, unknown: map[string]map[string]any{}}
	keys := map[string]string{
		"mlplatform_multikueue_check.mk":                            "mlplatform.manager",
		"mlplatform_resource_flavor.manager_h100":                   "mlplatform.manager",
		"module.team_manager[\"a\"].mlplatform_team_namespace.this": "mlplatform.manager",
		"module.team_manager[\"a\"].mlplatform_cluster_queue.this":  "mlplatform.manager",
		"module.team_manager[\"a\"].mlplatform_local_queue.gpu":     "mlplatform.manager",
	}
	for _, w := range []struct{ name, location, gpus string }{{"europe", "europe-west4", europeGPUs}, {"us", "us-east4", usGPUs}} {
		pool := poolJSON("h100-spot", h100(), 2, 8)
		pool["project"], pool["location"], pool["cluster"] = "proj", w.location, "worker-"+w.name
		mod := "module.team_" + w.name + "[\"a\"]."
		p = p.add("mlplatform_gpu_pool."+w.name+"_h100", pool).
			add("mlplatform_resource_flavor."+w.name+"_h100", obj("name", "h100-spot", "node_labels", obj("cloud.google.com/gke-nodepool", "h100-spot"), "tolerations", []any{tolJSON("nvidia.com/gpu")})).
			add(mod+"mlplatform_team_namespace.this", obj("name", "team-a", "team", "a", "owner", nil, "labels", nil, "pod_security_level", "restricted")).
			add(mod+"mlplatform_cluster_queue.this", obj("name", "team-a", "cohort", nil, "admission_checks", nil,
				"namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "a"), "match_expressions", nil),
				"resource_groups", gpuQuotaGroup("h100-spot", w.gpus))).
			add(mod+"mlplatform_local_queue.gpu", obj("namespace", "team-a", "name", "gpu", "cluster_queue", "team-a"))
		for _, a := range []string{"mlplatform_gpu_pool." + w.name + "_h100", "mlplatform_resource_flavor." + w.name + "_h100",
			mod + "mlplatform_team_namespace.this", mod + "mlplatform_cluster_queue.this", mod + "mlplatform_local_queue.gpu"} {
			keys[a] = "mlplatform." + w.name
		}
	}
	return p, keys
}

func TestClusterKeys(t *testing.T) {
	t.Parallel()
	p, keys := multiRegion("8", "8")
	plan := withConfiguration(p.plan(t), keys)
	got := map[string]string{}
	ck := tfplan.ClusterKeysOf(plan)
	for _, rc := range plan.ResourceChanges {
		got[rc.Address] = ck.Of(rc.Address)
	}
	if diff := cmp.Diff(keys, got); diff != "" {
		t.Errorf("cluster keys (-want +got):\n%s", diff)
	}
	if got := tfplan.ClusterKeysOf(p.plan(t)).Of("mlplatform_gpu_pool.europe_h100"); got != "" {
		t.Errorf("without configuration: %q, want \"\"", got)
	}
	// A resource deleted from the configuration takes its module's cluster;
	// a deleted root resource, none.
	for addr, want := range map[string]string{
		`module.team_europe["a"].mlplatform_resource_flavor.gone`: "mlplatform.europe",
		`mlplatform_resource_flavor.gone`:                         "",
	} {
		if got := ck.Of(addr); got != want {
			t.Errorf("deleted %s: cluster %q, want %q", addr, got, want)
		}
	}
	// One provider configuration is one cluster: nothing to tell apart, no labels.
	one := map[string]string{}
	for a := range keys {
		one[a] = "mlplatform"
	}
	if ck := tfplan.ClusterKeysOf(withConfiguration(p.plan(t), one)); ck != nil {
		t.Errorf("a plan of one provider configuration has cluster keys %v", ck)
	}
}

func TestStripKeys(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		`mlplatform_gpu_pool.h100`:                              `mlplatform_gpu_pool.h100`,
		`module.team["nlp"].mlplatform_cluster_queue.this`:      `module.team.mlplatform_cluster_queue.this`,
		`module.t["a\"].b"].module.u[0].mlplatform_x.y["k[1]"]`: `module.t.module.u.mlplatform_x.y`,
	} {
		if got := tfplan.StripKeys(addr); got != want {
			t.Errorf("tfplan.StripKeys(%q) = %q, want %q", addr, got, want)
		}
	}
}

// Same-named pools in two clusters are two cost rows, labelled with where
// they are; same-named flavors are a capacity row per cluster, each with its
// cluster's queues and pools; the manager's queues are left out and its
// flavor says so.
func TestMultiRegionCapacityAndCost(t *testing.T) {
	t.Parallel()
	p, keys := multiRegion("16", "24")
	r := Build(withConfiguration(p.plan(t), keys), Options{Prices: pricing.Default()})
	type row struct{ Flavor, Admissible, Provided, Pools, Status string }
	var got []row
	for _, c := range r.Capacity {
		got = append(got, row{r.flavorLabel(c), c.Admissible.After.Text(unset), c.Provided.After.Text(unset), strings.Join(c.Pools, ","), c.Status})
	}
	want := []row{
		{"h100 (mlplatform.manager)", "16", unset, "", managerFlavorStatus},
		{"h100-spot (mlplatform.europe)", "16", "16", "h100-spot", "ok (0 spare)"},
		{"h100-spot (mlplatform.us)", "24", "16", "h100-spot", "over-commit: queues may admit 24 GPUs, pools provide 16 (8 short)"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("capacity (-want +got):\n%s", diff)
	}
	var pools []string
	for _, c := range r.Costs {
		pools = append(pools, c.Pool+": "+c.GPUs.After.Text(unset))
	}
	if diff := cmp.Diff([]string{"h100-spot (proj/europe-west4/worker-europe): 16", "h100-spot (proj/us-east4/worker-us): 16"}, pools); diff != "" {
		t.Errorf("cost rows (-want +got):\n%s", diff)
	}
	one, _ := poolCost(&poolState{GPUType: "nvidia-h100-80gb", Capacity: "spot", MaxNodes: 2, MaxKnown: true, GPUCount: 8, CountKnown: true}, pricing.Default())
	if got, want := r.CostTotal.Hourly.After.USD, 2*one.USD; got != want || want == 0 {
		t.Errorf("hourly total = %v, want %v (two pools)", got, want)
	}
	// without configuration, the pools are still two rows
	r = Build(p.plan(t), Options{Prices: pricing.Default()})
	if len(r.Costs) != 2 {
		t.Errorf("without configuration: %d cost rows, want 2", len(r.Costs))
	}
}

// Checks look a name up in the referring resource's cluster and module:
// team-a's LocalQueue in us is checked against us's ClusterQueue team-a,
// not the first ClusterQueue of that name (the manager's).
func TestMultiRegionLookups(t *testing.T) {
	t.Parallel()
	const us = `module.team_us["a"].`
	p, keys := multiRegion("8", "8")
	p = p.set(us+"mlplatform_cluster_queue.this", "namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "b"), "match_expressions", nil)).
		add(us+"mlplatform_team_namespace.b", obj("name", "team-b", "team", "b", "owner", nil, "labels", nil, "pod_security_level", "restricted"))
	keys[us+"mlplatform_team_namespace.b"] = "mlplatform.us"
	for name, plan := range map[string]Plan{"with configuration": withConfiguration(p.plan(t), keys), "by module": p.plan(t)} {
		r := Build(plan, Options{Prices: pricing.Default()})
		var got [][]string
		for _, f := range r.Checks {
			if f.ID == "MLP002" {
				got = append(got, f.Objects)
			}
		}
		want := [][]string{{us + "mlplatform_local_queue.gpu", us + "mlplatform_cluster_queue.this", us + "mlplatform_team_namespace.this"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: MLP002 resources (-want +got):\n%s", name, diff)
		}
	}
}

// A flavor's pools are its cluster's: the flavors of both workers are in the
// root module and select pools of the same name, so only the cluster tells
// that us's 24 GPUs of quota face us's 16 GPUs, not both workers' 32.
func TestMultiRegionPoolsOfFlavorByCluster(t *testing.T) {
	t.Parallel()
	p, keys := multiRegion("16", "24")
	r := Build(withConfiguration(p.plan(t), keys), Options{Prices: pricing.Default()})
	var got [][]string
	for _, f := range r.Checks {
		if f.ID == "MLP013" {
			got = append(got, f.Objects)
		}
	}
	want := [][]string{{`module.team_us["a"].mlplatform_cluster_queue.this`, "mlplatform_resource_flavor.us_h100", "mlplatform_gpu_pool.us_h100"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MLP013 resources (-want +got):\n%s\nall findings: %+v", diff, r.Checks)
	}
}

// testdata/real_multi_region.json is a real plan of examples/multi-region
// (terraform show -json, against `mlplatform sandbox up --workers 2`), with
// the manager's quota changed to the workers' sum + 8 for team vision and - 8
// for team nlp; kept are format_version, resource_changes and, of the
// configuration, each resource's address and provider_config_key. The
// manager, europe and us are three provider aliases; the pools and flavors
// of both workers share a name and are in the root module.
func TestRealMultiRegionPlan(t *testing.T) {
	t.Parallel()
	r := buildFile(t, "testdata/real_multi_region.json")
	var b bytes.Buffer
	if err := Render(&b, r, Markdown); err != nil {
		t.Fatal(err)
	}
	golden(t, "real_multi_region.md", b.String())
	var capacity, findings []string
	for _, c := range r.Capacity {
		capacity = append(capacity, r.flavorLabel(c)+": "+c.Admissible.After.Text(unset)+" / "+c.Provided.After.Text(unset)+": "+c.Status)
	}
	if diff := cmp.Diff([]string{
		"h100 (mlplatform.manager): 32 / —: " + managerFlavorStatus,
		"h100-spot (mlplatform.europe): 16 / 16: ok (0 spare)",
		"h100-spot (mlplatform.us): 16 / 16: ok (0 spare)",
	}, capacity); diff != "" {
		t.Errorf("capacity (-want +got):\n%s", diff)
	}
	if got := len(r.Costs); got != 2 {
		t.Errorf("%d cost rows, want 2 (a pool per worker)", got)
	}
	if got := fmt.Sprintf("%.2f", r.CostTotal.Hourly.After.USD); got != "142.37" {
		t.Errorf("hourly total $%s, want $142.37 (2 pools of 16 H100)", got)
	}
	for _, f := range r.Checks {
		findings = append(findings, f.ID+" "+string(f.Severity)+" "+strings.SplitN(f.Message, ":", 2)[0])
	}
	if diff := cmp.Diff([]string{"MLP015 error team team-vision/gpu", "MLP016 warning team team-nlp/gpu"}, findings); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
}
