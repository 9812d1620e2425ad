package kueue

import (
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Topology builds the apply configuration for t.
func Topology(t spec.Topology) *kueueac.TopologyApplyConfiguration {
	s := kueueac.TopologySpec()
	for _, l := range t.Levels {
		s.WithLevels(kueueac.TopologyLevel().WithNodeLabel(l))
	}
	return kueueac.Topology(t.Name).WithSpec(s)
}

// TopologySpec reads the platform's view of obj.
func TopologySpec(obj *kueuev1beta2.Topology) spec.Topology {
	t := spec.Topology{Name: obj.Name}
	for _, l := range obj.Spec.Levels {
		t.Levels = append(t.Levels, l.NodeLabel)
	}
	return t
}
