package reconcile

import (
	"context"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ResourceFlavors reconciles Kueue ResourceFlavors.
type ResourceFlavors = Object[spec.ResourceFlavor, *kueuev1beta2.ResourceFlavor, *kueueac.ResourceFlavorApplyConfiguration]

var _ Reconciler[Ref, spec.ResourceFlavor, spec.ResourceFlavor] = ResourceFlavors{}

// NewResourceFlavors reconciles through c.
func NewResourceFlavors(c *kube.Client) ResourceFlavors {
	return ResourceFlavors{
		Kind: "ResourceFlavor",
		List: kube.Listed(c, "ResourceFlavor", kube.ListFunc[*kueuev1beta2.ResourceFlavor](c.Kueue.KueueV1beta2().ResourceFlavors().List, metav1.ListOptions{})),
		API: func(string) ObjectAPI[*kueuev1beta2.ResourceFlavor, *kueueac.ResourceFlavorApplyConfiguration] {
			return c.Kueue.KueueV1beta2().ResourceFlavors()
		},
		Build:    kueue.ResourceFlavor,
		Read:     kueue.ResourceFlavorSpec,
		DiffSpec: DiffResourceFlavor,
		Blockers: func(ctx context.Context, ref Ref) ([]string, error) {
			return flavorUsers(ctx, c, ref.Name)
		},
	}
}

// flavorUsers lists the ClusterQueues and Cohorts (not being deleted) whose
// quotas name the flavor.
func flavorUsers(ctx context.Context, c *kube.Client, flavor string) ([]string, error) {
	var users []string
	cqs, err := c.Kueue.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, q := range cqs.Items {
		if q.DeletionTimestamp == nil && groupsName(q.Spec.ResourceGroups, flavor) {
			users = append(users, "ClusterQueue "+q.Name)
		}
	}
	cohorts, err := c.Kueue.KueueV1beta2().Cohorts().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	for _, co := range cohorts.Items {
		if co.DeletionTimestamp == nil && groupsName(co.Spec.ResourceGroups, flavor) {
			users = append(users, "Cohort "+co.Name)
		}
	}
	return users, nil
}

func groupsName(groups []kueuev1beta2.ResourceGroup, flavor string) bool {
	for _, g := range groups {
		for _, f := range g.Flavors {
			if string(f.Name) == flavor {
				return true
			}
		}
	}
	return false
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
