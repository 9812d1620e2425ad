// Package model is the one model of the GPU platform that the review of a
// plan (`mlplatform report`) and the check of a live cluster (`mlplatform
// doctor`) both judge (internal/rules). Its objects are the spec types of
// internal/spec, each with what is known only after apply (a plan's
// unknowns) and where it came from: a Terraform address, or a Kubernetes
// object or GKE node pool. Two adapters build it: FromPlan (a saved plan,
// before or after) and FromLive (what the cluster and GKE hold). It imports
// no Terraform package.
package model

import (
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Platform is the platform as one source sees it.
type Platform struct {
	// Live: the platform as the cluster and GKE hold it, every object of
	// each kind (so one that is not there does not exist); otherwise a
	// plan's configuration, which may leave objects to others (managed
	// elsewhere, so not in the plan).
	Live bool

	Namespaces         []*Namespace
	Queues             []*ClusterQueue
	Cohorts            []*Cohort
	Topologies         []*Topology
	LocalQueues        []*LocalQueue
	Flavors            []*Flavor
	Pools              []*Pool
	ProvisioningChecks []*ProvisioningCheck
	Policies           []*NetworkPolicy
	Identities         []*Identity
	MultiKueueChecks   []*MultiKueueCheck
	// Widenings are what NetworkPolicies that are not the platform's open
	// in a team namespace beyond its training network policy's holes (live
	// only: a plan holds no one else's policies).
	Widenings []*Widening

	// Unread are the kinds a live source could not read, each with why: the
	// rules that need one do not run (a kind not read would read as one with
	// no objects). A plan reads every kind.
	Unread map[Kind]string
}

// Kind is a kind of the model's objects, as a source reads it.
type Kind string

// The kinds. AdmissionChecks are the provisioning and MultiKueue checks
// with their parameters; NetworkPolicies are the training network policies
// and what others widen; Identities are the Kubernetes service accounts
// bound to Google service accounts.
const (
	KindNamespaces      Kind = "Namespaces"
	KindClusterQueues   Kind = "ClusterQueues"
	KindCohorts         Kind = "Cohorts"
	KindTopologies      Kind = "Topologies"
	KindLocalQueues     Kind = "LocalQueues"
	KindFlavors         Kind = "ResourceFlavors"
	KindPools           Kind = "node pools"
	KindAdmissionChecks Kind = "AdmissionChecks"
	KindNetworkPolicies Kind = "NetworkPolicies"
	KindIdentities      Kind = "ServiceAccounts"
)

// Src is where an object came from, and names it.
type Src struct {
	// Address is the object's Terraform address ("" for a live object).
	Address string
	// Kind and Name name the object as the cluster or GKE knows it
	// ("ClusterQueue", "team-a"; "LocalQueue", "team-a/gpu"; "node pool",
	// "h100"); Name is "" while it is known only after apply.
	Kind, Name string
	// Cluster is the cluster the object is in: a plan's provider
	// configuration key, or the live cluster; "" when not known (a plan of
	// one cluster).
	Cluster string
}

// Label names the object in findings: its address, else Kind and Name.
func (s Src) Label() string {
	if s.Address != "" {
		return s.Address
	}
	return s.Kind + " " + s.Name
}

// Object is what every object of the model has.
type Object interface {
	Source() Src
}

// Source is where the object came from.
func (s Src) Source() Src { return s }

// Unknown holds the attributes of an object known only after apply, by
// their path in the resource's schema ("namespace_selector",
// "gpu.partition_size", "resource_groups.h100.nvidia.com/gpu.nominal_quota").
// A live object has none.
type Unknown map[string]bool

// Any reports whether an attribute at one of paths, or under it, is unknown.
func (u Unknown) Any(paths ...string) bool {
	for k := range u {
		for _, p := range paths {
			if k == p || strings.HasPrefix(k, p+".") {
				return true
			}
		}
	}
	return false
}

func (u Unknown) mark(path string) { u[path] = true }

// Namespace is a team namespace.
type Namespace struct {
	Src
	Spec spec.TeamNamespace
	// Labels are every label the namespace carries: what its spec sets and
	// what Kubernetes adds (kubernetes.io/metadata.name), and on a live
	// namespace what other tools added.
	Labels  map[string]string
	Unknown Unknown
}

// ClusterQueue is a Kueue ClusterQueue.
type ClusterQueue struct {
	Src
	Spec spec.ClusterQueue
	// SelectorAbsent: the plan does not carry namespace_selector (a
	// hand-written or trimmed plan; Terraform writes every attribute).
	SelectorAbsent bool
	Unknown        Unknown
}

// Cohort is a Kueue Cohort.
type Cohort struct {
	Src
	Spec    spec.Cohort
	Unknown Unknown
}

// Topology is a Kueue Topology.
type Topology struct {
	Src
	Spec    spec.Topology
	Unknown Unknown
}

// LocalQueue is a Kueue LocalQueue.
type LocalQueue struct {
	Src
	Spec    spec.LocalQueue
	Unknown Unknown
}

// Flavor is a Kueue ResourceFlavor.
type Flavor struct {
	Src
	Spec spec.ResourceFlavor
	// TolerationsAbsent: the plan does not carry tolerations (a plan of a
	// provider before they existed): the rules over taints leave it out.
	TolerationsAbsent bool
	// Deleting is when a live flavor's deletion was asked for (RFC 3339;
	// "" when it is not being deleted): Kueue's finalizer keeps it while a
	// queue names it.
	Deleting string
	Unknown  Unknown
}

// Pool is a GKE node pool: one of the platform's GPU pools in a plan; live,
// every node pool of the cluster (a pool without accelerators has a zero
// GPU).
type Pool struct {
	Src
	Spec spec.GPUPool
	// GPUs: the pool's nodes have GPUs (every mlplatform_gpu_pool, also
	// while its gpu is known only after apply).
	GPUs bool
	// ExtraTaints are taints GKE reports on the nodes beyond what the spec
	// says (a plan's effective_taints, a live pool's): they keep pods off too.
	ExtraTaints []spec.Taint
	// AllocatablePerNode is the nvidia.com/gpu one node reports
	// (allocatable_gpus_per_node in a plan; spec.GPUPool.AllocatableGPUsPerNode
	// live); AllocatableAbsent: a plan of a provider without the attribute.
	AllocatablePerNode int64
	AllocatableAbsent  bool
	// TopologyLabelsSaid is the plan's topology_labels (nil live, or in a
	// plan of a provider without it: TopologyLabels computes it).
	TopologyLabelsSaid *bool
	// Where is project/location/cluster as the plan says, for labels.
	Where string
	// Status is GKE's status of a live pool (RUNNING, ...); "" in a plan.
	Status  string
	Unknown Unknown
}

// ProvisioningCheck is a provisioning admission check (an AdmissionCheck of
// Kueue's ProvisioningRequest controller and its ProvisioningRequestConfig).
type ProvisioningCheck struct {
	Src
	Spec    spec.ProvisioningAdmissionCheck
	Unknown Unknown
}

// Queued reports whether the check asks GKE for queued provisioning
// (flex-start), and whether that is known.
func (p *ProvisioningCheck) Queued() (queued, known bool) {
	if p.Unknown.Any("provisioning_class") {
		return false, false
	}
	return p.Spec.ProvisioningClass == "" || p.Spec.ProvisioningClass == spec.QueuedProvisioningClass, true
}

// NetworkPolicy is a team namespace's training network policy.
type NetworkPolicy struct {
	Src
	Spec    spec.TrainingNetworkPolicy
	Unknown Unknown
}

// Identity is a Workload Identity binding: a Kubernetes service account
// acting as a Google identity.
type Identity struct {
	Src
	Spec    spec.WorkloadIdentity
	Unknown Unknown
}

// MultiKueueCheck is a MultiKueue admission check.
type MultiKueueCheck struct {
	Src
	Spec    spec.MultiKueueCheck
	Unknown Unknown
}

// Widening is a NetworkPolicy that is not the platform's and lets the pods
// of a team namespace do more than its training network policy's holes.
type Widening struct {
	Src              // the policy that widens
	Namespace string // the team namespace
	Opens     string // what it opens, in words (netpol.Widening.Opens)
	// Err, when set, says why the namespace's policies could not be
	// evaluated (then Src is the namespace).
	Err string
}

// Known is a value of a string attribute with its state, for the rules'
// messages: Known false with Unknown false is null (unset).
type Known struct {
	S              string
	Known, Unknown bool
}

// known reads a string attribute of an object: unknown when its path is.
func known(s string, u Unknown, path string) Known {
	if u.Any(path) {
		return Known{Unknown: true}
	}
	return Known{S: s, Known: s != ""}
}

// NameOf is an object's name as a Known.
func NameOf(o Object) Known {
	s := o.Source()
	return Known{S: s.Name, Known: s.Name != "", Unknown: s.Name == ""}
}

// Objects lists every object of the platform, kind by kind.
func (pl *Platform) Objects() []Object {
	var out []Object
	out = appendObjects(out, pl.Namespaces)
	out = appendObjects(out, pl.Queues)
	out = appendObjects(out, pl.Cohorts)
	out = appendObjects(out, pl.Topologies)
	out = appendObjects(out, pl.LocalQueues)
	out = appendObjects(out, pl.Flavors)
	out = appendObjects(out, pl.Pools)
	out = appendObjects(out, pl.ProvisioningChecks)
	out = appendObjects(out, pl.Policies)
	out = appendObjects(out, pl.Identities)
	out = appendObjects(out, pl.MultiKueueChecks)
	return appendObjects(out, pl.Widenings)
}

func appendObjects[T Object](out []Object, xs []T) []Object {
	for _, x := range xs {
		out = append(out, x)
	}
	return out
}
