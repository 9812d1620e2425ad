package spec

// ResourceFlavor is a Kueue ResourceFlavor: which nodes a quota applies to
// (node labels, the taints those nodes carry) and what a workload admitted
// on it tolerates.
type ResourceFlavor struct {
	Name         string
	NodeLabels   map[string]string
	NodeTaints   []Taint
	Tolerations  []Toleration
	TopologyName string
}

// Validate mirrors Kueue's CRD rules and admission webhook for ResourceFlavor
// (apis/kueue/v1beta2/resourceflavor_types.go; pkg/webhooks/resourceflavor_webhook.go
// ValidateResourceFlavor).
func (f ResourceFlavor) Validate() FieldErrors {
	var errs FieldErrors
	validateObjectName(&errs, Path{"name"}, "ResourceFlavor", f.Name)
	tooMany(&errs, Path{"node_labels"}, len(f.NodeLabels), maxFlavorItems, "node labels per flavor")
	tooMany(&errs, Path{"node_taints"}, len(f.NodeTaints), maxFlavorItems, "node taints per flavor")
	tooMany(&errs, Path{"tolerations"}, len(f.Tolerations), maxFlavorItems, "tolerations per flavor")
	validateLabels(&errs, Path{"node_labels"}, f.NodeLabels)
	validateTaints(&errs, Path{"node_taints"}, f.NodeTaints)
	validateTolerations(&errs, Path{"tolerations"}, f.Tolerations)
	if f.TopologyName != "" { // "" is refused by the schema: the spec cannot tell it from unset
		// topologyName is a TopologyReference: a DNS subdomain of at most 253 characters.
		checkObjectName(&errs, Path{"topology_name"}, "Topology", f.TopologyName)
		// CRD rule: "at least one nodeLabel is required when topology is set".
		if len(f.NodeLabels) == 0 {
			errs.add(Path{"topology_name"}, "Topology Needs Node Labels",
				"a flavor with topology_name must select its nodes with at least one node label (Kueue requires it); add node_labels, e.g. the pool's node_selector.")
		}
	}
	return errs
}
