package rules

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// MLP021: a flavor naming a Topology that does not exist (in a plan: that
// is not in the configuration). Kueue keeps every ClusterQueue with quota
// of such a flavor inactive (reason TopologyNotFound: "there is no Topology
// %q for TAS flavor %q", pkg/cache/scheduler/clusterqueue.go), so none of
// its jobs is admitted, on any flavor.
func checkFlavorTopologyMissing(c *ctx) {
	nameUnknown := model.NameUnknown(c.pl.Topologies, model.TopologyName)
	for _, f := range c.pl.Flavors {
		name := model.FlavorName(f)
		topo := flavorTopology(f)
		switch {
		case topo.Unknown:
			c.undecided([]string{f.Label()}, fmt.Sprintf("could not decide whether the Topology of ResourceFlavor %s exists: its topology_name is %s", flavorWords(name), unknownText))
			continue
		case !topo.Known || c.pl.Topology(f.Src, topo.S) != nil:
			continue
		}
		objects := []string{f.Label()}
		for _, o := range c.ownersOf(f) {
			objects = append(objects, o.label)
		}
		effect := "Kueue keeps every ClusterQueue with quota of it inactive (TopologyNotFound), admitting no job on any flavor"
		if len(objects) == 1 {
			effect = "Kueue will keep any ClusterQueue given quota of it inactive (TopologyNotFound)"
		}
		switch {
		case nameUnknown:
			c.undecided([]string{f.Label()}, fmt.Sprintf("could not decide whether Topology %s, named by ResourceFlavor %s, is in this configuration: a Topology's name is %s", topo.S, flavorWords(name), unknownText))
		case c.pl.Live:
			c.add(SevError, objects,
				fmt.Sprintf("ResourceFlavor %s names Topology %s, which does not exist: %s", flavorWords(name), topo.S, effect),
				"create the Topology (an mlplatform_topology named "+topo.S+"; terraform apply puts back one deleted out of band), or replace the flavor with one without topology_name")
		default:
			c.add(SevWarning, objects,
				fmt.Sprintf("ResourceFlavor %s names Topology %s, which is not in this configuration (if it exists in the cluster, ignore this): while it does not exist, %s", flavorWords(name), topo.S, effect),
				"add an mlplatform_topology named "+topo.S+" and name it by reference (topology_name = mlplatform_topology.NAME.name)")
		}
	}
}

// flavorTopology is a flavor's topology_name as a Known.
func flavorTopology(f *model.Flavor) model.Known {
	if f.Unknown.Any("topology_name") {
		return model.Known{Unknown: true}
	}
	return model.Known{S: f.Spec.TopologyName, Known: f.Spec.TopologyName != ""}
}

func flavorWords(k model.Known) string {
	if !k.Known {
		return "(name " + unknownText + ")"
	}
	return k.S
}

// MLP022: a topology-aware flavor whose pools' nodes will not carry every
// level label of its Topology. Kueue's topology-aware scheduling counts only
// the nodes that carry every level (pkg/util/tas NodeMatchesFlavor), so no
// workload is admitted on such a pool through the flavor. GKE's levels are
// on the nodes of the families GKE names (spec.GPUPool.TopologyLabels);
// another label, on a pool's nodes when the pool sets it;
// kubernetes.io/hostname on every node.
func checkTopologyLevelsOnPools(c *ctx) {
	for _, f := range c.pl.Flavors {
		topo := flavorTopology(f)
		if !topo.Known {
			continue // unknown: MLP021 says so
		}
		t := c.pl.Topology(f.Src, topo.S)
		if t == nil || t.Unknown.Any("levels") {
			continue
		}
		pools, decided := c.pl.PoolsOf(f)
		if !decided && len(pools) == 0 {
			continue // which pools it stands for is MLP005's to say
		}
		for _, p := range pools {
			if !p.GPUs {
				continue
			}
			carries, known := p.TopologyLabels()
			var missing []string
			for _, l := range t.Spec.Levels {
				switch {
				case l == spec.HostnameLabel:
				case spec.IsGKETopologyLabel(l):
					if known && !carries {
						missing = append(missing, l)
					}
				case p.Spec.KnowsNodeLabel(l):
					if _, on := p.Spec.NodeLabels()[l]; !on && !p.Unknown.Any("labels") {
						missing = append(missing, l)
					}
				}
			}
			if !known && len(missing) == 0 {
				c.undecided([]string{f.Label(), p.Label()}, fmt.Sprintf("could not decide whether the nodes of pool %s carry the levels of Topology %s, which flavor %s names: the pool's topology_labels is %s",
					p.Spec.Name, topo.S, flavorWords(model.FlavorName(f)), unknownText))
				continue
			}
			if len(missing) == 0 {
				continue
			}
			c.add(SevWarning, []string{f.Label(), p.Label(), t.Label()},
				fmt.Sprintf("flavor %s is topology-aware (Topology %s), but the nodes of pool %s will not carry %s: Kueue counts only nodes with every level of the Topology, so no workload is admitted on that pool through the flavor",
					flavorWords(model.FlavorName(f)), topo.S, p.Spec.Name, strings.Join(missing, ", ")),
				"GKE labels nodes with their block, subblock and host on A4X, A4, A3 Ultra, A3 Mega and A3 High machines (Spot ones with placement = \"compact\"): use such a pool, or a Topology of levels these nodes carry (kubernetes.io/hostname alone), or drop topology_name")
		}
	}
}

// MLP023: a ClusterQueue resource group listing topology-aware and plain
// flavors. Kueue applies topology-aware scheduling to a job without a
// topology annotation only when every flavor of its queue is
// topology-aware (kueue#4519), so in a mixed group such jobs skip the
// topology-aware flavors; and a job asking for topology is admitted only on
// the topology-aware ones, never falling back to the plain ones when they
// are full (kueue#7491, "Dealing with CQ that has RF with and without
// topology").
func checkResourceGroupMixesTopology(c *ctx) {
	for _, q := range c.pl.Queues {
		if q.GroupsUnknown() {
			continue
		}
		for _, g := range q.Spec.ResourceGroups {
			var tas, plain, unknown []string
			for _, fq := range g.Flavors {
				f := c.pl.Flavor(q.Src, fq.Name)
				if f == nil {
					continue // MLP004
				}
				switch topo := flavorTopology(f); {
				case topo.Unknown:
					unknown = append(unknown, fq.Name)
				case topo.Known:
					tas = append(tas, fq.Name+" (Topology "+topo.S+")")
				default:
					plain = append(plain, fq.Name)
				}
			}
			switch {
			case len(tas) > 0 && len(plain) > 0:
				c.add(SevWarning, []string{q.Label()},
					fmt.Sprintf("ClusterQueue %s mixes topology-aware flavors (%s) and plain ones (%s) in one resource group: a job asking for topology is admitted only on the topology-aware ones and waits when they are full, never using %s; a job that does not ask skips them (Kueue applies topology-aware scheduling implicitly only when every flavor of the queue is topology-aware, kueue#4519, kueue#7491)",
						q.Spec.Name, strings.Join(tas, ", "), strings.Join(plain, ", "), strings.Join(plain, ", ")),
					"give gangs that need placement a ClusterQueue of topology-aware flavors and other jobs one of plain flavors, or make every flavor of this queue topology-aware (jobs that do not ask then get the lowest level, preferred)")
			case len(unknown) > 0 && (len(tas) > 0 || len(plain) > 0 || len(unknown) > 1):
				c.undecided([]string{q.Label()}, fmt.Sprintf("could not decide whether ClusterQueue %s mixes topology-aware and plain flavors: the topology_name of %s is %s",
					q.Spec.Name, strings.Join(unknown, ", "), unknownText))
			}
		}
	}
}
