package model

import "github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"

// Lookups by name. Objects name each other (a LocalQueue its ClusterQueue,
// a ClusterQueue its flavors and admission checks); a name is looked up
// where the referring object is: in its cluster, and on a platform where the
// same module is instantiated per cluster, in its module.

// SameCluster: both are in one cluster, or the source does not say for one
// of them.
func SameCluster(a, b Src) bool { return a.Cluster == "" || b.Cluster == "" || a.Cluster == b.Cluster }

// InCluster lists the objects in from's cluster.
func InCluster[T Object](from Src, xs []T) []T {
	var out []T
	for _, x := range xs {
		if SameCluster(from, x.Source()) {
			out = append(out, x)
		}
	}
	return out
}

// Near narrows the objects a reference by name may mean (those of that
// name, in order) to the referrer's cluster, and, where several remain (the
// same team module instantiated per cluster), to the referrer's module.
func Near[T Object](from Src, cands []T) []T {
	same := InCluster(from, cands)
	if len(same) <= 1 {
		return same
	}
	var mod []T
	for _, x := range same {
		if tfplan.ModulePath(x.Source().Address) == tfplan.ModulePath(from.Address) {
			mod = append(mod, x)
		}
	}
	if len(mod) > 0 {
		return mod
	}
	return same
}

func first[T any](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	return xs[0]
}

func named[T Object](from Src, xs []T, name string, nameOf func(T) Known) T {
	var all []T
	for _, x := range xs {
		if n := nameOf(x); n.Known && n.S == name {
			all = append(all, x)
		}
	}
	return first(Near(from, all))
}

// QueueName, FlavorName, ... are objects' names as Knowns.
func QueueName(q *ClusterQueue) Known              { return known(q.Spec.Name, q.Unknown, "name") }
func FlavorName(f *Flavor) Known                   { return known(f.Spec.Name, f.Unknown, "name") }
func NamespaceName(n *Namespace) Known             { return known(n.Spec.Name, n.Unknown, "name") }
func CheckName(p *ProvisioningCheck) Known         { return known(p.Spec.Name, p.Unknown, "name") }
func CohortName(c *Cohort) Known                   { return known(c.Spec.Name, c.Unknown, "name") }
func TopologyName(t *Topology) Known               { return known(t.Spec.Name, t.Unknown, "name") }
func MultiKueueCheckName(m *MultiKueueCheck) Known { return known(m.Spec.Name, m.Unknown, "name") }

// Queue is the ClusterQueue a reference from `from` to name means.
func (pl *Platform) Queue(from Src, name string) *ClusterQueue {
	return named(from, pl.Queues, name, QueueName)
}

// Flavor is the ResourceFlavor a reference from `from` to name means.
func (pl *Platform) Flavor(from Src, name string) *Flavor {
	return named(from, pl.Flavors, name, FlavorName)
}

// Namespace is the team namespace a reference from `from` to name means.
func (pl *Platform) Namespace(from Src, name string) *Namespace {
	return named(from, pl.Namespaces, name, NamespaceName)
}

// ProvisioningCheck is the provisioning admission check a reference from
// `from` to name means.
func (pl *Platform) ProvisioningCheck(from Src, name string) *ProvisioningCheck {
	return named(from, pl.ProvisioningChecks, name, CheckName)
}

// Topology is the Topology a reference from `from` to name means.
func (pl *Platform) Topology(from Src, name string) *Topology {
	return named(from, pl.Topologies, name, TopologyName)
}

// NameUnknown reports whether an object of the list has a name known only
// after apply (so a name not found may still be its).
func NameUnknown[T Object](xs []T, nameOf func(T) Known) bool {
	for _, x := range xs {
		if nameOf(x).Unknown {
			return true
		}
	}
	return false
}
