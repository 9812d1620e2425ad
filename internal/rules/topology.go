package rules

import (
	"fmt"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
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
		queues := c.queuesWithQuotaOf(f)
		objects := append([]string{f.Label()}, queues...)
		effect := "Kueue keeps every ClusterQueue with quota of it inactive (TopologyNotFound), admitting no job on any flavor"
		if len(queues) == 0 {
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

// queuesWithQuotaOf labels the ClusterQueues and Cohorts of the flavor's
// cluster whose quotas name it.
func (c *ctx) queuesWithQuotaOf(f *model.Flavor) []string {
	name := model.FlavorName(f)
	if !name.Known {
		return nil
	}
	var out []string
	for _, o := range c.owners() {
		if !model.SameCluster(o.src, f.Src) {
			continue
		}
		for _, k := range o.keys {
			if k.Flavor == name.S {
				out = append(out, o.label)
				break
			}
		}
	}
	return out
}
