package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// A hand-written platform of one team, clean under every check; each case
// breaks it once, fixes it, or makes a value a check needs unknown.
type objs map[string]map[string]any // address → after

type platform struct {
	after   objs
	unknown map[string]map[string]any // address → after_unknown
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func tolJSON(key string) map[string]any {
	return obj("key", key, "operator", "Exists", "value", nil, "effect", "NoSchedule", "toleration_seconds", nil)
}

func gpuQuotaGroup(flavors ...any) []any {
	var fl []any
	for i := 0; i < len(flavors); i += 2 {
		fl = append(fl, obj("name", flavors[i], "resources", []any{obj("name", "nvidia.com/gpu", "nominal_quota", flavors[i+1], "borrowing_limit", nil, "lending_limit", nil)}))
	}
	return []any{obj("covered_resources", []any{"nvidia.com/gpu"}, "flavors", fl)}
}

func poolJSON(name string, gpu map[string]any, maxNodes, alloc int) map[string]any {
	return obj("name", name, "gpu", gpu, "capacity", "spot", "queued_provisioning", false, "workload_identity", true,
		"autoscaling", obj("max_nodes", maxNodes, "min_nodes", 0), "allocatable_gpus_per_node", alloc,
		"node_selector", obj("cloud.google.com/gke-nodepool", name), "taints", nil,
		"effective_taints", []any{obj("key", "nvidia.com/gpu", "value", "present", "effect", "NoSchedule")})
}

// sharedLabel gives pool h100 and the other pool the node label
// pool-group=gpus, and makes flavor h100 select that label alone: the
// flavor stands for both pools.
func sharedLabel(p platform, other string) platform {
	return p.set("mlplatform_gpu_pool.h100", "labels", obj("pool-group", "gpus")).
		set("mlplatform_gpu_pool."+other, "labels", obj("pool-group", "gpus")).
		set("mlplatform_resource_flavor.h100", "node_labels", obj("pool-group", "gpus"))
}

// withTAS makes flavor h100 topology-aware (GKE's block and host levels) on
// the spot H100 pool, with the given placement.
func withTAS(p platform, placement any) platform {
	return p.set("mlplatform_resource_flavor.h100", "topology_name", "gke-default").
		set("mlplatform_gpu_pool.h100", "machine_type", "a3-highgpu-8g").set("mlplatform_gpu_pool.h100", "placement", placement).
		add("mlplatform_topology.gke", obj("name", "gke-default", "levels", []any{"cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-host", "kubernetes.io/hostname"}))
}

func h100() map[string]any {
	return obj("type", "nvidia-h100-80gb", "count", 8, "partition_size", nil, "sharing", nil, "driver", "default")
}

func basePlatform() platform {
	return platform{after: objs{
		"mlplatform_team_namespace.a": obj("name", "team-a", "team", "a", "owner", nil, "labels", nil, "pod_security_level", "restricted"),
		"mlplatform_cluster_queue.a": obj("name", "team-a", "cohort", nil, "admission_checks", nil,
			"namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "a"), "match_expressions", nil),
			"resource_groups", gpuQuotaGroup("h100", "16")),
		"mlplatform_local_queue.a":             obj("namespace", "team-a", "name", "gpu", "cluster_queue", "team-a"),
		"mlplatform_resource_flavor.h100":      obj("name", "h100", "node_labels", obj("cloud.google.com/gke-nodepool", "h100"), "tolerations", []any{tolJSON("nvidia.com/gpu")}),
		"mlplatform_gpu_pool.h100":             poolJSON("h100", h100(), 2, 8),
		"mlplatform_workload_identity.a":       obj("namespace", "team-a", "kubernetes_service_account", "trainer"),
		"mlplatform_training_network_policy.a": obj("namespace", "team-a", "metadata_server", true, "dns", true),
	}, unknown: map[string]map[string]any{}}
}

func (p platform) plan(t *testing.T) Plan {
	t.Helper()
	addrs := make([]string, 0, len(p.after))
	for a := range p.after {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	var changes []map[string]any
	for _, a := range addrs {
		// module.w1.mlplatform_local_queue.a: type and name are the last two parts
		parts := strings.Split(a, ".")
		typ, name := parts[len(parts)-2], parts[len(parts)-1]
		after := p.after[a]
		u := p.unknown[a]
		if u == nil {
			u = map[string]any{}
		}
		for k := range u {
			after[k] = nil
		}
		changes = append(changes, obj("address", a, "mode", "managed", "type", typ, "name", name,
			"change", obj("actions", []any{"create"}, "before", nil, "after", after, "after_unknown", u)))
	}
	data, err := json.Marshal(obj("format_version", "1.2", "resource_changes", changes))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := ReadPlan(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func (p platform) set(addr string, kv ...any) platform {
	for i := 0; i < len(kv); i += 2 {
		p.after[addr][kv[i].(string)] = kv[i+1]
	}
	return p
}

func (p platform) add(addr string, o map[string]any) platform {
	p.after[addr] = o
	return p
}

func (p platform) unknownAt(addr string, attrs ...string) platform {
	if p.unknown[addr] == nil {
		p.unknown[addr] = map[string]any{}
	}
	for _, a := range attrs {
		p.unknown[addr][a] = true
	}
	return p
}

// sevOf lists the severities of the findings of one check.
func sevOf(r Report, id string) []Severity {
	var out []Severity
	for _, f := range r.Checks {
		if f.ID == id {
			out = append(out, f.Severity)
		}
	}
	return out
}

func TestChecksBaseIsClean(t *testing.T) {
	t.Parallel()
	r := Build(basePlatform().plan(t), Options{Prices: pricing.Default()})
	if diff := cmp.Diff([]Finding(nil), r.Checks); diff != "" {
		t.Errorf("the base platform has findings (-want +got):\n%s", diff)
	}
	var b bytes.Buffer
	if err := Render(&b, r, Markdown); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("### Checks\n\nAll %d checks passed.", CheckCount()); !strings.Contains(b.String(), want) {
		t.Errorf("no %q:\n%s", want, b.String())
	}
}

// A second pool and flavor on the same taint, for MLP007 (a taint another
// flavor of the pool tolerates).
func withDedicatedTaint(p platform, secondTolerates bool) platform {
	taints := obj("dedicated", obj("value", "ml", "effect", "NoSchedule"))
	p = p.set("mlplatform_gpu_pool.h100", "taints", taints)
	p = p.set("mlplatform_resource_flavor.h100", "tolerations", []any{tolJSON("nvidia.com/gpu"), tolJSON("dedicated")})
	tols := []any{tolJSON("nvidia.com/gpu")}
	if secondTolerates {
		tols = append(tols, tolJSON("dedicated"))
	}
	return p.add("mlplatform_resource_flavor.h100_alt", obj("name", "h100-alt", "node_labels", obj("cloud.google.com/gke-nodepool", "h100"), "tolerations", tols))
}

func flexPool(p platform) platform {
	return p.set("mlplatform_gpu_pool.h100", "capacity", "flex_start", "queued_provisioning", true).
		set("mlplatform_resource_flavor.h100", "tolerations", []any{tolJSON("nvidia.com/gpu"), tolJSON("cloud.google.com/gke-queued")})
}

func withCheck(p platform, onFlavors any) platform {
	return p.add("mlplatform_provisioning_admission_check.dws", obj("name", "dws", "provisioning_class", nil)).
		set("mlplatform_cluster_queue.a", "admission_checks", obj("dws", obj("on_flavors", onFlavors)))
}

func withMIG(p platform, order ...any) platform {
	mig := poolJSON("a100-mig", obj("type", "nvidia-tesla-a100", "count", 1, "partition_size", "1g.5gb", "sharing", nil, "driver", "default"), 2, 7)
	mig["node_selector"] = obj("cloud.google.com/gke-nodepool", "a100-mig", "cloud.google.com/gke-gpu-partition-size", "1g.5gb")
	return p.add("mlplatform_gpu_pool.mig", mig).
		add("mlplatform_resource_flavor.mig", obj("name", "a100-mig", "node_labels", obj("cloud.google.com/gke-nodepool", "a100-mig", "cloud.google.com/gke-gpu-partition-size", "1g.5gb"), "tolerations", []any{tolJSON("nvidia.com/gpu")})).
		set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup(order...))
}

func TestChecks(t *testing.T) {
	t.Parallel()
	const (
		E = SevError
		W = SevWarning
		U = SevUndecided
	)
	type tc struct {
		id   string
		p    func() platform
		want []Severity // of check id; nil: the check is silent
	}
	b := basePlatform
	cases := map[string]tc{
		"MLP017 MultiKueue check on the whole queue": {"MLP017", func() platform { return withMultiKueue(b(), "16", "8", "8") }, nil},
		"MLP017 MultiKueue check on every flavor of the queue": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", []any{"h100"})))
		}, nil},
		"MLP017 MultiKueue check with empty on_flavors": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", []any{})))
		}, nil},
		"MLP017 MultiKueue check on some flavors": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", []any{"h100"})),
				"resource_groups", gpuQuotaGroup("h100", "16", "a100", "0"))
		}, []Severity{E}},
		"MLP017 MultiKueue check on some flavors, resource_groups unknown": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", []any{"h100"}))).
				unknownAt("mlplatform_cluster_queue.a", "resource_groups")
		}, []Severity{U}},
		"MLP017 two MultiKueue checks": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").add("mlplatform_multikueue_check.mk2", obj("name", "multikueue-2", "clusters", []any{"worker-3"})).
				set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", nil), "multikueue-2", obj("on_flavors", nil)))
		}, []Severity{E}},
		"MLP017 MultiKueue and provisioning checks": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").add("mlplatform_provisioning_admission_check.dws", obj("name", "dws", "provisioning_class", nil)).
				set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", nil), "dws", obj("on_flavors", []any{"h100"})))
		}, []Severity{E}},
		"MLP017 provisioning check of another class too": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").add("mlplatform_provisioning_admission_check.dws", obj("name", "dws", "provisioning_class", "best-effort.x-k8s.io")).
				set("mlplatform_cluster_queue.a", "admission_checks", obj("multikueue", obj("on_flavors", nil), "dws", obj("on_flavors", nil)))
		}, []Severity{E}},
		"MLP017 provisioning check on a worker queue": {"MLP017", func() platform {
			return withMultiKueue(b(), "16", "8", "8").add("mlplatform_provisioning_admission_check.dws", obj("name", "dws", "provisioning_class", nil)).
				set("module.w1.mlplatform_cluster_queue.a", "admission_checks", obj("dws", obj("on_flavors", nil)))
		}, nil},
		"MLP001 selects another team": {"MLP001", func() platform {
			return b().set("mlplatform_cluster_queue.a", "namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "nlp-research")))
		}, []Severity{E}},
		"MLP001 no selector": {"MLP001", func() platform { return b().set("mlplatform_cluster_queue.a", "namespace_selector", nil) }, []Severity{E}},
		"MLP001 expression selects": {"MLP001", func() platform {
			return b().set("mlplatform_cluster_queue.a", "namespace_selector", obj("match_labels", nil, "match_expressions", []any{obj("key", "mlplatform.dev/team", "operator", "In", "values", []any{"a", "b"})}))
		}, nil},
		"MLP001 {} selects all": {"MLP001", func() platform {
			return b().set("mlplatform_cluster_queue.a", "namespace_selector", obj("match_labels", nil, "match_expressions", nil))
		}, nil},
		"MLP001 fixed":                  {"MLP001", b, nil},
		"MLP001 selector unknown":       {"MLP001", func() platform { return b().unknownAt("mlplatform_cluster_queue.a", "namespace_selector") }, []Severity{U}},
		"MLP001 namespace team unknown": {"MLP001", func() platform { return b().unknownAt("mlplatform_team_namespace.a", "team") }, []Severity{U}},
		"MLP002 queue of another team": {"MLP002", func() platform {
			return b().add("mlplatform_team_namespace.b", obj("name", "team-b", "team", "b")).add("mlplatform_local_queue.b", obj("namespace", "team-b", "name", "gpu", "cluster_queue", "team-a"))
		}, []Severity{E}},
		"MLP002 fixed": {"MLP002", func() platform {
			return b().add("mlplatform_team_namespace.b", obj("name", "team-b", "team", "a")).add("mlplatform_local_queue.b", obj("namespace", "team-b", "name", "gpu", "cluster_queue", "team-a"))
		}, nil},
		"MLP002 namespace unknown":     {"MLP002", func() platform { return b().unknownAt("mlplatform_local_queue.a", "namespace") }, []Severity{U}},
		"MLP002 namespace elsewhere":   {"MLP002", func() platform { return b().set("mlplatform_local_queue.a", "namespace", "team-z") }, []Severity{U}},
		"MLP003 queue not in config":   {"MLP003", func() platform { return b().set("mlplatform_local_queue.a", "cluster_queue", "team-x") }, []Severity{W}},
		"MLP003 fixed":                 {"MLP003", b, nil},
		"MLP003 cluster_queue unknown": {"MLP003", func() platform { return b().unknownAt("mlplatform_local_queue.a", "cluster_queue") }, []Severity{U}},
		"MLP004 flavor not in config": {"MLP004", func() platform {
			return b().set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "8", "a100", "8"))
		}, []Severity{W}},
		"MLP004 fixed": {"MLP004", b, nil},
		"MLP021 topology not in config": {"MLP021", func() platform {
			return b().set("mlplatform_resource_flavor.h100", "topology_name", "gke-default")
		}, []Severity{W}},
		"MLP021 fixed": {"MLP021", func() platform {
			return b().set("mlplatform_resource_flavor.h100", "topology_name", "gke-default").
				add("mlplatform_topology.gke", obj("name", "gke-default", "levels", []any{"cloud.google.com/gce-topology-block", "kubernetes.io/hostname"}))
		}, nil},
		"MLP022 spot H100 pool without compact placement": {"MLP022", func() platform { return withTAS(b(), nil) }, []Severity{W}},
		"MLP022 said by the plan":                         {"MLP022", func() platform { return withTAS(b(), nil).set("mlplatform_gpu_pool.h100", "topology_labels", false) }, []Severity{W}},
		"MLP022 fixed: compact placement":                 {"MLP022", func() platform { return withTAS(b(), "compact") }, nil},
		"MLP022 fixed: hostname only": {"MLP022", func() platform {
			return withTAS(b(), nil).set("mlplatform_topology.gke", "levels", []any{"kubernetes.io/hostname"})
		}, nil},
		"MLP022 a rack level the pool's labels lack": {"MLP022", func() platform {
			return withTAS(b(), "compact").set("mlplatform_topology.gke", "levels", []any{"example.com/rack", "kubernetes.io/hostname"})
		}, []Severity{W}},
		"MLP022 fixed: the pool labels its nodes with the rack": {"MLP022", func() platform {
			return withTAS(b(), "compact").set("mlplatform_topology.gke", "levels", []any{"example.com/rack", "kubernetes.io/hostname"}).
				set("mlplatform_gpu_pool.h100", "labels", obj("example.com/rack", "r1"))
		}, nil},
		"MLP022 topology_labels unknown": {"MLP022", func() platform {
			return withTAS(b(), "compact").unknownAt("mlplatform_gpu_pool.h100", "topology_labels")
		}, []Severity{U}},
		"MLP023 mixed resource group": {"MLP023", func() platform {
			return withTAS(b(), "compact").set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "8", "a100", "8")).
				add("mlplatform_resource_flavor.a100", obj("name", "a100", "node_labels", obj("cloud.google.com/gke-nodepool", "a100"), "tolerations", []any{tolJSON("nvidia.com/gpu")}))
		}, []Severity{W}},
		"MLP023 fixed: every flavor topology-aware": {"MLP023", func() platform {
			return withTAS(b(), "compact").set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "8", "a100", "8")).
				add("mlplatform_resource_flavor.a100", obj("name", "a100", "node_labels", obj("cloud.google.com/gke-nodepool", "a100"), "tolerations", []any{tolJSON("nvidia.com/gpu")}, "topology_name", "gke-default"))
		}, nil},
		"MLP023 topology_name unknown": {"MLP023", func() platform {
			return withTAS(b(), "compact").set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "8", "a100", "8")).
				add("mlplatform_resource_flavor.a100", obj("name", "a100", "node_labels", obj("cloud.google.com/gke-nodepool", "a100"), "tolerations", []any{tolJSON("nvidia.com/gpu")})).
				unknownAt("mlplatform_resource_flavor.a100", "topology_name")
		}, []Severity{U}},
		"MLP021 topology_name unknown": {"MLP021", func() platform {
			return b().set("mlplatform_resource_flavor.h100", "topology_name", "gke-default").unknownAt("mlplatform_resource_flavor.h100", "topology_name")
		}, []Severity{U}},
		"MLP021 topology name unknown": {"MLP021", func() platform {
			return b().set("mlplatform_resource_flavor.h100", "topology_name", "gke-default").
				add("mlplatform_topology.gke", obj("name", "gke-default", "levels", []any{"kubernetes.io/hostname"})).unknownAt("mlplatform_topology.gke", "name")
		}, []Severity{U}},
		"MLP004 flavor name unknown":     {"MLP004", func() platform { return b().unknownAt("mlplatform_resource_flavor.h100", "name") }, []Severity{U}},
		"MLP004 resource_groups unknown": {"MLP004", func() platform { return b().unknownAt("mlplatform_cluster_queue.a", "resource_groups") }, []Severity{U}},
		"MLP005 labels select no pool": {"MLP005", func() platform {
			return b().set("mlplatform_resource_flavor.h100", "node_labels", obj("cloud.google.com/gke-nodepool", "h100-old"))
		}, []Severity{E}},
		"MLP005 fixed":          {"MLP005", b, nil},
		"MLP005 labels unknown": {"MLP005", func() platform { return b().unknownAt("mlplatform_resource_flavor.h100", "node_labels") }, []Severity{U}},
		"MLP006 two GPU types": {"MLP006", func() platform {
			return sharedLabel(b().add("mlplatform_gpu_pool.l4", poolJSON("l4", obj("type", "nvidia-l4", "count", 1), 4, 1)), "l4")
		}, []Severity{W}},
		"MLP006 fixed: same GPUs": {"MLP006", func() platform {
			return sharedLabel(b().add("mlplatform_gpu_pool.h100b", poolJSON("h100b", h100(), 2, 8)), "h100b")
		}, nil},
		"MLP006 gpu unknown": {"MLP006", func() platform {
			return sharedLabel(b().add("mlplatform_gpu_pool.l4", poolJSON("l4", obj("type", "nvidia-l4", "count", 1), 4, 1)), "l4").unknownAt("mlplatform_gpu_pool.l4", "gpu")
		}, []Severity{U}},
		"MLP006 flavor of one GPU type over its pools": {"MLP006", func() platform {
			// only the accelerator label: it stands for every pool of that GPU, all alike
			return b().add("mlplatform_gpu_pool.h100b", poolJSON("h100b", h100(), 2, 8)).
				set("mlplatform_resource_flavor.h100", "node_labels", obj("cloud.google.com/gke-accelerator", "nvidia-h100-80gb"))
		}, nil},
		"MLP007 second flavor misses": {"MLP007", func() platform { return withDedicatedTaint(b(), false) }, []Severity{E}},
		"MLP007 fixed":                {"MLP007", func() platform { return withDedicatedTaint(b(), true) }, nil},
		"MLP007 tolerations unknown": {"MLP007", func() platform {
			return withDedicatedTaint(b(), false).unknownAt("mlplatform_resource_flavor.h100_alt", "tolerations")
		}, []Severity{U, U}},
		"MLP008 taint no flavor tolerates": {"MLP008", func() platform {
			return b().set("mlplatform_gpu_pool.h100", "taints", obj("dedicated", obj("value", "ml", "effect", "NoSchedule")))
		}, []Severity{E}},
		"MLP008 queued taint": {"MLP008", func() platform {
			return withCheck(flexPool(b()), []any{"h100"}).set("mlplatform_resource_flavor.h100", "tolerations", []any{tolJSON("nvidia.com/gpu")})
		}, []Severity{E}},
		"MLP008 PreferNoSchedule is fine": {"MLP008", func() platform {
			return b().set("mlplatform_gpu_pool.h100", "taints", obj("dedicated", obj("value", "ml", "effect", "PreferNoSchedule")))
		}, nil},
		"MLP008 fixed":                    {"MLP008", func() platform { return withDedicatedTaint(b(), true) }, nil},
		"MLP008 taints unknown":           {"MLP008", func() platform { return b().unknownAt("mlplatform_gpu_pool.h100", "taints") }, []Severity{U}},
		"MLP009 flex pool, no check":      {"MLP009", func() platform { return flexPool(b()) }, []Severity{E}},
		"MLP009 check on another flavor":  {"MLP009", func() platform { return withCheck(flexPool(b()), []any{"l4"}) }, []Severity{E}},
		"MLP009 fixed":                    {"MLP009", func() platform { return withCheck(flexPool(b()), []any{"h100"}) }, nil},
		"MLP009 fixed: check on all":      {"MLP009", func() platform { return withCheck(flexPool(b()), nil) }, nil},
		"MLP009 admission_checks unknown": {"MLP009", func() platform { return flexPool(b()).unknownAt("mlplatform_cluster_queue.a", "admission_checks") }, []Severity{U}},
		"MLP010 check on a spot pool":     {"MLP010", func() platform { return withCheck(b(), []any{"h100"}) }, []Severity{E}},
		"MLP010 fixed":                    {"MLP010", func() platform { return withCheck(flexPool(b()), []any{"h100"}) }, nil},
		"MLP010 other class": {"MLP010", func() platform {
			return withCheck(b(), []any{"h100"}).set("mlplatform_provisioning_admission_check.dws", "provisioning_class", "check-capacity.autoscaling.x-k8s.io")
		}, nil},
		"MLP010 queued unknown": {"MLP010", func() platform {
			return withCheck(b(), []any{"h100"}).unknownAt("mlplatform_gpu_pool.h100", "queued_provisioning")
		}, []Severity{U}},
		"MLP019 half a GPU": {"MLP019", func() platform {
			return b().set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "500m"))
		}, []Severity{E}},
		"MLP019 fixed: whole GPUs": {"MLP019", func() platform {
			return b().set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "16000m"))
		}, nil},
		"MLP020 no Google API reachable": {"MLP020", func() platform {
			return b().set("mlplatform_training_network_policy.a", "google_apis", "none")
		}, []Severity{E}},
		"MLP020 fixed: public HTTPS": {"MLP020", func() platform {
			return b().set("mlplatform_training_network_policy.a", "google_apis", "none").set("mlplatform_training_network_policy.a", "public_https_egress", true)
		}, nil},
		"MLP020 fixed: an extra hole to private.googleapis.com": {"MLP020", func() platform {
			return b().set("mlplatform_training_network_policy.a", "google_apis", "none").
				set("mlplatform_training_network_policy.a", "extra_egress", []any{obj("cidrs", []any{"199.36.153.8/30"}, "ports", []any{443}, "protocol", "TCP")})
		}, nil},
		"MLP020 an extra hole on another port": {"MLP020", func() platform {
			return b().set("mlplatform_training_network_policy.a", "google_apis", "none").
				set("mlplatform_training_network_policy.a", "extra_egress", []any{obj("cidrs", []any{"199.36.153.8/30"}, "ports", []any{80}, "protocol", "TCP")})
		}, []Severity{E}},
		"MLP020 google_apis unknown": {"MLP020", func() platform {
			return b().unknownAt("mlplatform_training_network_policy.a", "google_apis")
		}, []Severity{U}},
		"MLP011 metadata server off": {"MLP011", func() platform { return b().set("mlplatform_training_network_policy.a", "metadata_server", false) }, []Severity{E}},
		"MLP011 dns off":             {"MLP011", func() platform { return b().set("mlplatform_training_network_policy.a", "dns", false) }, []Severity{E}},
		"MLP011 fixed: defaults": {"MLP011", func() platform {
			return b().set("mlplatform_training_network_policy.a", "metadata_server", nil, "dns", nil)
		}, nil},
		"MLP011 metadata_server unknown":   {"MLP011", func() platform { return b().unknownAt("mlplatform_training_network_policy.a", "metadata_server") }, []Severity{U}},
		"MLP012 pool without metadata":     {"MLP012", func() platform { return b().set("mlplatform_gpu_pool.h100", "workload_identity", false) }, []Severity{E}},
		"MLP012 fixed":                     {"MLP012", b, nil},
		"MLP012 workload_identity unknown": {"MLP012", func() platform { return b().unknownAt("mlplatform_gpu_pool.h100", "workload_identity") }, []Severity{U}},
		"MLP013 quota above the pools": {"MLP013", func() platform {
			return b().set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "24"))
		}, []Severity{E}},
		"MLP013 fixed": {"MLP013", func() platform {
			return b().set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "24")).set("mlplatform_gpu_pool.h100", "autoscaling", obj("max_nodes", 3))
		}, nil},
		"MLP013 max_nodes unknown":     {"MLP013", func() platform { return b().unknownAt("mlplatform_gpu_pool.h100", "autoscaling") }, []Severity{U}},
		"MLP014 slices first":          {"MLP014", func() platform { return withMIG(b(), "a100-mig", "7", "h100", "8") }, []Severity{W}},
		"MLP014 fixed: slices last":    {"MLP014", func() platform { return withMIG(b(), "h100", "8", "a100-mig", "7") }, nil},
		"MLP015 manager above workers": {"MLP015", func() platform { return withMultiKueue(b(), "24", "8", "8") }, []Severity{E}},
		"MLP015 fixed":                 {"MLP015", func() platform { return withMultiKueue(b(), "16", "8", "8") }, nil},
		"MLP015 no worker queue":       {"MLP015", func() platform { return withMultiKueue(b(), "16") }, []Severity{E}},
		"MLP016 manager below workers": {"MLP016", func() platform { return withMultiKueue(b(), "8", "8", "8") }, []Severity{W}},
		"MLP016 fixed":                 {"MLP016", func() platform { return withMultiKueue(b(), "16", "8", "8") }, nil},
		// Defaults, fall-backs and the paths the cases above do not reach.
		"MLP001 pod_security_level default": {"MLP001", func() platform {
			return b().set("mlplatform_team_namespace.a", "pod_security_level", nil).
				set("mlplatform_cluster_queue.a", "namespace_selector", obj("match_labels", obj("pod-security.kubernetes.io/enforce", "restricted")))
		}, nil},
		"MLP001 namespaces managed elsewhere": {"MLP001", func() platform {
			p := b().set("mlplatform_cluster_queue.a", "namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "nlp-research")))
			delete(p.after, "mlplatform_team_namespace.a")
			return p
		}, nil},
		"MLP003 a queue's name unknown": {"MLP003", func() platform {
			return b().set("mlplatform_local_queue.a", "cluster_queue", "team-x").unknownAt("mlplatform_cluster_queue.a", "name")
		}, []Severity{U}},
		"MLP005 flavor without node_labels": {"MLP005", func() platform { return b().set("mlplatform_resource_flavor.h100", "node_labels", nil) }, nil},
		"MLP008 effective_taints": {"MLP008", func() platform {
			return b().set("mlplatform_gpu_pool.h100", "effective_taints", []any{
				obj("key", "nvidia.com/gpu", "value", "present", "effect", "NoSchedule"), obj("key", "dedicated", "value", "ml", "effect", "NoSchedule")})
		}, []Severity{E}},
		"MLP008 tolerations not in the plan": {"MLP008", func() platform {
			p := b().set("mlplatform_gpu_pool.h100", "taints", obj("dedicated", obj("value", "ml", "effect", "NoSchedule")))
			delete(p.after["mlplatform_resource_flavor.h100"], "tolerations")
			return p
		}, nil},
		"MLP010 check on every flavor":     {"MLP010", func() platform { return withCheck(b(), nil) }, []Severity{E}},
		"MLP012 workload_identity default": {"MLP012", func() platform { return b().set("mlplatform_gpu_pool.h100", "workload_identity", nil) }, nil},
		"MLP012 zero quota on the pool": {"MLP012", func() platform {
			return b().set("mlplatform_gpu_pool.h100", "workload_identity", false).set("mlplatform_cluster_queue.a", "resource_groups", gpuQuotaGroup("h100", "0"))
		}, nil},
		"MLP014 reported once per sliced run": {"MLP014", func() platform {
			return withMIG(b(), "a100-mig", "7", "h100", "8", "h100-b", "8").
				add("mlplatform_resource_flavor.h100_b", obj("name", "h100-b", "node_labels", obj("cloud.google.com/gke-nodepool", "h100"), "tolerations", []any{tolJSON("nvidia.com/gpu")}))
		}, []Severity{W}},
		"MLP014 partition unknown": {"MLP014", func() platform {
			return withMIG(b(), "a100-mig", "7", "h100", "8").unknownAt("mlplatform_gpu_pool.mig", "gpu", "allocatable_gpus_per_node")
		}, []Severity{U}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := Build(c.p().plan(t), Options{Prices: pricing.Default()})
			if diff := cmp.Diff(c.want, sevOf(r, c.id)); diff != "" {
				t.Errorf("%s findings (-want +got):\n%s\nall findings: %+v", c.id, diff, r.Checks)
			}
			failed := false
			for _, s := range c.want {
				failed = failed || s != SevUndecided
			}
			if c.want != nil && r.ChecksFailed() != failed && onlyCheck(r, c.id) {
				t.Errorf("ChecksFailed() = %v, want %v", r.ChecksFailed(), failed)
			}
		})
	}
	// every check has a case that finds something
	seen := map[string]bool{}
	for _, c := range cases {
		if c.want != nil {
			seen[c.id] = true
		}
	}
	for _, d := range rules.Rules {
		if !seen[d.ID] && d.In() != rules.LiveOnly {
			t.Errorf("%s has no test case that finds something", d.ID)
		}
	}
}

// onlyCheck: every finding is of check id.
func onlyCheck(r Report, id string) bool {
	for _, f := range r.Checks {
		if f.ID != id {
			return false
		}
	}
	return true
}

func TestCheckMessage(t *testing.T) {
	t.Parallel()
	p := basePlatform().set("mlplatform_cluster_queue.a", "namespace_selector", obj("match_labels", obj("mlplatform.dev/team", "nlp-research")))
	r := Build(p.plan(t), Options{Prices: pricing.Default()})
	want := []Finding{{ID: "MLP001", Check: "queue-selects-no-namespace", Severity: SevError,
		Objects: []string{"mlplatform_cluster_queue.a", "mlplatform_local_queue.a"},
		Message: "jobs submitted to team-a/gpu will never be admitted: ClusterQueue team-a selects namespaces labelled mlplatform.dev/team=nlp-research, and no team namespace has that label",
		Fix:     "set the ClusterQueue's namespace_selector to its team namespace's selector (mlplatform_team_namespace.TEAM.selector), or correct the team namespace's team or labels"}}
	if diff := cmp.Diff(want, r.Checks); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestChecksDocumented: the docs page has a section per check, with the
// anchor the SARIF report's helpUri links to.
func TestChecksDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "checks.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rules.Rules {
		anchor := `<a id="` + strings.ToLower(d.ID) + `"></a>`
		if !strings.Contains(string(doc), anchor+"\n\n### "+d.ID+" "+d.Slug+" (") {
			t.Errorf("templates/guides/checks.md.tmpl has no section %q after %s", "### "+d.ID+" "+d.Slug, anchor)
		}
	}
}

// MLP004 names the kind of the object whose flavor is missing.
func TestFlavorMissingNamesCohort(t *testing.T) {
	t.Parallel()
	p := basePlatform().add("mlplatform_cohort.org", obj("name", "org", "parent", nil, "resource_groups", gpuQuotaGroup("a100", "8")))
	r := Build(p.plan(t), Options{Prices: pricing.Default()})
	var got []string
	for _, f := range r.Checks {
		if f.ID == "MLP004" {
			got = append(got, f.Message)
		}
	}
	if len(got) != 1 || !strings.HasPrefix(got[0], "Cohort org admits no job while ResourceFlavor a100 does not exist") || !strings.Contains(got[0], "keeps a Cohort with a missing flavor inactive") {
		t.Errorf("MLP004 findings %q, want one naming Cohort org", got)
	}
}

// A data source in resource_changes is read, not managed: no check sees it.
func TestChecksSkipDataSources(t *testing.T) {
	t.Parallel()
	plan := basePlatform().plan(t)
	plan.ResourceChanges = append(plan.ResourceChanges, ResourceChange{Address: "data.mlplatform_local_queue.x", Mode: "data", Type: "mlplatform_local_queue", Name: "x",
		Change: Change{After: obj("namespace", "team-a", "name", "x", "cluster_queue", "team-x")}})
	if r := Build(plan, Options{Prices: pricing.Default()}); len(r.Checks) != 0 {
		t.Errorf("findings on a data source: %+v", r.Checks)
	}
}

// The guide's prose says how many rules there are: it is the number of rules.
func TestChecksGuideCount(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "checks.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("rules, %d today)", rules.Count()); !strings.Contains(string(doc), want) {
		t.Errorf("templates/guides/checks.md.tmpl does not say %q", want)
	}
}

// The capacity table says which flavors are topology-aware, and with which
// Topology; a flavor without one reads as before.
func TestCapacityShowsTopologyAwareness(t *testing.T) {
	t.Parallel()
	plain := Build(basePlatform().plan(t), Options{Prices: pricing.Default()})
	if got := plain.Capacity[0].Topology; got != "" {
		t.Errorf("a flavor without topology_name: Topology %q, want none", got)
	}
	if out := render(t, plain); strings.Contains(out, "topology-aware") {
		t.Errorf("a report without topology-aware flavors speaks of them:\n%s", out)
	}
	p := basePlatform().set("mlplatform_resource_flavor.h100", "topology_name", "gke-default").
		add("mlplatform_topology.gke", obj("name", "gke-default", "levels", []any{"cloud.google.com/gce-topology-block", "kubernetes.io/hostname"}))
	r := Build(p.plan(t), Options{Prices: pricing.Default()})
	if diff := cmp.Diff("Topology gke-default", r.Capacity[0].Topology); diff != "" {
		t.Errorf("Topology (-want +got):\n%s", diff)
	}
	out := render(t, r)
	for _, want := range []string{"h100, topology-aware (Topology gke-default)", "Topology-aware: Kueue admits a gang whose pods ask for kueue.x-k8s.io/podset-required-topology"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	u := basePlatform().set("mlplatform_resource_flavor.h100", "topology_name", "x").unknownAt("mlplatform_resource_flavor.h100", "topology_name")
	if got := Build(u.plan(t), Options{Prices: pricing.Default()}).Capacity[0].Topology; got != "Topology (known after apply)" {
		t.Errorf("topology_name unknown: %q", got)
	}
}
