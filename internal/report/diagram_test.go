package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// A platform of the model built by hand: teams (namespace, LocalQueue gpu,
// ClusterQueue) with GPU quota on flavors, each flavor standing for the
// pool of its name.
type dplat struct{ pl *model.Platform }

func newPlat() dplat { return dplat{&model.Platform{}} }

func (d dplat) team(name, cohort string, quota ...string) dplat {
	d.namespace(name)
	d.localQueue(name, name)
	return d.queue(name, cohort, quota...)
}

func (d dplat) namespace(name string) dplat {
	d.pl.Namespaces = append(d.pl.Namespaces, &model.Namespace{Src: model.Src{Address: "mlplatform_team_namespace." + name, Kind: "Namespace", Name: name},
		Spec: spec.TeamNamespace{Name: name}, Unknown: model.Unknown{}})
	return d
}

func (d dplat) localQueue(ns, queue string) dplat {
	d.pl.LocalQueues = append(d.pl.LocalQueues, &model.LocalQueue{Src: model.Src{Address: "mlplatform_local_queue." + ns, Kind: "LocalQueue", Name: ns + "/gpu"},
		Spec: spec.LocalQueue{Namespace: ns, Name: "gpu", ClusterQueue: queue}, Unknown: model.Unknown{}})
	return d
}

// queue is a ClusterQueue with quota: flavor, nominal GPUs, flavor, ...
func (d dplat) queue(name, cohort string, quota ...string) dplat {
	q := &model.ClusterQueue{Src: model.Src{Address: "mlplatform_cluster_queue." + name, Kind: "ClusterQueue", Name: name},
		Spec: spec.ClusterQueue{Name: name, Cohort: cohort}, Unknown: model.Unknown{}}
	g := spec.ResourceGroup{CoveredResources: []string{spec.GPUResource}}
	for i := 0; i+1 < len(quota); i += 2 {
		g.Flavors = append(g.Flavors, spec.FlavorQuotas{Name: quota[i], Resources: []spec.ResourceQuota{{Name: spec.GPUResource, NominalQuota: quota[i+1]}}})
	}
	q.Spec.ResourceGroups = []spec.ResourceGroup{g}
	d.pl.Queues = append(d.pl.Queues, q)
	return d
}

// pool is a pool and the flavor of its name that stands for it.
func (d dplat) pool(name, gpu string, perNode, maxNodes int) dplat {
	d.pl.Flavors = append(d.pl.Flavors, &model.Flavor{Src: model.Src{Address: "mlplatform_resource_flavor." + name, Kind: "ResourceFlavor", Name: name},
		Spec: spec.ResourceFlavor{Name: name, NodeLabels: map[string]string{spec.NodePoolLabel: name}}, Unknown: model.Unknown{}})
	d.pl.Pools = append(d.pl.Pools, &model.Pool{Src: model.Src{Address: "mlplatform_gpu_pool." + name, Kind: "node pool", Name: name},
		Spec: spec.GPUPool{Name: name, GPU: spec.GPU{Type: gpu, Count: perNode}, Autoscaling: spec.Autoscaling{MaxNodes: maxNodes}},
		GPUs: true, AllocatablePerNode: int64(perNode), Unknown: model.Unknown{}})
	return d
}

// teams adds n teams team-01, ... in a cohort with gpus on flavor h100,
// but for the quota of the teams in except.
func (d dplat) teams(n int, cohort, gpus string, except map[int]string) dplat {
	for i := 1; i <= n; i++ {
		q := gpus
		if x, ok := except[i]; ok {
			q = x
		}
		d.team(fmt.Sprintf("team-%02d", i), cohort, "h100", q)
	}
	return d
}

func finding(objects ...string) []rules.Finding {
	return []rules.Finding{{ID: "MLP000", Severity: rules.SevError, Objects: objects}}
}

type diagramCase struct {
	before, after *model.Platform
	findings      []rules.Finding
	want          string
}

func diagramCases() map[string]diagramCase {
	small := func() dplat {
		return newPlat().team("team-a", "research", "h100", "8").pool("h100", "nvidia-h100-80gb", 8, 2)
	}
	unknown := small()
	unknown.pl.Queues[0].Unknown[model.QuotaPath("h100", spec.GPUResource, "nominal_quota")] = true
	unknown.pl.Queues[0].Unknown["cohort"] = true
	unknown.pl.Flavors[0].Unknown["node_labels"] = true
	shared := func(n int) dplat {
		d := newPlat().queue("shared", "", "h100", "64").pool("h100", "nvidia-h100-80gb", 8, 8)
		for i := 1; i <= n; i++ {
			d.namespace(fmt.Sprintf("team-%02d", i)).localQueue(fmt.Sprintf("team-%02d", i), "shared")
		}
		return d
	}
	odd := newPlat().namespace(`a"b<c>#d&e`+"`").localQueue(`a"b<c>#d&e`+"`", "missing-queue")
	return map[string]diagramCase{
		"unchanged": {before: small().pl, after: small().pl, want: `flowchart LR
  ns_team_a("namespace team-a")
  lq_team_a_gpu["LocalQueue gpu"]
  subgraph cohort_research["cohort research"]
    cq_team_a(["ClusterQueue team-a"])
  end
  fl_h100{{"flavor h100"}}
  pool_h100[("pool h100<br/>nvidia-h100-80gb")]
  ns_team_a --> lq_team_a_gpu
  lq_team_a_gpu --> cq_team_a
  cq_team_a -->|"8"| fl_h100
  fl_h100 -->|"16"| pool_h100
`},
		"quota and pool changed, finding": {
			before:   small().pl,
			after:    newPlat().team("team-a", "research", "h100", "16").pool("h100", "nvidia-h100-80gb", 8, 4).pl,
			findings: finding("mlplatform_cluster_queue.team-a", "mlplatform_resource_flavor.h100"),
			want: `flowchart LR
  ns_team_a("namespace team-a")
  lq_team_a_gpu["LocalQueue gpu"]
  subgraph cohort_research["cohort research"]
    cq_team_a(["ClusterQueue team-a"])
  end
  fl_h100{{"flavor h100"}}
  pool_h100[("pool h100<br/>nvidia-h100-80gb")]
  ns_team_a --> lq_team_a_gpu
  lq_team_a_gpu --> cq_team_a
  cq_team_a -->|"8 → 16"| fl_h100
  fl_h100 -->|"16 → 32"| pool_h100
  classDef changed stroke:#d97706,stroke-width:3px
  classDef finding fill:#fee2e2,stroke:#b91c1c,stroke-width:3px
  class cq_team_a,pool_h100 changed
  class cq_team_a,fl_h100 finding
  linkStyle 2,3 stroke:#d97706,stroke-width:3px
`},
		"known after apply": {before: newPlat().pl, after: unknown.pl, want: `flowchart LR
  ns_team_a("namespace team-a (new)")
  lq_team_a_gpu["LocalQueue gpu (new)"]
  subgraph cohort_Unknown["cohort (known after apply)"]
    cq_team_a(["ClusterQueue team-a (new)"])
  end
  fl_h100{{"flavor h100 (new)"}}
  pool_h100[("pool h100 (new)<br/>nvidia-h100-80gb")]
  ns_team_a --> lq_team_a_gpu
  lq_team_a_gpu --> cq_team_a
  cq_team_a -->|"— → (known after apply)"| fl_h100
  fl_h100 -.->|"(known after apply)"| pool_h100
  classDef added stroke:#15803d,stroke-width:3px
  class ns_team_a,lq_team_a_gpu,cq_team_a,fl_h100,pool_h100 added
  linkStyle 0,1,2,3 stroke:#d97706,stroke-width:3px
`},
		"escaped names, missing objects": {before: odd.pl, after: odd.pl, want: `flowchart LR
  ns_a_b_c_d_e("namespace a#quot;b#lt;c#gt;#35;d#amp;e#96;")
  lq_a_b_c_d_e_gpu["LocalQueue gpu"]
  cq_ref_missing_queue(["ClusterQueue missing-queue (not in this plan)"])
  ns_a_b_c_d_e --> lq_a_b_c_d_e_gpu
  lq_a_b_c_d_e_gpu --> cq_ref_missing_queue
  classDef missing stroke:#b91c1c,stroke-dasharray:4 4
  class cq_ref_missing_queue missing
`},
		"50 teams in a cohort: the unchanged ones fold": {
			before:   newPlat().teams(50, "research", "8", nil).pool("h100", "nvidia-h100-80gb", 8, 50).pl,
			after:    newPlat().teams(50, "research", "8", map[int]string{7: "16"}).pool("h100", "nvidia-h100-80gb", 8, 50).pl,
			findings: finding("mlplatform_local_queue.team-23"),
			want: `flowchart LR
  ns_team_07("namespace team-07")
  ns_team_23("namespace team-23")
  ns_fold_ns_research_same("48 team namespaces")
  lq_team_07_gpu["LocalQueue gpu"]
  lq_team_23_gpu["LocalQueue gpu"]
  lq_fold_lq_research_same["48 LocalQueues"]
  subgraph cohort_research["cohort research"]
    cq_team_07(["ClusterQueue team-07"])
    cq_team_23(["ClusterQueue team-23"])
    cq_fold_cq_research_same(["48 ClusterQueues"])
  end
  fl_h100{{"flavor h100"}}
  pool_h100[("pool h100<br/>nvidia-h100-80gb")]
  ns_team_07 --> lq_team_07_gpu
  ns_team_23 --> lq_team_23_gpu
  ns_fold_ns_research_same --> lq_fold_lq_research_same
  lq_team_07_gpu --> cq_team_07
  lq_team_23_gpu --> cq_team_23
  lq_fold_lq_research_same --> cq_fold_cq_research_same
  cq_team_07 -->|"8 → 16"| fl_h100
  cq_team_23 -->|"8"| fl_h100
  cq_fold_cq_research_same -->|"Σ 384"| fl_h100
  fl_h100 -->|"400"| pool_h100
  classDef changed stroke:#d97706,stroke-width:3px
  classDef folded fill:#f3f4f6
  classDef finding fill:#fee2e2,stroke:#b91c1c,stroke-width:3px
  class cq_team_07 changed
  class ns_fold_ns_research_same,lq_fold_lq_research_same,cq_fold_cq_research_same folded
  class lq_team_23_gpu finding
  linkStyle 6 stroke:#d97706,stroke-width:3px
`},
		"50 new teams: the changed ones fold too": {
			before: newPlat().pool("h100", "nvidia-h100-80gb", 8, 50).pl,
			after:  newPlat().teams(50, "research", "8", nil).pool("h100", "nvidia-h100-80gb", 8, 50).pl,
			want: `flowchart LR
  ns_fold_ns_research_changed("50 team namespaces (changed)")
  lq_fold_lq_research_changed["50 LocalQueues (changed)"]
  subgraph cohort_research["cohort research"]
    cq_fold_cq_research_changed(["50 ClusterQueues (changed)"])
  end
  fl_h100{{"flavor h100"}}
  pool_h100[("pool h100<br/>nvidia-h100-80gb")]
  ns_fold_ns_research_changed --> lq_fold_lq_research_changed
  lq_fold_lq_research_changed --> cq_fold_cq_research_changed
  cq_fold_cq_research_changed -->|"Σ — → 400"| fl_h100
  fl_h100 -->|"400"| pool_h100
  classDef changed stroke:#d97706,stroke-width:3px
  classDef folded fill:#f3f4f6
  class ns_fold_ns_research_changed,lq_fold_lq_research_changed,cq_fold_cq_research_changed changed
  class ns_fold_ns_research_changed,lq_fold_lq_research_changed,cq_fold_cq_research_changed folded
  linkStyle 0,1,2 stroke:#d97706,stroke-width:3px
`,
		},
		"51 team namespaces share a ClusterQueue: the unchanged ones fold": {
			before: shared(50).pl,
			after:  shared(51).pl,
			want: `flowchart LR
  ns_team_51("namespace team-51 (new)")
  ns_fold_ns_mlplatform_cluster_queue_shared_same("50 team namespaces")
  lq_team_51_gpu["LocalQueue gpu (new)"]
  lq_fold_lq_mlplatform_cluster_queue_shared_same["50 LocalQueues"]
  cq_shared(["ClusterQueue shared"])
  fl_h100{{"flavor h100"}}
  pool_h100[("pool h100<br/>nvidia-h100-80gb")]
  ns_team_51 --> lq_team_51_gpu
  ns_fold_ns_mlplatform_cluster_queue_shared_same --> lq_fold_lq_mlplatform_cluster_queue_shared_same
  lq_team_51_gpu --> cq_shared
  lq_fold_lq_mlplatform_cluster_queue_shared_same --> cq_shared
  cq_shared -->|"64"| fl_h100
  fl_h100 -->|"64"| pool_h100
  classDef added stroke:#15803d,stroke-width:3px
  classDef folded fill:#f3f4f6
  class ns_team_51,lq_team_51_gpu added
  class ns_fold_ns_mlplatform_cluster_queue_shared_same,lq_fold_lq_mlplatform_cluster_queue_shared_same folded
  linkStyle 0,2 stroke:#d97706,stroke-width:3px
`,
		},
	}
}

func TestDiagram(t *testing.T) {
	t.Parallel()
	for name, tc := range diagramCases() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Diagram(tc.before, tc.after, tc.findings)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("diagram (-want +got):\n%s", diff)
			}
		})
	}
}

// An empty plan draws nothing; the text report never has the diagram.
func TestNoDiagram(t *testing.T) {
	t.Parallel()
	if got := Diagram(&model.Platform{}, &model.Platform{}, nil); got != "" {
		t.Errorf("diagram of nothing: %q", got)
	}
	r := buildFile(t, "testdata/full.json")
	var b strings.Builder
	if err := Render(&b, r, Text); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "flowchart") || strings.Contains(b.String(), "Platform diagram") {
		t.Errorf("the text report has the diagram:\n%s", b.String())
	}
}
