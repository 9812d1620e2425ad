package reconcile

// The Kueue kinds the platform writes as single objects: ClusterQueues,
// LocalQueues, Cohorts, ResourceFlavors, WorkloadPriorityClasses and
// Topologies. Each is an Object (object.go) with the kind's build, read and
// diff; the queues add readiness, and the queues, flavors and Topologies what
// still uses them on delete.

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ClusterQueues reconciles Kueue ClusterQueues.
type ClusterQueues = Object[spec.ClusterQueue, *kueuev1beta2.ClusterQueue, *kueueac.ClusterQueueApplyConfiguration]

var _ Reconciler[Ref, spec.ClusterQueue, spec.ClusterQueue] = ClusterQueues{}

// NewClusterQueues reconciles through c.
func NewClusterQueues(c *kube.Client) ClusterQueues {
	o := clusterScoped(c, "ClusterQueue", c.Kueue.KueueV1beta2().ClusterQueues(), metav1.ListOptions{}, kueue.ClusterQueue, kueue.ClusterQueueSpec, DiffClusterQueue)
	withQueueReadiness(&o)
	o.Blockers = func(ctx context.Context, ref Ref) ([]string, error) { return queueWorkloads(ctx, c, ref.Name) }
	return o
}

// withQueueReadiness is how a ClusterQueue reports ready: Kueue's Active
// condition, not awaited while the stop policy holds the queue.
func withQueueReadiness(o *ClusterQueues) {
	o.Ready = func(q *kueuev1beta2.ClusterQueue) Readiness {
		return ConditionReadiness(q.Status.Conditions, kueuev1beta2.ClusterQueueActive)
	}
	o.Awaits = func(q spec.ClusterQueue) bool { return !held(q.StopPolicy) }
	o.Explain = ExplainClusterQueue
}

// queueWorkloads lists the workloads holding quota in the ClusterQueue:
// Kueue keeps the queue (finalizer kueue.x-k8s.io/resource-in-use) until they
// finish or are evicted.
func queueWorkloads(ctx context.Context, c *kube.Client, queue string) ([]string, error) {
	wls, err := c.Kueue.KueueV1beta2().Workloads("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var users []string
	for _, w := range wls.Items {
		if a := w.Status.Admission; a != nil && string(a.ClusterQueue) == queue && w.DeletionTimestamp == nil {
			users = append(users, "admitted workload "+w.Namespace+"/"+w.Name)
		}
	}
	if len(users) > 5 {
		users = append(users[:5], fmt.Sprintf("%d more", len(users)-5))
	}
	return users, nil
}

// DiffClusterQueue names the fields of actual that differ from desired,
// after Kueue's defaults, comparing quantities by value (12 = 12000m).
func DiffClusterQueue(desired, actual spec.ClusterQueue) []string {
	d, a := desired.Defaulted(), actual.Defaulted()
	var out []string
	add := func(name string, same bool) {
		if !same {
			out = append(out, name)
		}
	}
	add("cohort", d.Cohort == a.Cohort)
	add("namespace_selector", sameSelector(d.NamespaceSelector, a.NamespaceSelector))
	add("resource_groups", spec.ResourceGroupsEqual(d.ResourceGroups, a.ResourceGroups))
	add("queueing_strategy", d.QueueingStrategy == a.QueueingStrategy)
	add("preemption", reflect.DeepEqual(d.Preemption, a.Preemption))
	add("flavor_fungibility", d.FlavorFungibility == a.FlavorFungibility)
	add("admission_checks", sameChecks(d.AdmissionChecks, a.AdmissionChecks))
	add("stop_policy", d.StopPolicy == a.StopPolicy)
	add("fair_sharing_weight", spec.QuantityEqual(d.FairSharingWeight, a.FairSharingWeight))
	return out
}

func sameSelector(a, b *spec.LabelSelector) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	if a == nil {
		return true
	}
	return sameMap(a.MatchLabels, b.MatchLabels) && sameList(a.MatchExpressions, b.MatchExpressions)
}

func sameChecks(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !slices.Equal(v, w) {
			return false
		}
	}
	return true
}

// ExplainClusterQueue says in plain words why a ClusterQueue is not active.
func ExplainClusterQueue(q spec.ClusterQueue) func(Readiness) string {
	return func(r Readiness) string {
		switch r.Reason {
		case "FlavorNotFound":
			return "it references a ResourceFlavor that does not exist"
		case "AdmissionCheckNotFound":
			return "it references an AdmissionCheck that does not exist"
		case "AdmissionCheckInactive":
			return "one of its admission checks is not active; check its controller and parameters"
		case "TopologyNotFound":
			return "one of its flavors names a Topology that does not exist; create it (mlplatform_topology) or use a flavor without topology_name"
		case "Stopped":
			return fmt.Sprintf("stop_policy is %s", q.StopPolicy)
		case "NoStatus":
			return "Kueue has not reported on it; check that the Kueue manager is running (kubectl -n kueue-system get pods)"
		}
		return ""
	}
}

// LocalQueues reconciles Kueue LocalQueues.
type LocalQueues = Object[spec.LocalQueue, *kueuev1beta2.LocalQueue, *kueueac.LocalQueueApplyConfiguration]

var _ Reconciler[Ref, spec.LocalQueue, spec.LocalQueue] = LocalQueues{}

// NewLocalQueues reconciles through c.
func NewLocalQueues(c *kube.Client) LocalQueues {
	return LocalQueues{
		Kind: "LocalQueue",
		List: kube.Listed(c, "LocalQueue", kube.ListFunc[*kueuev1beta2.LocalQueue](c.Kueue.KueueV1beta2().LocalQueues("").List, metav1.ListOptions{})),
		API: func(ns string) ObjectAPI[*kueuev1beta2.LocalQueue, *kueueac.LocalQueueApplyConfiguration] {
			return c.Kueue.KueueV1beta2().LocalQueues(ns)
		},
		Build:    kueue.LocalQueue,
		Read:     kueue.LocalQueueSpec,
		DiffSpec: DiffLocalQueue,
		Ready: func(q *kueuev1beta2.LocalQueue) Readiness {
			return ConditionReadiness(q.Status.Conditions, kueuev1beta2.LocalQueueActive)
		},
		Awaits:  func(q spec.LocalQueue) bool { return !held(q.StopPolicy) },
		Explain: ExplainLocalQueue,
	}
}

// held reports a stop policy that holds a queue, so it is not expected to
// become active ("" is Kueue's default, None).
func held(stopPolicy string) bool { return stopOrNone(stopPolicy) != string(kueuev1beta2.None) }

// DiffLocalQueue names the fields of actual that differ from desired.
func DiffLocalQueue(desired, actual spec.LocalQueue) []string {
	var d []string
	if desired.ClusterQueue != actual.ClusterQueue {
		d = append(d, "cluster_queue")
	}
	if stopOrNone(desired.StopPolicy) != stopOrNone(actual.StopPolicy) {
		d = append(d, "stop_policy")
	}
	return d
}

func stopOrNone(p string) string {
	if p == "" {
		return string(kueuev1beta2.None)
	}
	return p
}

// ExplainLocalQueue says in plain words why a LocalQueue is not active.
func ExplainLocalQueue(q spec.LocalQueue) func(Readiness) string {
	return func(r Readiness) string {
		switch r.Reason {
		case "ClusterQueueDoesNotExist":
			return fmt.Sprintf("its ClusterQueue %q does not exist", q.ClusterQueue)
		case "ClusterQueueIsInactive":
			return fmt.Sprintf("its ClusterQueue %q is not active; see why with kubectl describe clusterqueue %s", q.ClusterQueue, q.ClusterQueue)
		case "NoStatus":
			return "Kueue has not reported on it; check that the Kueue manager is running (kubectl -n kueue-system get pods)"
		}
		return ""
	}
}

// Cohorts reconciles Kueue Cohorts.
type Cohorts = Object[spec.Cohort, *kueuev1beta2.Cohort, *kueueac.CohortApplyConfiguration]

var _ Reconciler[Ref, spec.Cohort, spec.Cohort] = Cohorts{}

// NewCohorts reconciles through c.
func NewCohorts(c *kube.Client) Cohorts {
	return clusterScoped(c, "Cohort", c.Kueue.KueueV1beta2().Cohorts(), metav1.ListOptions{}, kueue.Cohort, kueue.CohortSpec, DiffCohort)
}

// DiffCohort names the fields of actual that differ from desired.
// Quantities are compared by value ("12" equals "12000m").
func DiffCohort(desired, actual spec.Cohort) []string {
	var d []string
	if desired.Parent != actual.Parent {
		d = append(d, "parent")
	}
	if !spec.ResourceGroupsEqual(desired.ResourceGroups, actual.ResourceGroups) {
		d = append(d, "resource_groups")
	}
	if !spec.QuantityEqual(desired.FairSharingWeight, actual.FairSharingWeight) {
		d = append(d, "fair_sharing_weight")
	}
	return d
}

// ResourceFlavors reconciles Kueue ResourceFlavors.
type ResourceFlavors = Object[spec.ResourceFlavor, *kueuev1beta2.ResourceFlavor, *kueueac.ResourceFlavorApplyConfiguration]

var _ Reconciler[Ref, spec.ResourceFlavor, spec.ResourceFlavor] = ResourceFlavors{}

// NewResourceFlavors reconciles through c.
func NewResourceFlavors(c *kube.Client) ResourceFlavors {
	o := clusterScoped(c, "ResourceFlavor", c.Kueue.KueueV1beta2().ResourceFlavors(), metav1.ListOptions{}, kueue.ResourceFlavor, kueue.ResourceFlavorSpec, DiffResourceFlavor)
	o.Blockers = func(ctx context.Context, ref Ref) ([]string, error) { return flavorUsers(ctx, c, ref.Name) }
	return o
}

// flavorUsers lists the ClusterQueues and Cohorts (not being deleted) whose
// quotas name the flavor.
func flavorUsers(ctx context.Context, c *kube.Client, flavor string) ([]string, error) {
	var users []string
	cqs, err := c.Kueue.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, q := range cqs.Items {
		if q.DeletionTimestamp == nil && groupsName(q.Spec.ResourceGroups, flavor) {
			users = append(users, "ClusterQueue "+q.Name)
		}
	}
	cohorts, err := c.Kueue.KueueV1beta2().Cohorts().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, co := range cohorts.Items {
		if co.DeletionTimestamp == nil && groupsName(co.Spec.ResourceGroups, flavor) {
			users = append(users, "Cohort "+co.Name)
		}
	}
	return users, nil
}

func groupsName(groups []kueuev1beta2.ResourceGroup, flavor string) bool {
	for _, g := range groups {
		for _, f := range g.Flavors {
			if string(f.Name) == flavor {
				return true
			}
		}
	}
	return false
}

// DiffResourceFlavor names the fields of actual that differ from desired.
// Empty and absent are the same (nil and empty maps and lists).
func DiffResourceFlavor(desired, actual spec.ResourceFlavor) []string {
	var d []string
	if !sameMap(desired.NodeLabels, actual.NodeLabels) {
		d = append(d, "node_labels")
	}
	if !sameList(desired.NodeTaints, actual.NodeTaints) {
		d = append(d, "node_taints")
	}
	if !sameList(desired.Tolerations, actual.Tolerations) {
		d = append(d, "tolerations")
	}
	if desired.TopologyName != actual.TopologyName {
		d = append(d, "topology_name")
	}
	return d
}

func sameMap[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sameList[T any](a, b []T) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// WorkloadPriorityClasses reconciles Kueue WorkloadPriorityClasses.
type WorkloadPriorityClasses = Object[spec.WorkloadPriorityClass, *kueuev1beta2.WorkloadPriorityClass, *kueueac.WorkloadPriorityClassApplyConfiguration]

var _ Reconciler[Ref, spec.WorkloadPriorityClass, spec.WorkloadPriorityClass] = WorkloadPriorityClasses{}

// NewWorkloadPriorityClasses reconciles through c.
func NewWorkloadPriorityClasses(c *kube.Client) WorkloadPriorityClasses {
	return clusterScoped(c, "WorkloadPriorityClass", c.Kueue.KueueV1beta2().WorkloadPriorityClasses(), metav1.ListOptions{}, kueue.WorkloadPriorityClass, kueue.WorkloadPriorityClassSpec, DiffWorkloadPriorityClass)
}

// DiffWorkloadPriorityClass names the fields of actual that differ from desired.
func DiffWorkloadPriorityClass(desired, actual spec.WorkloadPriorityClass) []string {
	var d []string
	if desired.Value != actual.Value {
		d = append(d, "value")
	}
	if desired.Description != actual.Description {
		d = append(d, "description")
	}
	return d
}

// Topologies reconciles Kueue Topologies.
type Topologies = Object[spec.Topology, *kueuev1beta2.Topology, *kueueac.TopologyApplyConfiguration]

var _ Reconciler[Ref, spec.Topology, spec.Topology] = Topologies{}

// NewTopologies reconciles through c. A Topology named by a ResourceFlavor
// is held by Kueue (finalizer kueue.x-k8s.io/resource-in-use) until no
// flavor names it: delete refuses while one does.
func NewTopologies(c *kube.Client) Topologies {
	o := clusterScoped(c, "Topology", c.Kueue.KueueV1beta2().Topologies(), metav1.ListOptions{}, kueue.Topology, kueue.TopologySpec, DiffTopology)
	o.Blockers = func(ctx context.Context, ref Ref) ([]string, error) { return topologyUsers(ctx, c, ref.Name) }
	return o
}

// topologyUsers lists the ResourceFlavors (not being deleted) naming the
// Topology.
func topologyUsers(ctx context.Context, c *kube.Client, topology string) ([]string, error) {
	fls, err := c.Kueue.KueueV1beta2().ResourceFlavors().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var users []string
	for _, f := range fls.Items {
		if f.DeletionTimestamp == nil && f.Spec.TopologyName != nil && string(*f.Spec.TopologyName) == topology {
			users = append(users, "ResourceFlavor "+f.Name)
		}
	}
	return users, nil
}

// DiffTopology names the fields of actual that differ from desired.
func DiffTopology(desired, actual spec.Topology) []string {
	if !slices.Equal(desired.Levels, actual.Levels) {
		return []string{"levels"}
	}
	return nil
}
