package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Scale to zero, checked: GPU nodes that are up while nothing uses their
// GPUs, what keeps them, what a pool's floor costs, and flex-start nodes
// about to be reclaimed under a running workload. Each is priced from the
// report's price table (Options.Prices).

// Defaults of the thresholds (Options says why).
const (
	DefaultIdleThreshold       = 30 * time.Minute
	DefaultFlexDeadlineWarning = time.Hour
)

// The checks of GPU capacity.
var (
	CheckGPUNodesIdle = Check{"DOC020", "gpu-nodes-idle", "no GPU node has had no pod request its GPUs for longer than --idle-threshold (what the cluster autoscaler should have removed)"}
	CheckGPUHolderPod = Check{"DOC021", "gpu-holder-pod", "no pod outside a workload Kueue admitted holds a GPU node (requests its GPUs, or keeps an idle one from scale-down)"}
	CheckGPUPoolFloor = Check{"DOC022", "gpu-pool-floor", "no GPU pool keeps nodes when nothing runs (autoscaling min_nodes above 0)"}
	CheckFlexDeadline = Check{"DOC023", "flex-start-deadline", "no workload still runs on a flex-start node within --flex-deadline-warning of its max_run_duration"}
)

// Annotations and labels doctor reads on pods and nodes.
const (
	// gpuResource is what GKE's device plugin reports, one per GPU, MIG
	// slice or share.
	gpuResource corev1.ResourceName = "nvidia.com/gpu"
	// safeToEvict is the cluster autoscaler's per-pod override: "false"
	// keeps the node, "true" lets it drain a pod it would otherwise keep
	// (local storage, no controller).
	safeToEvict = "cluster-autoscaler.kubernetes.io/safe-to-evict"
	// mirrorPod marks a static pod's mirror, which the autoscaler ignores.
	mirrorPod = "kubernetes.io/config.mirror"
)

// GPUPoolUsage is one GPU pool as its nodes and pods show it, in doctor's
// JSON (gpu_pools).
type GPUPoolUsage struct {
	Pool        string `json:"pool"`
	Accelerator string `json:"accelerator,omitempty"`
	Capacity    string `json:"capacity,omitempty"`
	// MinNodes is autoscaling min_nodes (the node count when autoscaling
	// is off); -1 when GKE was not read.
	MinNodes int `json:"min_nodes"`
	// Nodes are the pool's nodes up; GPUs what they report allocatable
	// (nvidia.com/gpu: GPUs, or MIG slices or shares).
	Nodes int   `json:"nodes"`
	GPUs  int64 `json:"gpus_allocatable"`
	// Requested is what running or pending pods bound to its nodes request;
	// RequestedAdmitted the part of it by pods of workloads Kueue admitted.
	Requested         int64 `json:"gpus_requested"`
	RequestedAdmitted int64 `json:"gpus_requested_admitted"`
	IdleNodes         int   `json:"idle_nodes"`
	// USDPerGPUHour is the price of one of its GPUs (0 when the table has
	// none, Priced false).
	USDPerGPUHour float64 `json:"usd_per_gpu_hour"`
	Priced        bool    `json:"priced"`
	// IdleUSDPerHour is what its idle capacity costs, counted once: its
	// idle nodes, the GPUs held by pods outside Kueue, and the floor's
	// nodes beyond the idle ones.
	IdleUSDPerHour float64 `json:"idle_usd_per_hour"`
}

// IdleCost is what idle GPU capacity costs, summed over the pools.
type IdleCost struct {
	USDPerHour float64 `json:"usd_per_hour"`
	USDPerDay  float64 `json:"usd_per_day"`
	// Limit is --fail-on-idle-usd-per-hour: above it, idle capacity is a
	// finding; at or below, a note.
	Limit float64 `json:"limit_usd_per_hour"`
	// Unpriced names the pools whose price the table lacks: their idle
	// capacity is a finding whatever the limit.
	Unpriced []string `json:"unpriced,omitempty"`
}

// gpuPool is a GPU pool as GKE and its nodes have it.
type gpuPool struct {
	name  string
	spec  spec.GPUPool
	inGKE bool
	// autoscaled: GKE's autoscaling is on (off, the pool keeps its nodes).
	autoscaled bool
	nodes      []*corev1.Node
	use        *GPUPoolUsage
}

// perGPU is the price of one physical GPU per hour, and whether it is known.
func (p *gpuPool) perGPU(a analysis) (float64, bool) {
	if !p.inGKE {
		return 0, false
	}
	return a.opts.Prices.HourlyPerGPU(p.spec.GPU.Type, p.spec.Capacity)
}

// nodeHourly is what one node of the pool costs per hour.
func (p *gpuPool) nodeHourly(a analysis) (float64, bool) {
	usd, ok := p.perGPU(a)
	return usd * float64(p.spec.GPU.Count), ok
}

// unitHourly is what one nvidia.com/gpu of a node costs per hour: a GPU, or
// a MIG slice or share of one.
func (p *gpuPool) unitHourly(a analysis) (float64, bool) {
	usd, ok := p.nodeHourly(a)
	if per := p.spec.AllocatableGPUsPerNode(); per > 0 {
		return usd / float64(per), ok
	}
	return 0, false
}

// priceText names what the pool's GPUs are priced as.
func (p *gpuPool) priceText() string {
	return p.spec.GPU.Type + " at " + p.spec.Capacity + " prices"
}

// podFacts is what doctor knows of one pod on a GPU node.
type podFacts struct {
	pod      *corev1.Pod
	gpus     int64
	workload string // namespace/name of the admitted workload it belongs to, "" for none
	blocks   []string
}

func (f podFacts) label() string { return f.pod.Namespace + "/" + f.pod.Name }

// gpus runs DOC020–DOC023.
func (a analysis) gpus() {
	s := a.s
	idleChecks := []Check{CheckGPUNodesIdle, CheckGPUHolderPod, CheckFlexDeadline}
	ok := a.needs(s.NodesRead, idleChecks...)
	ok = a.needs(s.PodsRead, idleChecks...) && ok
	ok = a.needs(s.WorkloadsRead, CheckGPUHolderPod, CheckFlexDeadline) && ok
	ok = a.needs(s.DisruptionBudgetsRead, CheckGPUNodesIdle) && ok
	gkeRead := s.PoolsRead.What != "" && s.PoolsRead.ok()
	if s.PoolsRead.What != "" && !gkeRead {
		a.needs(s.PoolsRead, CheckGPUPoolFloor)
	}

	pools := map[string]*gpuPool{}
	pool := func(name string) *gpuPool {
		if pools[name] == nil {
			pools[name] = &gpuPool{name: name, use: &GPUPoolUsage{Pool: name, MinNodes: -1}}
		}
		return pools[name]
	}
	if gkeRead {
		for _, np := range s.Pools {
			if len(np.GetConfig().GetAccelerators()) == 0 {
				continue
			}
			p := pool(np.GetName())
			p.inGKE, p.autoscaled, p.spec = true, np.GetAutoscaling().GetEnabled(), reconcile.FromNodePool(reconcile.GPUPoolRef{}, np, spec.GPUPool{})
			p.use.Accelerator, p.use.Capacity, p.use.MinNodes = p.spec.GPU.Type, p.spec.Capacity, floorOf(np, p.spec)
			p.use.USDPerGPUHour, p.use.Priced = p.perGPU(a)
		}
	}
	var cost IdleCost
	cost.Limit = a.opts.IdleUSDPerHour
	var idle []Finding // DOC020–DOC022, findings or notes by what they cost together
	if gkeRead {
		for _, name := range slices.Sorted(maps.Keys(pools)) {
			if p := pools[name]; p.inGKE {
				idle = append(idle, a.floor(p)...)
			}
		}
	}
	var flex []Finding // DOC023: always findings
	if ok {
		a.nodesAndPods(pools, pool, &idle, &flex)
	}
	a.f.res.Checks += len(flex)
	a.f.res.Findings = append(a.f.res.Findings, flex...)
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		p := pools[name]
		if p.use.Accelerator == "" && len(p.nodes) > 0 {
			p.use.Accelerator = p.nodes[0].Labels[spec.AcceleratorLabel]
		}
		a.f.res.GPUPools = append(a.f.res.GPUPools, *p.use)
		if u := p.use; u.Nodes > 0 {
			a.f.note(fmt.Sprintf("GPU pool %s: %d node(s) up, %d nvidia.com/gpu allocatable, %d requested by running or pending pods bound to them (%d by workloads Kueue admitted)",
				u.Pool, u.Nodes, u.GPUs, u.Requested, u.RequestedAdmitted))
		}
		cost.USDPerHour += p.use.IdleUSDPerHour
		if !p.use.Priced && (p.use.IdleNodes > 0 || p.use.MinNodes > 0 || hasHolder(idle, p.name)) {
			cost.Unpriced = append(cost.Unpriced, p.name)
		}
	}
	cost.USDPerDay = cost.USDPerHour * 24
	a.f.res.Idle = &cost
	if len(idle) == 0 {
		return
	}
	if cost.Limit > 0 && cost.USDPerHour <= cost.Limit && len(cost.Unpriced) == 0 {
		a.f.pass(len(idle))
		a.f.note(fmt.Sprintf("idle GPU capacity costs %s per hour (%s per day), within --fail-on-idle-usd-per-hour %s; what it is:", usd(cost.USDPerHour), usd(cost.USDPerDay), usd(cost.Limit)))
		for _, f := range idle {
			a.f.note(f.Sentence())
		}
		return
	}
	a.f.res.Checks += len(idle)
	a.f.res.Findings = append(a.f.res.Findings, idle...)
}

func hasHolder(fs []Finding, pool string) bool {
	return slices.ContainsFunc(fs, func(f Finding) bool {
		return f.ID == CheckGPUHolderPod.ID && slices.Contains(f.Objects, "node pool "+pool)
	})
}

// floorOf is the nodes a pool keeps when nothing runs: autoscaling
// min_nodes, or its node count when autoscaling is off.
func floorOf(np *containerpb.NodePool, p spec.GPUPool) int {
	if !np.GetAutoscaling().GetEnabled() {
		return int(np.GetInitialNodeCount())
	}
	return p.Autoscaling.MinNodes
}

// floor is DOC022: a GPU pool that keeps nodes when nothing runs.
func (a analysis) floor(p *gpuPool) []Finding {
	n := p.use.MinNodes
	if n <= 0 {
		a.f.pass(1)
		return nil
	}
	why := fmt.Sprintf("autoscaling min_nodes is %d", n)
	fix := "set autoscaling.min_nodes = 0 on its mlplatform_gpu_pool (the pool then scales to zero when nothing runs); " +
		"if the floor is meant, allow its cost with --fail-on-idle-usd-per-hour"
	if !p.autoscaled {
		why = fmt.Sprintf("autoscaling is off and it has %d node(s)", n)
		fix = "turn autoscaling on with min_nodes = 0 (mlplatform_gpu_pool always does)"
	}
	msg := fmt.Sprintf("GPU pool %s keeps %d node(s) of %d %s GPUs when nothing runs (%s): %s", p.name, n, p.spec.GPU.Count, p.spec.GPU.Type, why,
		a.costText(p, func() (float64, bool) { h, ok := p.nodeHourly(a); return h * float64(n), ok }))
	return []Finding{{ID: CheckGPUPoolFloor.ID, Check: CheckGPUPoolFloor.Slug, Severity: SeverityWarning, Objects: []string{"node pool " + p.name}, Message: msg, Fix: fix}}
}

// costText prices an hourly amount: "$X per hour ($Y per day) at … prices",
// or why it has no price.
func (a analysis) costText(p *gpuPool, hourly func() (float64, bool)) string {
	if !p.inGKE {
		return "not priced: GKE was not read, so its accelerator and capacity type are not known"
	}
	h, ok := hourly()
	if !ok {
		return fmt.Sprintf("not priced: the price table has no %s %s (add it with --prices)", p.spec.GPU.Type, p.spec.Capacity)
	}
	return fmt.Sprintf("%s per hour (%s per day) at %s", usd(h), usd(h*24), p.priceText())
}

// nodesAndPods runs DOC020, DOC021 and DOC023 over the GPU nodes and the
// pods bound to them, and fills in each pool's usage.
func (a analysis) nodesAndPods(pools map[string]*gpuPool, pool func(string) *gpuPool, idle, flex *[]Finding) {
	s := a.s
	admitted, byOwner := admittedWorkloads(s.Workloads)
	onNode := map[string][]podFacts{}
	lastEnd := map[string]time.Time{} // node → when the last GPU pod on it finished
	for i := range s.Pods {
		pod := &s.Pods[i]
		gpus := podGPUs(pod)
		if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			if end := podEnd(pod); gpus > 0 && end.After(lastEnd[pod.Spec.NodeName]) {
				lastEnd[pod.Spec.NodeName] = end
			}
			continue
		}
		if isDaemonOrMirror(pod) {
			continue // on every node alike: the autoscaler does not wait for them
		}
		f := podFacts{pod: pod, gpus: gpus, workload: workloadOf(pod, admitted, byOwner)}
		f.blocks = scaleDownBlockers(pod, s.DisruptionBudgets)
		onNode[pod.Spec.NodeName] = append(onNode[pod.Spec.NodeName], f)
	}
	nodes := slices.Clone(s.Nodes)
	slices.SortFunc(nodes, func(x, y corev1.Node) int { return strings.Compare(x.Name, y.Name) })
	type idleNode struct {
		node  *corev1.Node
		since time.Duration
	}
	idleBy := map[string][]idleNode{}
	for i := range nodes {
		n := &nodes[i]
		alloc := n.Status.Allocatable[gpuResource]
		if alloc.Value() <= 0 {
			continue // not a GPU node yet (the device plugin has not reported), or not one at all
		}
		name := n.Labels[spec.NodePoolLabel]
		if name == "" {
			name = "(nodes without " + spec.NodePoolLabel + ")"
		}
		p := pool(name)
		p.nodes = append(p.nodes, n)
		p.use.Nodes++
		p.use.GPUs += alloc.Value()
		var req int64
		for _, f := range onNode[n.Name] {
			req += f.gpus
			p.use.Requested += f.gpus
			if f.workload != "" {
				p.use.RequestedAdmitted += f.gpus
			}
		}
		a.flexDeadline(p, n, onNode[n.Name], flex)
		if req > 0 {
			continue
		}
		since := n.CreationTimestamp.Time
		if end := lastEnd[n.Name]; end.After(since) {
			since = end
		}
		if d := s.Now.Sub(since); d > a.opts.IdleThreshold {
			idleBy[p.name] = append(idleBy[p.name], idleNode{n, d})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		p := pools[name]
		if len(p.nodes) == 0 && !p.inGKE {
			continue
		}
		// DOC021: pods that hold the pool's nodes outside Kueue.
		idleNodes := map[string]bool{}
		for _, in := range idleBy[name] {
			idleNodes[in.node.Name] = true
		}
		holders := 0
		for _, n := range p.nodes {
			for _, f := range onNode[n.Name] {
				if f.workload != "" || f.gpus == 0 && (len(f.blocks) == 0 || !idleNodes[n.Name]) {
					continue
				}
				holders++
				*idle = append(*idle, a.holder(p, n, f))
				if f.gpus > 0 {
					if h, ok := p.unitHourly(a); ok {
						p.use.IdleUSDPerHour += h * float64(f.gpus)
					}
				}
			}
		}
		if holders == 0 {
			a.f.pass(1)
		}
		// DOC020: the idle nodes, with what keeps each.
		ins := idleBy[name]
		p.use.IdleNodes = len(ins)
		nodeUSD, priced := p.nodeHourly(a)
		if priced {
			p.use.IdleUSDPerHour += nodeUSD * float64(max(len(ins), p.use.MinNodes))
		}
		if len(ins) == 0 {
			a.f.pass(1)
			continue
		}
		var names, kept []string
		longest := time.Duration(0)
		for _, in := range ins {
			names = append(names, in.node.Name)
			longest = max(longest, in.since)
			var why []string
			for _, f := range onNode[in.node.Name] {
				if len(f.blocks) > 0 {
					why = append(why, "pod "+f.label()+" ("+strings.Join(f.blocks, "; ")+")")
				}
			}
			if len(why) > 0 {
				kept = append(kept, in.node.Name+" by "+strings.Join(why, ", "))
			}
		}
		var gpus int64
		for _, in := range ins {
			q := in.node.Status.Allocatable[gpuResource]
			gpus += q.Value()
		}
		what := fmt.Sprintf("%d %s GPUs", gpus, p.use.Accelerator)
		if p.inGKE && p.spec.GPU.Sliced() {
			what = fmt.Sprintf("%d nvidia.com/gpu (MIG slices or shares of %d %s GPUs)", gpus, int64(len(ins))*int64(p.spec.GPU.Count), p.spec.GPU.Type)
		}
		msg := fmt.Sprintf("GPU pool %s: %d of its %d node(s) (%s) have had no pod request their %s for more than %s (the longest %s), running nothing: %s. "+
			"The cluster autoscaler removes a node nobody needs after 10 minutes (--scale-down-unneeded-time)",
			name, len(ins), len(p.nodes), listSome(names, 5), what, spec.FormatDuration(a.opts.IdleThreshold), longest.Round(time.Minute),
			a.costText(p, func() (float64, bool) { return nodeUSD * float64(len(ins)), priced }))
		fix := "see why the autoscaler keeps them (kubectl -n kube-system describe configmap cluster-autoscaler-status; on GKE the autoscaler's " +
			"noScaleDown events in Cloud Logging): pods that are not DaemonSets and have no controller, use local storage (emptyDir, hostPath), " +
			"are annotated " + safeToEvict + "=false, or are covered by a PodDisruptionBudget that allows no disruption keep a node"
		switch {
		case p.inGKE && p.use.MinNodes >= len(p.nodes):
			msg += fmt.Sprintf("; here the pool's floor keeps them (%d node(s) at least, DOC022)", p.use.MinNodes)
			fix = "set autoscaling.min_nodes = 0 on the pool, or allow the floor's cost with --fail-on-idle-usd-per-hour"
		case len(kept) > 0:
			msg += "; what keeps them: " + strings.Join(kept, "; ")
			fix = "delete, or let the autoscaler evict, the pods named (a controller, no local storage, " + safeToEvict + "=true, " +
				"a PodDisruptionBudget that allows a disruption); the autoscaler then removes the nodes"
		default:
			msg += "; no pod doctor sees keeps them"
		}
		*idle = append(*idle, Finding{ID: CheckGPUNodesIdle.ID, Check: CheckGPUNodesIdle.Slug, Severity: SeverityWarning,
			Objects: append([]string{"node pool " + name}, prefixAll("Node ", names)...), Message: msg, Fix: fix})
	}
}

// holder is DOC021 for one pod.
func (a analysis) holder(p *gpuPool, n *corev1.Node, f podFacts) Finding {
	owner := "no controller"
	if ref := metav1.GetControllerOf(f.pod); ref != nil {
		owner = "owner " + ref.Kind + " " + ref.Name
	}
	age := "under a minute"
	if d := a.s.Now.Sub(f.pod.CreationTimestamp.Time).Round(time.Minute); d > 0 {
		age = d.String()
	}
	var what string
	if f.gpus > 0 {
		what = fmt.Sprintf("requests %d nvidia.com/gpu of node %s (pool %s): %s", f.gpus, n.Name, p.name,
			a.costText(p, func() (float64, bool) { h, ok := p.unitHourly(a); return h * float64(f.gpus), ok }))
	} else {
		what = fmt.Sprintf("keeps idle node %s (pool %s) from scale-down (%s), whose cost DOC020 counts", n.Name, p.name, strings.Join(f.blocks, "; "))
	}
	msg := fmt.Sprintf("Pod %s (%s, %s old) belongs to no workload Kueue admitted and %s", f.label(), owner, age, what)
	fix := "if it is left over (a placeholder, a job that died before its first checkpoint), delete it (kubectl -n " + f.pod.Namespace + " delete pod " + f.pod.Name +
		"); otherwise submit it through a team's LocalQueue (label kueue.x-k8s.io/queue-name) so Kueue counts it against quota"
	return Finding{ID: CheckGPUHolderPod.ID, Check: CheckGPUHolderPod.Slug, Severity: SeverityWarning,
		Objects: []string{"Pod " + f.label(), "Node " + n.Name, "node pool " + p.name}, Message: msg, Fix: fix}
}

// flexDeadline is DOC023 for one node: a flex-start node within
// --flex-deadline-warning of its max_run_duration with a workload on it.
func (a analysis) flexDeadline(p *gpuPool, n *corev1.Node, pods []podFacts, out *[]Finding) {
	flex := p.inGKE && p.spec.Capacity == spec.CapacityFlexStart || n.Labels[spec.FlexStartLabel] == "true"
	if !flex {
		return
	}
	maxRun := spec.MaxFlexStartRunDuration
	if p.inGKE && p.spec.MaxRunDuration > 0 {
		maxRun = p.spec.MaxRunDuration
	}
	deadline := n.CreationTimestamp.Add(maxRun)
	left := deadline.Sub(a.s.Now)
	var running []string
	for _, f := range pods {
		if f.workload != "" {
			running = append(running, "workload "+f.workload)
		} else if f.gpus > 0 {
			running = append(running, "pod "+f.label()+" (no admitted workload)")
		}
	}
	running = dedupeSorted(running)
	if left > a.opts.FlexDeadlineWarning || len(running) == 0 {
		a.f.pass(1)
		return
	}
	when := "in " + left.Round(time.Minute).String()
	if left <= 0 {
		when = (-left).Round(time.Minute).String() + " ago"
	}
	*out = append(*out, Finding{ID: CheckFlexDeadline.ID, Check: CheckFlexDeadline.Slug, Severity: SeverityWarning,
		Objects: []string{"Node " + n.Name, "node pool " + p.name},
		Message: fmt.Sprintf("flex-start node %s (pool %s) reaches its max_run_duration of %s %s (at %s), when GKE reclaims it, and %s still runs on it",
			n.Name, p.name, spec.FormatDuration(maxRun), when, deadline.UTC().Format(time.RFC3339), strings.Join(running, ", ")),
		Fix: "make sure it has checkpointed (or checkpoints now) so the work is not lost, and that it resumes from the checkpoint when Kueue admits it again; " +
			"a longer run needs a longer max_run_duration on the pool (at most 7 days) or capacity that is not flex-start"})
}

// admittedWorkloads indexes the workloads Kueue admitted that have not
// finished: by namespace/name, and by the UID of the job that owns them.
func admittedWorkloads(ws []kueuev1beta2.Workload) (byName map[string]bool, byOwner map[types.UID]string) {
	byName, byOwner = map[string]bool{}, map[types.UID]string{}
	for _, w := range ws {
		c := w.Status.Conditions
		if !meta.IsStatusConditionTrue(c, kueuev1beta2.WorkloadAdmitted) || meta.IsStatusConditionTrue(c, kueuev1beta2.WorkloadFinished) {
			continue
		}
		key := w.Namespace + "/" + w.Name
		byName[key] = true
		for _, o := range w.OwnerReferences {
			byOwner[o.UID] = key
		}
	}
	return byName, byOwner
}

// workloadOf is the admitted workload a pod belongs to ("" for none).
// Kueue writes the workload's name on the pod template of the job it
// starts (annotation kueue.x-k8s.io/workload, v1beta2.WorkloadAnnotation,
// set by jobframework when TopologyAwareScheduling is on, its default), so
// the job's pods carry it, a JobSet's too; without it, the pod's
// controller is the job that owns the workload (a batch Job's pods).
func workloadOf(pod *corev1.Pod, admitted map[string]bool, byOwner map[types.UID]string) string {
	if name := pod.Annotations[kueuev1beta2.WorkloadAnnotation]; name != "" && admitted[pod.Namespace+"/"+name] {
		return pod.Namespace + "/" + name
	}
	if ref := metav1.GetControllerOf(pod); ref != nil {
		return byOwner[ref.UID]
	}
	return ""
}

// podGPUs is the nvidia.com/gpu a pod requests: its containers' sum, or its
// largest init container when that is more (the scheduler's rule).
func podGPUs(pod *corev1.Pod) int64 {
	var sum, initMax int64
	for _, c := range pod.Spec.Containers {
		q := c.Resources.Requests[gpuResource]
		sum += q.Value()
	}
	for _, c := range pod.Spec.InitContainers {
		q := c.Resources.Requests[gpuResource]
		initMax = max(initMax, q.Value())
	}
	return max(sum, initMax)
}

// podEnd is when a finished pod ended: its last container's end, else its
// last condition's change, else its creation.
func podEnd(pod *corev1.Pod) time.Time {
	end := pod.CreationTimestamp.Time
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(end) {
			end = t.FinishedAt.Time
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.LastTransitionTime.After(end) {
			end = c.LastTransitionTime.Time
		}
	}
	return end
}

func isDaemonOrMirror(pod *corev1.Pod) bool {
	if _, mirror := pod.Annotations[mirrorPod]; mirror {
		return true
	}
	ref := metav1.GetControllerOf(pod)
	return ref != nil && ref.Kind == "DaemonSet"
}

// scaleDownBlockers says what about a pod keeps the cluster autoscaler from
// draining its node, as the autoscaler's FAQ lists them ("What types of
// pods can prevent CA from removing a node?"), those the API shows: no
// controller, local storage (emptyDir, hostPath), safe-to-evict=false, a
// PodDisruptionBudget that allows no disruption. safe-to-evict=true lifts
// the first two.
func scaleDownBlockers(pod *corev1.Pod, pdbs []policyv1.PodDisruptionBudget) []string {
	var out []string
	evict := pod.Annotations[safeToEvict]
	if evict == "false" {
		out = append(out, safeToEvict+"=false")
	}
	if evict != "true" {
		if metav1.GetControllerOf(pod) == nil {
			out = append(out, "no controller: nothing would recreate it elsewhere")
		}
		for _, v := range pod.Spec.Volumes {
			switch {
			case v.EmptyDir != nil:
				out = append(out, "local storage: emptyDir "+v.Name)
			case v.HostPath != nil:
				out = append(out, "local storage: hostPath "+v.Name)
			}
		}
	}
	for _, b := range pdbs {
		if b.Namespace != pod.Namespace || b.Status.DisruptionsAllowed > 0 {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || sel.Empty() && b.Spec.Selector == nil || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		out = append(out, "PodDisruptionBudget "+b.Name+" allows no disruption")
	}
	return out
}

func prefixAll(prefix string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = prefix + s
	}
	return out
}

func dedupeSorted(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

// usd writes an amount of dollars with cents and thousands separators.
func usd(v float64) string {
	cents := int64(v*100 + 0.5)
	whole, frac := cents/100, cents%100
	s := fmt.Sprint(whole)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return fmt.Sprintf("$%s.%02d", s, frac)
}
