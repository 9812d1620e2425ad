package kueue

import (
	"slices"

	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// MultiKueueConfig builds the apply configuration of the MultiKueueConfig of c.
func MultiKueueConfig(c spec.MultiKueueCheck) *kueueac.MultiKueueConfigApplyConfiguration {
	return kueueac.MultiKueueConfig(c.Name).WithSpec(kueueac.MultiKueueConfigSpec().WithClusters(c.Clusters...))
}

// MultiKueueConfigSpec reads the platform's view of obj (clusters in order:
// Kueue v0.19's incremental dispatcher follows it).
func MultiKueueConfigSpec(obj *kueuev1beta2.MultiKueueConfig) spec.MultiKueueCheck {
	return spec.MultiKueueCheck{Name: obj.Name, Clusters: slices.Clone(obj.Spec.Clusters)}
}

// MultiKueueCluster builds the apply configuration of a MultiKueueCluster
// reading its kubeconfig from the Secret secret in Kueue's namespace.
func MultiKueueCluster(name, secret string) *kueueac.MultiKueueClusterApplyConfiguration {
	return kueueac.MultiKueueCluster(name).WithSpec(kueueac.MultiKueueClusterSpec().WithClusterSource(
		kueueac.ClusterSource().WithKubeConfig(kueueac.KubeConfig().WithLocation(secret).WithLocationType(kueuev1beta2.SecretLocationType))))
}

// MultiKueueClusterSecret is the Secret a MultiKueueCluster reads its
// kubeconfig from, or "" when it reads none (a path on Kueue's disk, or a
// ClusterProfile).
func MultiKueueClusterSecret(obj *kueuev1beta2.MultiKueueCluster) string {
	kc := obj.Spec.ClusterSource.KubeConfig
	if kc == nil || (kc.LocationType != "" && kc.LocationType != kueuev1beta2.SecretLocationType) {
		return ""
	}
	return kc.Location
}
