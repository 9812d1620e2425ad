package doctor

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// otherPolicyKinds are the CRDs of other policy kinds that can also let a
// team namespace's pods do more than its NetworkPolicies say, by what
// serves them. Doctor does not evaluate them; when the cluster serves one,
// a note says so (see the checks guide, MLP018).
var otherPolicyKinds = map[string]string{
	"fqdnnetworkpolicies.networking.gke.io":                 "FQDNNetworkPolicy (GKE Dataplane V2, --enable-fqdn-network-policy): egress to host names",
	"ciliumclusterwidenetworkpolicies.cilium.io":            "CiliumClusterwideNetworkPolicy (GKE Dataplane V2, --enable-cilium-clusterwide-network-policy)",
	"ciliumnetworkpolicies.cilium.io":                       "CiliumNetworkPolicy",
	"adminnetworkpolicies.policy.networking.k8s.io":         "AdminNetworkPolicy",
	"baselineadminnetworkpolicies.policy.networking.k8s.io": "BaselineAdminNetworkPolicy",
}

// Live is the platform as the snapshot holds it, for the rules: each kind
// that was read, and, for each that was not, the read that failed.
func (s *Snapshot) Live() (model.Live, map[model.Kind]Read) {
	l := model.Live{Cluster: s.Cluster, Unread: map[model.Kind]string{}}
	failed := map[model.Kind]Read{}
	take := func(r Read, k model.Kind, set func()) {
		if r.ok() {
			set()
			return
		}
		if _, have := failed[k]; !have {
			failed[k] = r
			l.Unread[k] = r.What
		}
	}
	take(s.NamespacesRead, model.KindNamespaces, func() { l.Namespaces = s.Namespaces })
	take(s.CQRead, model.KindClusterQueues, func() { l.ClusterQueues = s.ClusterQueues })
	take(s.CohortsRead, model.KindCohorts, func() { l.Cohorts = s.Cohorts })
	take(s.TopologiesRead, model.KindTopologies, func() { l.Topologies = s.Topologies })
	take(s.LQRead, model.KindLocalQueues, func() { l.LocalQueues = s.LocalQueues })
	take(s.FlavorsRead, model.KindFlavors, func() { l.Flavors = s.Flavors })
	take(s.ACRead, model.KindAdmissionChecks, func() { l.AdmissionChecks = s.AdmissionChecks })
	take(s.ProvisioningConfigsRead, model.KindAdmissionChecks, func() { l.ProvisioningConfigs = s.ProvisioningConfigs })
	take(s.MultiKueueConfigsRead, model.KindAdmissionChecks, func() { l.MultiKueueConfigs = s.MultiKueueConfigs })
	take(s.NetworkPoliciesRead, model.KindNetworkPolicies, func() { l.NetworkPolicies = s.NetworkPolicies })
	take(s.ServiceAccountsRead, model.KindIdentities, func() { l.ServiceAccounts = s.ServiceAccounts })
	if s.PoolsRead.What == "" {
		l.Unread[model.KindPools] = "GKE (not read)"
	} else {
		take(s.PoolsRead, model.KindPools, func() { l.Pools = s.Pools })
	}
	return l, failed
}

// platform runs the rule set on the live platform. A rule whose inputs
// could not be read does not run: DOC000 names it under the read that
// failed (or, without GKE, a note names the rules that need node pools).
func (a analysis) platform() {
	if a.s.CRDsRead.ok() {
		for _, c := range a.s.CRDs {
			if kind := otherPolicyKinds[c.Name]; kind != "" {
				a.f.note(fmt.Sprintf("the cluster serves %s (CRD %s): such policies can also let a team namespace's pods do more than its "+
					"NetworkPolicies say; MLP018 evaluates NetworkPolicies only, so review those with kubectl get %s -A", kind, c.Name, c.Name))
			}
		}
	}
	live, failed := a.s.Live()
	pl := model.FromLive(live)
	var withoutGKE []string
	for _, r := range rules.Rules {
		if r.In() == rules.PlanOnly {
			continue
		}
		for _, k := range r.Unread(pl) {
			if read, ok := failed[k]; ok {
				a.notRun.add(read, r.ID+" "+r.Slug)
			} else if k == model.KindPools {
				withoutGKE = append(withoutGKE, r.ID)
			}
		}
	}
	if len(withoutGKE) > 0 {
		a.f.note("GKE was not read (no project, location and cluster: --project, --location, --cluster or MLPLATFORM_PROJECT, MLPLATFORM_LOCATION, " +
			"MLPLATFORM_CLUSTER): the rules over node pools (" + strings.Join(withoutGKE, ", ") + ") did not run, nor " + CheckPoolRunning.ID)
	}
	found := rules.Run(pl)
	perRule := map[string]int{}
	for _, f := range found {
		perRule[f.ID]++
	}
	for _, r := range rules.Rules {
		if r.Runs(pl) {
			a.f.pass(max(1, perRule[r.ID]))
		}
	}
	a.f.res.Findings = append(a.f.res.Findings, found...)
}
