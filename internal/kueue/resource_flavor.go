package kueue

import (
	"maps"

	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ResourceFlavor builds the apply configuration for f.
func ResourceFlavor(f spec.ResourceFlavor) *kueueac.ResourceFlavorApplyConfiguration {
	s := kueueac.ResourceFlavorSpec()
	if len(f.NodeLabels) > 0 {
		s.WithNodeLabels(f.NodeLabels)
	}
	if len(f.NodeTaints) > 0 {
		s.WithNodeTaints(taintsAC(f.NodeTaints)...)
	}
	if len(f.Tolerations) > 0 {
		s.WithTolerations(tolerationsAC(f.Tolerations)...)
	}
	if f.TopologyName != "" {
		s.WithTopologyName(kueuev1beta2.TopologyReference(f.TopologyName))
	}
	return kueueac.ResourceFlavor(f.Name).WithSpec(s)
}

// ResourceFlavorSpec reads the platform's view of obj.
func ResourceFlavorSpec(obj *kueuev1beta2.ResourceFlavor) spec.ResourceFlavor {
	f := spec.ResourceFlavor{
		Name:        obj.Name,
		NodeTaints:  taintsSpec(obj.Spec.NodeTaints),
		Tolerations: tolerationsSpec(obj.Spec.Tolerations),
	}
	if len(obj.Spec.NodeLabels) > 0 {
		f.NodeLabels = maps.Clone(obj.Spec.NodeLabels)
	}
	if obj.Spec.TopologyName != nil {
		f.TopologyName = string(*obj.Spec.TopologyName)
	}
	return f
}
