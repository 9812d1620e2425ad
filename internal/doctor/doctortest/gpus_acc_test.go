package doctortest

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/protobuf/types/known/durationpb"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

const (
	h100Pool = "doc-h100"      // 8×H100 spot, a3-highgpu-8g
	flexH100 = "doc-h100-flex" // 8×H100 flex-start, max_run_duration 2h
	flexRun  = 2 * time.Hour
)

// TestAccDoctorGPUCapacity: scale to zero, checked against the live control
// plane, with Node objects registered as a GKE pool's kubelets would
// (labels, allocatable GPUs, Ready, the pool's taints) and pods bound to
// them (spec.nodeName; no kubelet runs them). The API server stamps a
// node's creationTimestamp itself, so where a node must look old the test
// moves doctor's clock forward (doctor.CommandAt) instead. Each case exits
// 6 with a plain message, and doctor is clean once it is cleared:
//   - idle: 2 H100 nodes with no GPU pod, an hour old, found with the
//     hourly cost of 16 H100s at spot;
//   - a holder: a bare pod requesting 8 GPUs, named with its owner and age;
//   - busy: a pod of a Job Kueue admitted (made from the pod template Kueue
//     wrote when it started the Job) is not a finding;
//   - the floor: min_nodes = 1 found and priced;
//   - flex deadline: a flex-start node created max_run_duration minus 10
//     minutes ago, with the admitted Job's pod on it, warns naming the workload.
func TestAccDoctorGPUCapacity(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	p.teams(0, 1)
	p.gpuPool(h100Pool, spec.CapacitySpot)
	p.gpuPool(flexH100, spec.CapacityFlexStart)
	spot, _ := pricing.Default().HourlyPerGPU("nvidia-h100-80gb", pricing.Spot)
	ns := nsName(0)
	p.until("a clean platform with the H100 pools and no nodes", clean)

	t.Run("idle", func(t *testing.T) {
		p.registerNodes(h100Pool, "doc-h100-a", "doc-h100-b")
		p.now = func() time.Time { return time.Now().Add(time.Hour) }
		defer func() { p.now = nil }()
		code, out, res := p.until("the idle nodes", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC020", "node pool "+h100Pool) != nil })
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, "DOC020", "node pool "+h100Pool)
		cost := fmt.Sprintf("$%.2f per hour ($%s per day) at nvidia-h100-80gb at spot prices", 16*spot, commas(16*spot*24))
		if code != doctor.ExitFindings || len(res.Findings) != 1 ||
			!strings.Contains(f.Message, "2 of its 2 node(s) (doc-h100-a, doc-h100-b) have had no pod request their 16 nvidia-h100-80gb GPUs for more than 30m") ||
			!strings.Contains(f.Message, cost) || !strings.Contains(f.Message, "The cluster autoscaler removes a node nobody needs after 10 minutes") {
			t.Errorf("want exit 6 and one DOC020 with %q; got exit %d:\n%s", cost, code, out)
		}
		if res.Idle == nil || fmt.Sprintf("%.2f", res.Idle.USDPerHour) != fmt.Sprintf("%.2f", 16*spot) {
			t.Errorf("JSON idle = %+v, want %.2f USD per hour (16 H100s at spot)", res.Idle, 16*spot)
		}
		pool := gpuPoolOf(res, h100Pool)
		if pool == nil || pool.Nodes != 2 || pool.GPUs != 16 || pool.Requested != 0 || pool.IdleNodes != 2 {
			t.Errorf("JSON gpu_pools entry of %s = %+v, want 2 nodes, 16 GPUs, none requested, 2 idle", h100Pool, pool)
		}
		// The scheduled check's threshold: above what idle costs, a note.
		code, out, _, _ = p.runAt(p.now, "--fail-on-idle-usd-per-hour", fmt.Sprintf("%.0f", 16*spot+1))
		if code != doctor.ExitOK || !strings.Contains(out, "note: idle GPU capacity costs") {
			t.Errorf("within --fail-on-idle-usd-per-hour: want exit 0 and a note; got exit %d:\n%s", code, out)
		}
		p.deleteNodes("doc-h100-a", "doc-h100-b")
		p.until("clean again without the nodes", clean)
	})

	t.Run("the README's scheduled check", func(t *testing.T) {
		p.readmeIdleCheck(t, spot)
	})

	t.Run("holder pod", func(t *testing.T) {
		p.registerNodes(h100Pool, "doc-h100-a")
		defer p.deleteNodes("doc-h100-a")
		pod := gpuPod(ns, "placeholder", "doc-h100-a", nil)
		p.createPod(pod)
		code, out, res := p.until("the holder", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC021", "Pod "+ns+"/placeholder") != nil })
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, "DOC021", "Pod "+ns+"/placeholder")
		if code != doctor.ExitFindings || len(res.Findings) != 1 ||
			!strings.Contains(f.Message, "Pod "+ns+"/placeholder (no controller, under a minute old) belongs to no workload Kueue admitted and requests 8 nvidia.com/gpu of node doc-h100-a (pool doc-h100)") ||
			!strings.Contains(f.Message, fmt.Sprintf("$%.2f per hour", 8*spot)) {
			t.Errorf("want exit 6 and one DOC021 naming the pod, its owner, age and cost; got exit %d:\n%s", code, out)
		}
		p.deletePod(ns, "placeholder")
		p.until("clean again without the holder", clean)
	})

	// The Job Kueue admits, whose pods the busy and flex cases place.
	job := p.admittedJob(ns, "doc-train")
	wl := job.Spec.Template.Annotations[kueuev1beta2.WorkloadAnnotation]
	t.Logf("Kueue admitted Job %s/%s as workload %s; its pod template: labels %v, annotations %v", ns, job.Name, wl, job.Spec.Template.Labels, job.Spec.Template.Annotations)
	if wl == "" {
		t.Errorf("Kueue started Job %s without writing %s on its pod template", job.Name, kueuev1beta2.WorkloadAnnotation)
	}

	// With doctor's clock moved forward, the Job's workload looks admitted
	// for hours with its pods never ready (no kubelet runs them): DOC013
	// would say so. The moved-clock runs below raise its threshold.
	patient := []string{"--pending-threshold", "24h"}

	t.Run("busy", func(t *testing.T) {
		p.registerNodes(h100Pool, "doc-h100-a")
		defer p.deleteNodes("doc-h100-a")
		p.createPod(gpuPod(ns, "doc-train-0", "doc-h100-a", job))
		defer p.deletePod(ns, "doc-train-0")
		p.now = func() time.Time { return time.Now().Add(time.Hour) }
		defer func() { p.now = nil }()
		code, out, res := p.until("the pod counted", func(_ int, _ string, res jsonResult) bool {
			pool := gpuPoolOf(res, h100Pool)
			return pool != nil && pool.Requested == 1
		}, patient...)
		pool := gpuPoolOf(res, h100Pool)
		if code != doctor.ExitOK || pool.RequestedAdmitted != 1 {
			t.Errorf("a pod of an admitted workload on an hour-old node: want exit 0 and its GPU counted as admitted; got exit %d, %+v:\n%s", code, pool, out)
		}
	})

	t.Run("the floor", func(t *testing.T) {
		p.setMinNodes(h100Pool, 1)
		code, out, res := p.until("the floor", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC022", "node pool "+h100Pool) != nil })
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, "DOC022", "node pool "+h100Pool)
		if code != doctor.ExitFindings || len(res.Findings) != 1 ||
			!strings.Contains(f.Message, "GPU pool doc-h100 keeps 1 node(s) of 8 nvidia-h100-80gb GPUs when nothing runs (autoscaling min_nodes is 1)") ||
			!strings.Contains(f.Message, fmt.Sprintf("$%.2f per hour ($%s per day)", 8*spot, commas(8*spot*24))) {
			t.Errorf("want exit 6 and one DOC022 priced at 8 H100s at spot; got exit %d:\n%s", code, out)
		}
		p.setMinNodes(h100Pool, 0)
		p.until("clean again at min_nodes 0", clean)
	})

	t.Run("flex deadline", func(t *testing.T) {
		p.registerNodes(flexH100, "doc-flex-a")
		defer p.deleteNodes("doc-flex-a")
		p.createPod(gpuPod(ns, "doc-train-0", "doc-flex-a", job))
		// The node was registered just now: at max_run_duration minus 10
		// minutes from now it is that old.
		p.now = func() time.Time { return time.Now().Add(flexRun - 10*time.Minute) }
		defer func() { p.now = nil }()
		code, out, res := p.until("the deadline", func(_ int, _ string, res jsonResult) bool { return has(res, "DOC023", "Node doc-flex-a") != nil }, patient...)
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, "DOC023", "Node doc-flex-a")
		if code != doctor.ExitFindings || len(res.Findings) != 1 ||
			!strings.Contains(f.Message, "flex-start node doc-flex-a (pool doc-h100-flex) reaches its max_run_duration of 2h in 10m0s") ||
			!strings.Contains(f.Message, "workload "+ns+"/"+wl+" still runs on it") || !strings.Contains(f.Fix, "checkpoint") {
			t.Errorf("want exit 6 and one DOC023 naming workload %s; got exit %d:\n%s", wl, code, out)
		}
		p.deletePod(ns, "doc-train-0")
		p.deleteNodes("doc-flex-a")
		p.until("clean again once the workload's pod and the node are gone", clean, patient...)
	})
}

// gpuPool creates a GPU pool of 8×H100 (a3-highgpu-8g) in the fake and its
// flavor; both go when the test ends.
func (p *platform) gpuPool(name, capacity string) {
	t := p.t
	np := &containerpb.NodePool{Name: name,
		Config: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g", Spot: capacity == spec.CapacitySpot,
			Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8}}},
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 4, LocationPolicy: containerpb.NodePoolAutoscaling_ANY},
	}
	if capacity == spec.CapacityFlexStart {
		np.Config.FlexStart = ptr.To(true)
		np.Config.MaxRunDuration = durationpb.New(flexRun)
		np.Config.ReservationAffinity = &containerpb.ReservationAffinity{ConsumeReservationType: containerpb.ReservationAffinity_NO_RESERVATION}
	}
	_, err := p.gke.CreateNodePool(p.ctx, &containerpb.CreateNodePoolRequest{Parent: p.cluster(), NodePool: np})
	if err != nil && !strings.Contains(err.Error(), "AlreadyExists") && !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("create node pool %s: %v", name, err)
	}
	p.waitPool(name, true)
	ignoreExists(t, p.createFlavor(name))
	t.Cleanup(func() {
		_ = p.kq.KueueV1beta2().ResourceFlavors().Delete(context.Background(), name, metav1.DeleteOptions{})
		p.deletePool(name)
	})
}

// registerNodes creates nodes of a pool as its kubelets register them: the
// labels GKE puts on the pool's nodes (spec.GPUPool.NodeLabels: the pool's
// name, accelerator, spot or flex-start), the pool's taints, allocatable
// nvidia.com/gpu, Ready. The API server's TaintNodesByCondition admission
// adds node.kubernetes.io/not-ready on create; the node lifecycle
// controller would take it off once the kubelet reports Ready, which here
// is the test (as resources/tas_e2e_test.go's registerNodes).
func (p *platform) registerNodes(pool string, names ...string) {
	t := p.t
	np, err := p.gke.GetNodePool(p.ctx, &containerpb.GetNodePoolRequest{Name: p.cluster() + "/nodePools/" + pool})
	if err != nil {
		t.Fatal(err)
	}
	ps := reconcile.FromNodePool(reconcile.GPUPoolRef{}, np, spec.GPUPool{})
	var taints []corev1.Taint
	for _, tn := range np.GetConfig().GetTaints() {
		taints = append(taints, corev1.Taint{Key: tn.GetKey(), Value: tn.GetValue(), Effect: map[containerpb.NodeTaint_Effect]corev1.TaintEffect{
			containerpb.NodeTaint_NO_SCHEDULE: corev1.TaintEffectNoSchedule, containerpb.NodeTaint_PREFER_NO_SCHEDULE: corev1.TaintEffectPreferNoSchedule,
			containerpb.NodeTaint_NO_EXECUTE: corev1.TaintEffectNoExecute}[tn.GetEffect()]})
	}
	res := corev1.ResourceList{
		spec.GPUResource: *resource.NewQuantity(int64(ps.AllocatableGPUsPerNode()), resource.DecimalSI), corev1.ResourceCPU: resource.MustParse("200"),
		corev1.ResourceMemory: resource.MustParse("1800Gi"), corev1.ResourcePods: resource.MustParse("110"),
	}
	nodes := p.core.CoreV1().Nodes()
	for _, name := range names {
		labels := maps.Clone(ps.NodeLabels())
		labels[spec.HostnameLabel] = name
		created, err := nodes.Create(p.ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}, Spec: corev1.NodeSpec{Taints: taints}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = nodes.Delete(context.Background(), name, metav1.DeleteOptions{}) })
		created.Status = corev1.NodeStatus{Capacity: res, Allocatable: res, Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}}
		updated, err := nodes.UpdateStatus(p.ctx, created, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		updated.Spec.Taints = taints
		if _, err := nodes.Update(p.ctx, updated, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func (p *platform) deleteNodes(names ...string) {
	for _, n := range names {
		if err := p.core.CoreV1().Nodes().Delete(p.ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			p.t.Fatal(err)
		}
	}
}

// gpuPod is a pod bound to node: a bare one requesting 8 GPUs (job nil), or
// one of job as its Job controller would make it from the pod template Kueue
// wrote (labels, annotations, node selector, tolerations, requests).
func gpuPod(ns, name, node string, job *batchv1.Job) *corev1.Pod {
	if job == nil {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: corev1.PodSpec{NodeName: node, RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "hold", Image: "pause",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{spec.GPUResource: resource.MustParse("8")},
					Limits: corev1.ResourceList{spec.GPUResource: resource.MustParse("8")}}}}}}
	}
	tmpl := job.Spec.Template.DeepCopy()
	pod := &corev1.Pod{ObjectMeta: tmpl.ObjectMeta, Spec: tmpl.Spec}
	pod.Name, pod.Namespace, pod.Spec.NodeName = name, ns, node
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	return pod
}

func (p *platform) createPod(pod *corev1.Pod) {
	// No service-account controller runs here to make the namespace's
	// default ServiceAccount, which the API server's admission looks up.
	_, err := p.core.CoreV1().ServiceAccounts(pod.Namespace).Create(p.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: pod.Namespace}}, metav1.CreateOptions{})
	ignoreExists(p.t, err)
	if _, err := p.core.CoreV1().Pods(pod.Namespace).Create(p.ctx, pod, metav1.CreateOptions{}); err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { p.deletePod(pod.Namespace, pod.Name) })
}

// deletePod deletes at once: no kubelet confirms a graceful delete here.
func (p *platform) deletePod(ns, name string) {
	pods := p.core.CoreV1().Pods(ns)
	if err := pods.Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil && !apierrors.IsNotFound(err) {
		p.t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := pods.Get(context.Background(), name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("pod %s/%s is still there", ns, name)
}

// admittedJob submits a Job of one pod asking for one GPU to the team's
// LocalQueue and waits until Kueue admits and starts it (unsuspends it,
// writing the workload's name and the flavor's node selector on its pod
// template). kube-controller-manager runs no Job controller here, so its
// pods are the test's to make.
func (p *platform) admittedJob(ns, name string) *batchv1.Job {
	t := p.t
	jobs := p.core.BatchV1().Jobs(ns)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"kueue.x-k8s.io/queue-name": "default"}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "train", Image: "trainer", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), spec.GPUResource: resource.MustParse("1")},
				Limits:   corev1.ResourceList{spec.GPUResource: resource.MustParse("1")}}}}}}},
	}
	if _, err := jobs.Create(p.ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = jobs.Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		got, err := jobs.Get(p.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Spec.Suspend != nil && !*got.Spec.Suspend {
			return got
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("Kueue did not start Job %s/%s within 60 s", ns, name)
	return nil
}

// setMinNodes sets the pool's autoscaling min_nodes in the fake, as
// gcloud container node-pools update --min-nodes does.
func (p *platform) setMinNodes(pool string, minNodes int32) {
	_, err := p.gke.SetNodePoolAutoscaling(p.ctx, &containerpb.SetNodePoolAutoscalingRequest{Name: p.cluster() + "/nodePools/" + pool,
		Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, TotalMinNodeCount: minNodes, TotalMaxNodeCount: 4, LocationPolicy: containerpb.NodePoolAutoscaling_ANY}})
	if err != nil {
		p.t.Fatal(err)
	}
}

// runAt is one text run with the clock now.
func (p *platform) runAt(now func() time.Time, extra ...string) (int, string, string, jsonResult) {
	args := []string{"--kubeconfig", p.env.Kubeconfig, "--project", p.env.Project, "--location", p.env.Location,
		"--cluster", p.env.Cluster, "--container-endpoint", p.env.GCP.Addr(), "--insecure-endpoints"}
	var out, errOut strings.Builder
	code := doctor.CommandAt(p.ctx, append(args, extra...), &out, &errOut, func(string) string { return "" }, now)
	return code, out.String(), errOut.String(), jsonResult{}
}

func gpuPoolOf(res jsonResult, name string) *doctor.GPUPoolUsage {
	for i := range res.GPUPools {
		if res.GPUPools[i].Pool == name {
			return &res.GPUPools[i]
		}
	}
	return nil
}

// commas writes an amount with two decimals and thousands separators.
func commas(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return whole + "." + frac
}

// thousands writes a count with thousands separators: 1,000.
func thousands(n int) string { return strings.TrimSuffix(commas(float64(n)), ".00") }

// readmeIdleCheck runs the README's scheduled idle-GPU job against the
// local control plane: its doctor command line, as written, with the
// provider settings from the environment variables the job sets (here the
// test environment's), on two idle H100 nodes (an hour old by doctor's
// clock), then on one. The job's script then runs under bash as GitHub's
// `shell: bash` runs it (-eo pipefail), with `mlplatform` on PATH a stand-in
// that replays that doctor run's output and exit code, and jq reading it:
// above the job's $50 an hour it fails with doctor's exit 6 and the cost in
// the job summary; at $35.59 an hour it passes.
func (p *platform) readmeIdleCheck(t *testing.T, spotPerGPU float64) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const marker = "# .github/workflows/platform-idle-gpus.yml"
	_, block, found := strings.Cut(string(readme), marker)
	block, _, _ = strings.Cut(block, "```")
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name  string            `json:"name"`
				Shell string            `json:"shell"`
				Env   map[string]string `json:"env"`
				Run   string            `json:"run"`
			} `json:"steps"`
		} `json:"jobs"`
	}
	if !found {
		t.Fatalf("README.md has no %q block", marker)
	}
	if err := yaml.Unmarshal([]byte(marker+block), &wf); err != nil {
		t.Fatalf("the README's idle-GPU job is not YAML: %v", err)
	}
	var script string
	var env map[string]string
	for _, j := range wf.Jobs {
		for _, st := range j.Steps {
			if strings.Contains(st.Run, "mlplatform doctor") {
				script, env = st.Run, st.Env
				if st.Shell != "bash" {
					t.Errorf("step %q runs under %q; the script needs bash (pipefail)", st.Name, st.Shell)
				}
			}
		}
	}
	var args []string
	for _, line := range strings.Split(script, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "mlplatform doctor "); ok {
			rest, _, _ = strings.Cut(rest, ">")
			args = strings.Fields(rest)
		}
	}
	if len(args) == 0 {
		t.Fatalf("no mlplatform doctor command line in the README's idle-GPU job:\n%s", script)
	}
	for _, k := range []string{"MLPLATFORM_PROJECT", "MLPLATFORM_LOCATION", "MLPLATFORM_CLUSTER"} {
		if env[k] == "" {
			t.Errorf("the README's idle-GPU step does not set %s", k)
		}
	}
	// The job's variables, with the test environment's values.
	vars := map[string]string{"MLPLATFORM_PROJECT": p.env.Project, "MLPLATFORM_LOCATION": p.env.Location, "MLPLATFORM_CLUSTER": p.env.Cluster,
		"MLPLATFORM_KUBECONFIG": p.env.Kubeconfig, "MLPLATFORM_CONTAINER_ENDPOINT": p.env.GCP.Addr(), "MLPLATFORM_INSECURE_ENDPOINTS": "true"}
	later := func() time.Time { return time.Now().Add(time.Hour) }
	job := func(wantCode int, wantSummary string) {
		t.Helper()
		var out, errOut strings.Builder
		code := doctor.CommandAt(p.ctx, args, &out, &errOut, func(k string) string { return vars[k] }, later)
		t.Logf("mlplatform doctor %s: exit %d\n%s", strings.Join(args, " "), code, errOut.String())
		if code != wantCode {
			t.Errorf("the README's doctor command line: exit %d, want %d:\n%s%s", code, wantCode, out.String(), errOut.String())
		}
		if _, err := exec.LookPath("jq"); err != nil {
			t.Log("jq is not on PATH: the job's script was not run (its doctor command line was)")
			return
		}
		dir := t.TempDir()
		bin := filepath.Join(dir, "bin")
		if err := os.Mkdir(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, "out.json"), out.String())
		mustWrite(t, filepath.Join(bin, "mlplatform"), fmt.Sprintf("#!/bin/sh\necho \"$@\" > %q\ncat %q\nexit %d\n",
			filepath.Join(dir, "args"), filepath.Join(dir, "out.json"), code))
		if err := os.Chmod(filepath.Join(bin, "mlplatform"), 0o755); err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, "step.sh"), script)
		summary := filepath.Join(dir, "summary.md")
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", filepath.Join(dir, "step.sh"))
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summary)
		stepOut, err := cmd.CombinedOutput()
		stepCode := cmd.ProcessState.ExitCode()
		sum, _ := os.ReadFile(summary)
		t.Logf("the job's step: exit %d (%v)\n%s--- summary:\n%s", stepCode, err, stepOut, sum)
		if stepCode != wantCode || !strings.Contains(string(sum), wantSummary) {
			t.Errorf("the README's idle-GPU step: exit %d and summary %q, want exit %d and a summary saying %q", stepCode, sum, wantCode, wantSummary)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "args")); strings.TrimSpace(string(got)) != "doctor "+strings.Join(args, " ") {
			t.Errorf("the step ran mlplatform %q, the test ran doctor %q", got, strings.Join(args, " "))
		}
	}
	p.registerNodes(h100Pool, "doc-h100-a", "doc-h100-b")
	job(doctor.ExitFindings, fmt.Sprintf("Idle GPU capacity: $%.2f per hour", 16*spotPerGPU))
	p.deleteNodes("doc-h100-b")
	job(doctor.ExitOK, fmt.Sprintf("Idle GPU capacity: $%.2f per hour", 8*spotPerGPU))
	p.deleteNodes("doc-h100-a")
	p.until("clean again without the nodes", clean)
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
