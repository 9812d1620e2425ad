package rules

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func wiField(w *model.Identity, attr string) model.Known {
	v := map[string]string{"namespace": w.Spec.Namespace, "kubernetes_service_account": w.Spec.KSA}[attr]
	if w.Unknown.Any(attr) {
		return model.Known{Unknown: true}
	}
	return model.Known{S: v, Known: v != ""}
}

func policyNamespace(p *model.NetworkPolicy) model.Known {
	if p.Unknown.Any("namespace") {
		return model.Known{Unknown: true}
	}
	return model.Known{S: p.Spec.Namespace, Known: p.Spec.Namespace != ""}
}

// policyOf is the training network policy of the binding's namespace; nil
// when there is none (or, decided false, when that is known only after
// apply).
func (c *ctx) policiesOf(w *model.Identity) (pols []*model.NetworkPolicy, decided bool) {
	ns := wiField(w, "namespace")
	decided = true
	for _, p := range model.InCluster(w.Src, c.pl.Policies) {
		pn := policyNamespace(p)
		switch {
		case !ns.Known || !pn.Known:
			if ns.Unknown || pn.Unknown {
				decided = false
			}
		case ns.S == pn.S:
			pols = append(pols, p)
		}
	}
	return pols, decided
}

// MLP011: a Workload Identity whose namespace's training network policy
// turns off metadata_server or dns.
func checkWIBlockedByPolicy(c *ctx) {
	for _, w := range c.pl.Identities {
		ns, ksa := wiField(w, "namespace"), wiField(w, "kubernetes_service_account")
		for _, p := range model.InCluster(w.Src, c.pl.Policies) {
			res := []string{w.Label(), p.Label()}
			pn := policyNamespace(p)
			if !ns.Known || !pn.Known {
				if ns.Unknown || pn.Unknown {
					c.undecided(res, fmt.Sprintf("could not decide whether network policy %s blocks the Workload Identity of %s: a namespace is %s", p.Label(), w.Label(), unknownText))
				}
				continue
			}
			if ns.S != pn.S {
				continue
			}
			who := fmt.Sprintf("pods in %s running as %s", ns.S, ksa.S)
			if p.Unknown.Any("metadata_server", "dns") {
				c.undecided(res, fmt.Sprintf("could not decide whether the training network policy of %s lets %s reach the metadata server: metadata_server or dns is %s", ns.S, who, unknownText))
				continue
			}
			var off, fix []string
			if !p.Spec.MetadataServer {
				off = append(off, "metadata_server (egress to 169.254.169.254 and 169.254.169.252)")
				fix = append(fix, "metadata_server = true")
			}
			if !p.Spec.DNS {
				off = append(off, "dns (so metadata.google.internal does not resolve)")
				fix = append(fix, "dns = true")
			}
			if len(off) > 0 {
				c.add(SevError, res,
					fmt.Sprintf("%s never get a Workload Identity token, so every Google API call fails: the training network policy of %s turns off %s", who, ns.S, strings.Join(off, " and ")),
					"set "+strings.Join(fix, " and ")+" on the training network policy (the default), or drop the Workload Identity binding if the pods need no Google API")
			}
		}
	}
}

// MLP012: a Workload Identity used by a team whose quota is only on pools
// with workload_identity = false.
func checkWIWithoutMetadataServer(c *ctx) {
	for _, w := range c.pl.Identities {
		ns, ksa := wiField(w, "namespace"), wiField(w, "kubernetes_service_account")
		if !ns.Known {
			if ns.Unknown && len(c.pl.Pools) > 0 {
				c.undecided([]string{w.Label()}, fmt.Sprintf("could not decide on which pools the pods of %s run: its namespace is %s", w.Label(), unknownText))
			}
			continue
		}
		var pools []*model.Pool
		var queues []string
		unknown := false
		seen := map[*model.Pool]bool{}
		for _, l := range model.InCluster(w.Src, c.pl.LocalQueues) {
			lns, cq := lqField(l, "namespace"), lqField(l, "cluster_queue")
			if !lns.Known || lns.S != ns.S || !cq.Known {
				unknown = unknown || lns.Unknown
				continue
			}
			q := c.pl.Queue(l.Src, cq.S)
			if q == nil {
				continue
			}
			queues = append(queues, q.Label())
			unknown = unknown || q.GroupsUnknown()
			keys, qs := model.Quotas(q.Spec.ResourceGroups, q.Unknown)
			for _, k := range keys {
				n := qs[k].Nominal
				if n.State == model.QUnknown {
					unknown = true
				}
				if n.State != model.QKnown || n.Sign() <= 0 {
					continue
				}
				f := c.pl.Flavor(q.Src, k.Flavor)
				if f == nil {
					continue
				}
				ps, decided := c.pl.PoolsOf(f)
				unknown = unknown || !decided
				for _, p := range ps {
					if !seen[p] {
						seen[p] = true
						pools = append(pools, p)
					}
				}
			}
		}
		if len(pools) == 0 && !unknown {
			continue
		}
		res := append(append([]string{w.Label()}, dedupe(queues)...), labels(pools)...)
		allOff := len(pools) > 0
		for _, p := range pools {
			if p.Unknown.Any("workload_identity") {
				unknown = true
			}
			if p.Spec.WorkloadIdentity && !p.Unknown.Any("workload_identity") {
				allOff = false
			}
		}
		switch {
		case unknown && allOff || unknown && len(pools) == 0:
			c.undecided(res, fmt.Sprintf("could not decide whether the pods of %s in %s run where the GKE metadata server runs: a queue's quota or a pool's workload_identity is %s", ksa.S, ns.S, unknownText))
		case allOff:
			c.add(SevError, res,
				fmt.Sprintf("pods in %s running as %s never get a Workload Identity token: their quota is only on pool %s, whose nodes do not run the GKE metadata server (workload_identity = false)", ns.S, ksa.S, namesOf(pools, poolName)),
				"set workload_identity = true (the default) on the pool, or give the team quota on a pool that has it")
		}
	}
}

// googleRanges are the addresses a pod reaches Google APIs at: the Private
// Google Access VIPs, and (public HTTPS) the internet.
var googleVIPs = []string{netpol.PrivateGoogle, netpol.RestrictedGoogle, netpol.PrivateGoogleV6, netpol.RestrictedGoogleV6}

// reachesGoogle reports whether a training network policy lets its pods
// reach Google APIs on TCP 443: a Private Google Access VIP (google_apis),
// the internet (public_https_egress), or an extra egress hole that covers a
// VIP on 443.
func reachesGoogle(s spec.TrainingNetworkPolicy) bool {
	if s.PublicHTTPSEgress || s.GoogleAPIs != "none" { // "" is the default, private
		return true
	}
	for _, e := range s.ExtraEgress {
		if e.Protocol != "" && e.Protocol != "TCP" || len(e.Ports) > 0 && !slices.Contains(e.Ports, 443) {
			continue
		}
		for _, cidr := range e.CIDRs {
			hole, err := netip.ParsePrefix(cidr)
			if err != nil {
				continue
			}
			for _, vip := range googleVIPs {
				v := netip.MustParsePrefix(vip)
				if hole.Contains(v.Addr()) {
					return true
				}
			}
		}
	}
	return false
}

// MLP020: a Workload Identity binding whose pods can get a token and can
// never use it: their namespace's training network policy lets them reach
// no Google API (no Private Google Access VIP, no public HTTPS egress, no
// extra egress hole to either).
func checkWICannotReachGoogle(c *ctx) {
	for _, w := range c.pl.Identities {
		pols, decided := c.policiesOf(w)
		ns, ksa := wiField(w, "namespace"), wiField(w, "kubernetes_service_account")
		for _, p := range pols {
			res := []string{w.Label(), p.Label()}
			if !decided || p.Unknown.Any("google_apis", "public_https_egress", "extra_egress") {
				c.undecided(res, fmt.Sprintf("could not decide whether pods in %s running as %s can reach Google APIs: the training network policy's google_apis, public_https_egress or extra_egress is %s", ns.S, ksa.S, unknownText))
				continue
			}
			if reachesGoogle(p.Spec) {
				continue
			}
			c.add(SevError, res,
				fmt.Sprintf("pods in %s running as %s get a Workload Identity token and can never use it: the training network policy of %s lets them reach no Google API on TCP 443 (google_apis = \"none\", no public_https_egress, no extra_egress to a Private Google Access range), so every Google API call times out",
					ns.S, ksa.S, ns.S),
				"set google_apis = \"private\" (the default, for Private Google Access) or \"restricted\" (VPC Service Controls) on the training network policy, or drop the Workload Identity binding if the pods need no Google API")
		}
	}
}
