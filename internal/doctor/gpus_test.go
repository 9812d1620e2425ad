package doctor

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/durationpb"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// gpuNode is a node of a GKE GPU pool as its kubelet registers it: the
// pool's label, the accelerator, 8 allocatable GPUs, Ready, created age ago.
func gpuNode(name, pool string, age time.Duration) corev1.Node {
	res := corev1.ResourceList{gpuResource: resource.MustParse("8")}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(now.Add(-age)),
		Labels: map[string]string{spec.NodePoolLabel: pool, spec.AcceleratorLabel: "nvidia-h100-80gb"}},
		Status: corev1.NodeStatus{Allocatable: res, Capacity: res, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
}

// gpuPod is a pod bound to node requesting gpus, created age ago.
func gpuPod(name, node string, gpus int64, age time.Duration) corev1.Pod {
	c := corev1.Container{Name: "train", Image: "trainer"}
	if gpus > 0 {
		c.Resources.Requests = corev1.ResourceList{gpuResource: *resource.NewQuantity(gpus, resource.DecimalSI)}
	}
	return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-nlp", CreationTimestamp: metav1.NewTime(now.Add(-age))},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{c}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

// h100Pool is an 8×H100 pool of capacity (a3-highgpu-8g), autoscaled from minNodes.
func h100Pool(name string, capacity string, minNodes int32) *containerpb.NodePool {
	np := &containerpb.NodePool{Name: name, Status: containerpb.NodePool_RUNNING,
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: minNodes, TotalMaxNodeCount: 4},
		Config: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g", Spot: capacity == spec.CapacitySpot,
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8}}}}
	if capacity == spec.CapacityFlexStart {
		np.Config.FlexStart = ptr(true)
		np.Config.MaxRunDuration = durationpb.New(4 * time.Hour)
	}
	return np
}

func admittedWorkload(name string, owner types.UID) kueuev1beta2.Workload {
	w := workload(name, 2*time.Hour, cond("QuotaReserved", "True", "QuotaReserved", ""), cond("Admitted", "True", "Admitted", ""))
	if owner != "" {
		w.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: name, UID: owner, Controller: ptr(true)}}
	}
	return w
}

// TestAnalyzeGPUCapacity: each case adds GPU nodes and pods to the healthy
// platform; want are the findings (identifier and first object), fragments
// their messages must hold, and what idle capacity costs per hour.
func TestAnalyzeGPUCapacity(t *testing.T) {
	t.Parallel()
	h100Spot, _ := pricing.Default().HourlyPerGPU("nvidia-h100-80gb", pricing.Spot)
	h100OnDemand, _ := pricing.Default().HourlyPerGPU("nvidia-h100-80gb", pricing.OnDemand)
	jobOwner := func(p *corev1.Pod, uid types.UID) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "train", UID: uid, Controller: ptr(true)}}
	}
	type want struct {
		id, object string
		says       []string
	}
	cases := map[string]struct {
		set      func(s *Snapshot, o *Options)
		want     []want
		notes    []string
		idleUSD  float64
		requests int64
	}{
		"idle: 2 H100 nodes, no GPU pod, found with the cost of 16 H100s at spot": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 2*time.Hour), gpuNode("h100-b", "h100", time.Hour)}
			},
			want: []want{{"DOC020", "node pool h100", []string{"2 of its 2 node(s) (h100-a, h100-b)", "their 16 nvidia-h100-80gb GPUs for more than 30m (the longest 2h0m0s)",
				fmt.Sprintf("%s per hour (%s per day) at nvidia-h100-80gb at spot prices", usd(16*h100Spot), usd(16*h100Spot*24)), "no pod doctor sees keeps them"}}},
			idleUSD: 16 * h100Spot,
		},
		"young nodes are not idle yet": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 10*time.Minute)}
			},
		},
		"a node whose last GPU pod finished 5 minutes ago is not idle yet": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 5*time.Hour)}
				done := gpuPod("done", "h100-a", 8, 3*time.Hour)
				done.Status = corev1.PodStatus{Phase: corev1.PodSucceeded, ContainerStatuses: []corev1.ContainerStatus{{Name: "train",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(now.Add(-5 * time.Minute))}}}}}
				s.Pods = []corev1.Pod{done}
			},
		},
		"idle, kept by a bare pod with local storage and a budget that allows nothing": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacityOnDemand, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 2*time.Hour)}
				p := gpuPod("cache", "h100-a", 0, time.Hour)
				p.Labels = map[string]string{"app": "cache"}
				p.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				s.Pods = []corev1.Pod{p}
				s.DisruptionBudgets = []policyv1.PodDisruptionBudget{{ObjectMeta: metav1.ObjectMeta{Name: "cache", Namespace: "team-nlp"},
					Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}}}}}
			},
			want: []want{
				{"DOC020", "node pool h100", []string{"what keeps them: h100-a by pod team-nlp/cache (no controller: nothing would recreate it elsewhere; local storage: emptyDir scratch; PodDisruptionBudget cache allows no disruption)",
					usd(8*h100OnDemand) + " per hour"}},
				{"DOC021", "Pod team-nlp/cache", []string{"(no controller, 1h0m0s old) belongs to no workload Kueue admitted and keeps idle node h100-a (pool h100) from scale-down"}},
			},
			idleUSD: 8 * h100OnDemand,
		},
		"a holder pod: a bare GPU pod outside Kueue is named, with what its GPUs cost": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 3*time.Hour)}
				s.Pods = []corev1.Pod{gpuPod("placeholder", "h100-a", 8, 3*time.Hour)}
			},
			want: []want{{"DOC021", "Pod team-nlp/placeholder", []string{"Pod team-nlp/placeholder (no controller, 3h0m0s old) belongs to no workload Kueue admitted and requests 8 nvidia.com/gpu of node h100-a (pool h100)",
				usd(8*h100Spot) + " per hour"}}},
			idleUSD:  8 * h100Spot,
			requests: 8,
		},
		"busy: a pod of an admitted workload (Kueue's annotation) is not a finding": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 3*time.Hour)}
				p := gpuPod("train-0", "h100-a", 8, time.Hour)
				p.Annotations = map[string]string{kueuev1beta2.WorkloadAnnotation: "job-train"}
				jobOwner(&p, "job-uid")
				s.Pods = []corev1.Pod{p}
				s.Workloads = []kueuev1beta2.Workload{admittedWorkload("job-train", "")}
			},
			notes:    []string{"GPU pool h100: 1 node(s) up, 8 nvidia.com/gpu allocatable, 8 requested by running or pending pods bound to them (8 by workloads Kueue admitted)"},
			requests: 8,
		},
		"busy: a pod whose job owns an admitted workload is not a finding": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 3*time.Hour)}
				p := gpuPod("train-0", "h100-a", 8, time.Hour)
				jobOwner(&p, "job-uid")
				s.Pods = []corev1.Pod{p}
				s.Workloads = []kueuev1beta2.Workload{admittedWorkload("job-train", "job-uid")}
			},
			requests: 8,
		},
		"a pod of a finished workload holds": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 0))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 3*time.Hour)}
				p := gpuPod("train-0", "h100-a", 8, time.Hour)
				p.Annotations = map[string]string{kueuev1beta2.WorkloadAnnotation: "job-train"}
				jobOwner(&p, "job-uid")
				s.Pods = []corev1.Pod{p}
				w := admittedWorkload("job-train", "job-uid")
				w.Status.Conditions = append(w.Status.Conditions, cond("Finished", "True", "Succeeded", ""))
				s.Workloads = []kueuev1beta2.Workload{w}
			},
			want:     []want{{"DOC021", "Pod team-nlp/train-0", []string{"(owner Job train, 1h0m0s old) belongs to no workload Kueue admitted"}}},
			idleUSD:  8 * h100Spot,
			requests: 8,
		},
		"the floor: min_nodes 1 is found and priced": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 1))
			},
			want: []want{{"DOC022", "node pool h100", []string{"GPU pool h100 keeps 1 node(s) of 8 nvidia-h100-80gb GPUs when nothing runs (autoscaling min_nodes is 1)",
				fmt.Sprintf("%s per hour (%s per day)", usd(8*h100Spot), usd(8*h100Spot*24))}}},
			idleUSD: 8 * h100Spot,
		},
		"the floor within --fail-on-idle-usd-per-hour is a note": {
			set: func(s *Snapshot, o *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 1))
				o.IdleUSDPerHour = 8*h100Spot + 1
			},
			notes:   []string{fmt.Sprintf("idle GPU capacity costs %s per hour", usd(8*h100Spot)), "DOC022 gpu-pool-floor (warning): GPU pool h100 keeps 1 node(s)"},
			idleUSD: 8 * h100Spot,
		},
		"an idle node of the floor is counted once": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100", spec.CapacitySpot, 1))
				s.Nodes = []corev1.Node{gpuNode("h100-a", "h100", 2*time.Hour)}
			},
			want: []want{{"DOC020", "node pool h100", []string{"here the pool's floor keeps them (1 node(s) at least, DOC022)"}},
				{"DOC022", "node pool h100", nil}},
			idleUSD: 8 * h100Spot,
		},
		"flex deadline: a workload on a flex-start node 10 minutes before max_run_duration": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100-flex", spec.CapacityFlexStart, 0))
				n := gpuNode("flex-a", "h100-flex", 4*time.Hour-10*time.Minute)
				s.Nodes = []corev1.Node{n}
				p := gpuPod("train-0", "flex-a", 8, 3*time.Hour)
				p.Annotations = map[string]string{kueuev1beta2.WorkloadAnnotation: "job-train"}
				s.Pods = []corev1.Pod{p}
				s.Workloads = []kueuev1beta2.Workload{admittedWorkload("job-train", "")}
			},
			want:     []want{{"DOC023", "Node flex-a", []string{"flex-start node flex-a (pool h100-flex) reaches its max_run_duration of 4h in 10m0s (at 2026-12-01T12:10:00Z), when GKE reclaims it, and workload team-nlp/job-train still runs on it"}}},
			requests: 8,
		},
		"flex: an hour and a half before the deadline is quiet": {
			set: func(s *Snapshot, _ *Options) {
				s.Pools = append(s.Pools, h100Pool("h100-flex", spec.CapacityFlexStart, 0))
				s.Nodes = []corev1.Node{gpuNode("flex-a", "h100-flex", 150*time.Minute)}
				p := gpuPod("train-0", "flex-a", 8, time.Hour)
				p.Annotations = map[string]string{kueuev1beta2.WorkloadAnnotation: "job-train"}
				s.Pods = []corev1.Pod{p}
				s.Workloads = []kueuev1beta2.Workload{admittedWorkload("job-train", "")}
			},
			requests: 8,
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := healthy()
			opts := Options{}
			c.set(s, &opts)
			res := Analyze(s, opts)
			var got, wantIDs []string
			for _, f := range res.Findings {
				got = append(got, f.ID+" "+f.Object())
			}
			for _, w := range c.want {
				wantIDs = append(wantIDs, w.id+" "+w.object)
				f := findingOf(res, w.id, w.object)
				if f == nil {
					continue
				}
				for _, say := range w.says {
					if !strings.Contains(f.Message, say) {
						t.Errorf("%s: message does not say %q:\n%s", w.id, say, f.Message)
					}
				}
			}
			if d := cmp.Diff(wantIDs, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
			for _, n := range c.notes {
				if !strings.Contains(strings.Join(res.Notes, "\n"), n) {
					t.Errorf("no note saying %q; notes:\n%s", n, strings.Join(res.Notes, "\n"))
				}
			}
			if res.Idle == nil || fmt.Sprintf("%.2f", res.Idle.USDPerHour) != fmt.Sprintf("%.2f", c.idleUSD) {
				t.Errorf("idle cost %+v, want %.2f per hour", res.Idle, c.idleUSD)
			}
			var req int64
			for _, p := range res.GPUPools {
				req += p.Requested
			}
			if req != c.requests {
				t.Errorf("GPUs requested %d, want %d (%+v)", req, c.requests, res.GPUPools)
			}
		})
	}
}

func findingOf(res *Result, id, object string) *Finding {
	for i, f := range res.Findings {
		if f.ID == id && f.Object() == object {
			return &res.Findings[i]
		}
	}
	return nil
}

func TestUSD(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{0: "$0.00", 35.593: "$35.59", 1708.4645: "$1,708.46", 1234567.891: "$1,234,567.89", 999.999: "$1,000.00"} {
		if got := usd(v); got != want {
			t.Errorf("usd(%v) = %q, want %q", v, got, want)
		}
	}
}
