package reconcile

import (
	"reflect"

	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ResourceFlavors reconciles Kueue ResourceFlavors.
type ResourceFlavors = Object[spec.ResourceFlavor, *kueuev1beta2.ResourceFlavor, *kueueac.ResourceFlavorApplyConfiguration]

// NewResourceFlavors reconciles through c.
func NewResourceFlavors(c *kube.Client) ResourceFlavors {
	return ResourceFlavors{
		Kind: "ResourceFlavor",
		API: func(string) ObjectAPI[*kueuev1beta2.ResourceFlavor, *kueueac.ResourceFlavorApplyConfiguration] {
			return c.Kueue.KueueV1beta2().ResourceFlavors()
		},
		Build: kueue.ResourceFlavor,
		Read:  kueue.ResourceFlavorSpec,
		Diff:  DiffResourceFlavor,
	}
}

// DiffResourceFlavor names the fields of actual that differ from desired.
// Empty and absent are the same (nil and empty maps and lists).
func DiffResourceFlavor(desired, actual spec.ResourceFlavor) []string {
	var d []string
	if !sameMap(desired.NodeLabels, actual.NodeLabels) {
		d = append(d, "node_labels")
	}
	if !sameList(desired.NodeTaints, actual.NodeTaints) {
		d = append(d, "node_taints")
	}
	if !sameList(desired.Tolerations, actual.Tolerations) {
		d = append(d, "tolerations")
	}
	if desired.TopologyName != actual.TopologyName {
		d = append(d, "topology_name")
	}
	return d
}

func sameMap[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sameList[T any](a, b []T) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}
