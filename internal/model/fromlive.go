package model

import (
	"slices"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Live is what the cluster and GKE hold, one list per kind (a kind not read
// is nil, and its objects are not in the platform).
type Live struct {
	// Cluster is the GKE cluster, projects/P/locations/L/clusters/C ("" when
	// GKE was not read).
	Cluster             string
	Namespaces          []corev1.Namespace
	ClusterQueues       []kueuev1beta2.ClusterQueue
	Cohorts             []kueuev1beta2.Cohort
	Topologies          []kueuev1beta2.Topology
	LocalQueues         []kueuev1beta2.LocalQueue
	Flavors             []kueuev1beta2.ResourceFlavor
	AdmissionChecks     []kueuev1beta2.AdmissionCheck
	ProvisioningConfigs []kueuev1beta2.ProvisioningRequestConfig
	MultiKueueConfigs   []kueuev1beta2.MultiKueueConfig
	NetworkPolicies     []networkingv1.NetworkPolicy
	ServiceAccounts     []corev1.ServiceAccount
	Pools               []*containerpb.NodePool
	// Unread are the kinds that could not be read, each with why.
	Unread map[Kind]string
}

// FromLive builds the platform as the cluster and GKE hold it, through the
// library's own readers (internal/kueue, internal/netpol, reconcile's node
// pool mapping), so a live object reads as the spec the provider would
// write for it. Objects being deleted are left out.
func FromLive(l Live) *Platform {
	pl := &Platform{Live: true, Unread: l.Unread}
	src := func(kind, name string) Src { return Src{Kind: kind, Name: name, Cluster: l.Cluster} }
	for i := range l.Namespaces {
		ns := &l.Namespaces[i]
		if ns.DeletionTimestamp != nil {
			continue
		}
		pl.Namespaces = append(pl.Namespaces, &Namespace{Src: src("Namespace", ns.Name), Spec: kueue.TeamNamespaceSpec(ns), Labels: ns.Labels, Unknown: Unknown{}})
	}
	for i := range l.ClusterQueues {
		if q := &l.ClusterQueues[i]; q.DeletionTimestamp == nil {
			pl.Queues = append(pl.Queues, &ClusterQueue{Src: src("ClusterQueue", q.Name), Spec: kueue.ClusterQueueSpec(q), Unknown: Unknown{}})
		}
	}
	for i := range l.Cohorts {
		if c := &l.Cohorts[i]; c.DeletionTimestamp == nil {
			pl.Cohorts = append(pl.Cohorts, &Cohort{Src: src("Cohort", c.Name), Spec: kueue.CohortSpec(c), Unknown: Unknown{}})
		}
	}
	for i := range l.Topologies {
		// One being deleted is still there while a flavor names it (Kueue's
		// finalizer), so it stays in the platform.
		t := &l.Topologies[i]
		pl.Topologies = append(pl.Topologies, &Topology{Src: src("Topology", t.Name), Spec: kueue.TopologySpec(t), Unknown: Unknown{}})
	}
	for i := range l.LocalQueues {
		if q := &l.LocalQueues[i]; q.DeletionTimestamp == nil {
			pl.LocalQueues = append(pl.LocalQueues, &LocalQueue{Src: src("LocalQueue", q.Namespace+"/"+q.Name), Spec: kueue.LocalQueueSpec(q), Unknown: Unknown{}})
		}
	}
	for i := range l.Flavors {
		// One being deleted is still there for what uses it (Kueue's
		// finalizer), so it stays in the platform.
		f := &l.Flavors[i]
		fl := &Flavor{Src: src("ResourceFlavor", f.Name), Spec: kueue.ResourceFlavorSpec(f), Unknown: Unknown{}}
		if f.DeletionTimestamp != nil {
			fl.Deleting = f.DeletionTimestamp.UTC().Format(time.RFC3339)
		}
		pl.Flavors = append(pl.Flavors, fl)
	}
	configs := map[string]*kueuev1beta2.ProvisioningRequestConfig{}
	for i := range l.ProvisioningConfigs {
		configs[l.ProvisioningConfigs[i].Name] = &l.ProvisioningConfigs[i]
	}
	mkConfigs := map[string]*kueuev1beta2.MultiKueueConfig{}
	for i := range l.MultiKueueConfigs {
		mkConfigs[l.MultiKueueConfigs[i].Name] = &l.MultiKueueConfigs[i]
	}
	for i := range l.AdmissionChecks {
		ac := &l.AdmissionChecks[i]
		if ac.DeletionTimestamp != nil {
			continue
		}
		param := ""
		if p := ac.Spec.Parameters; p != nil {
			param = p.Name
		}
		switch ac.Spec.ControllerName {
		case kueuev1beta2.ProvisioningRequestControllerName:
			pc := &ProvisioningCheck{Src: src("AdmissionCheck", ac.Name), Spec: spec.ProvisioningAdmissionCheck{Name: ac.Name}, Unknown: Unknown{}}
			if c := configs[param]; c != nil {
				pc.Spec = kueue.ProvisioningRequestConfigSpec(c)
				pc.Spec.Name = ac.Name
			} else {
				pc.Spec.ProvisioningClass = "(no ProvisioningRequestConfig " + param + ")"
			}
			pl.ProvisioningChecks = append(pl.ProvisioningChecks, pc)
		case kueuev1beta2.MultiKueueControllerName:
			mk := &MultiKueueCheck{Src: src("AdmissionCheck", ac.Name), Spec: spec.MultiKueueCheck{Name: ac.Name}, Unknown: Unknown{}}
			if c := mkConfigs[param]; c != nil {
				mk.Spec.Clusters = kueue.MultiKueueConfigSpec(c).Clusters
			}
			pl.MultiKueueChecks = append(pl.MultiKueueChecks, mk)
		}
	}
	pl.fromLivePolicies(l)
	for i := range l.ServiceAccounts {
		sa := &l.ServiceAccounts[i]
		gsa := sa.Annotations[spec.GSAAnnotation]
		if gsa == "" || sa.DeletionTimestamp != nil {
			continue // not bound to a Google service account (direct mode cannot be told from the cluster)
		}
		pl.Identities = append(pl.Identities, &Identity{Src: src("ServiceAccount", sa.Namespace+"/"+sa.Name),
			Spec: spec.WorkloadIdentity{Namespace: sa.Namespace, KSA: sa.Name, Mode: spec.ModeGoogleServiceAccount, GSAEmail: gsa}, Unknown: Unknown{}})
	}
	ref := poolRef(l.Cluster)
	for _, np := range l.Pools {
		s := reconcile.FromNodePool(ref, np, spec.GPUPool{})
		p := &Pool{Src: src("node pool", np.GetName()), Spec: s, GPUs: len(np.GetConfig().GetAccelerators()) > 0,
			AllocatablePerNode: int64(s.AllocatableGPUsPerNode()), Status: np.GetStatus().String(), Unknown: Unknown{}}
		for _, t := range np.GetConfig().GetTaints() {
			p.ExtraTaints = append(p.ExtraTaints, spec.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: taintEffect(t.GetEffect())})
		}
		pl.Pools = append(pl.Pools, p)
	}
	return pl
}

// fromLivePolicies reads each team namespace's training network policy
// (the platform's NetworkPolicies there, netpol.Split, with its default
// deny) and what the others there open beyond them (netpol.Widenings).
func (pl *Platform) fromLivePolicies(l Live) {
	byNS := map[string][]networkingv1.NetworkPolicy{}
	for _, np := range l.NetworkPolicies {
		byNS[np.Namespace] = append(byNS[np.Namespace], np)
	}
	for _, ns := range spec.SortedKeys(byNS) {
		platform, others := netpol.Split(byNS[ns])
		if !slices.ContainsFunc(platform, func(p networkingv1.NetworkPolicy) bool { return p.Name == netpol.DefaultDeny }) {
			continue // not a team namespace of the platform
		}
		pl.Policies = append(pl.Policies, &NetworkPolicy{Src: Src{Kind: "NetworkPolicy", Name: ns + "/" + netpol.DefaultDeny, Cluster: l.Cluster},
			Spec: netpol.Read(ns, platform), Unknown: Unknown{}})
		ws, err := netpol.Widenings(ns, platform, others)
		if err != nil {
			pl.Widenings = append(pl.Widenings, &Widening{Src: Src{Kind: "Namespace", Name: ns, Cluster: l.Cluster}, Namespace: ns, Err: err.Error()})
			continue
		}
		for _, w := range ws {
			pl.Widenings = append(pl.Widenings, &Widening{Src: Src{Kind: "NetworkPolicy", Name: ns + "/" + w.Policy, Cluster: l.Cluster},
				Namespace: ns, Opens: w.Opens()})
		}
	}
}

func poolRef(cluster string) reconcile.GPUPoolRef {
	parts := strings.Split(cluster, "/")
	if len(parts) != 6 {
		return reconcile.GPUPoolRef{}
	}
	return reconcile.GPUPoolRef{Project: parts[1], Location: parts[3], Cluster: parts[5]}
}

func taintEffect(e containerpb.NodeTaint_Effect) string {
	switch e {
	case containerpb.NodeTaint_NO_SCHEDULE:
		return "NoSchedule"
	case containerpb.NodeTaint_PREFER_NO_SCHEDULE:
		return "PreferNoSchedule"
	case containerpb.NodeTaint_NO_EXECUTE:
		return "NoExecute"
	}
	return ""
}
