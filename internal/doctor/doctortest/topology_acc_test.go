package doctortest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
)

// TestAccDoctorTopologies: the rules about Topologies, live. A flavor of
// the L4 pool naming a Topology that does not exist is MLP021 (exit 6);
// once the Topology exists with GKE's block level, MLP021 goes and MLP022
// says the L4 pool's nodes will not carry the block label; a flavor naming
// a Topology of kubernetes.io/hostname alone is clean; a ClusterQueue
// listing it and a plain flavor in one resource group is MLP023, and
// without that queue doctor is clean again.
func TestAccDoctorTopologies(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	p.teams(0, 1)
	fl, tp := p.kq.KueueV1beta2().ResourceFlavors(), p.kq.KueueV1beta2().Topologies()
	flavor := func(name, topology string) {
		t.Helper()
		_, err := fl.Create(p.ctx, &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": gpuPool},
				Tolerations:  []corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
				TopologyName: ptr.To(kueuev1beta2.TopologyReference(topology))}}, metav1.CreateOptions{})
		ignoreExists(t, err)
		t.Cleanup(func() { _ = fl.Delete(p.ctx, name, metav1.DeleteOptions{}) })
	}
	topology := func(name string, levels ...string) {
		t.Helper()
		topo := &kueuev1beta2.Topology{ObjectMeta: metav1.ObjectMeta{Name: name}}
		for _, l := range levels {
			topo.Spec.Levels = append(topo.Spec.Levels, kueuev1beta2.TopologyLevel{NodeLabel: l})
		}
		_, err := tp.Create(p.ctx, topo, metav1.CreateOptions{})
		ignoreExists(t, err)
		t.Cleanup(func() { _ = tp.Delete(p.ctx, name, metav1.DeleteOptions{}) })
	}
	p.until("a clean platform", clean)

	flavor("doc-tas", "doc-gke")
	code, out, res := p.until("MLP021 found", func(_ int, _ string, res jsonResult) bool { return has(res, "MLP021", "ResourceFlavor doc-tas") != nil })
	f := has(res, "MLP021", "ResourceFlavor doc-tas")
	if code != doctor.ExitFindings || f.Severity != doctor.SeverityError ||
		!strings.Contains(f.Message, "ResourceFlavor doc-tas names Topology doc-gke, which does not exist") {
		t.Errorf("want exit 6 and MLP021 (error) naming the flavor and the Topology; got exit %d:\n%s", code, out)
	}

	topology("doc-gke", "cloud.google.com/gce-topology-block", "kubernetes.io/hostname")
	code, out, res = p.until("MLP021 gone, MLP022 found", func(_ int, _ string, res jsonResult) bool {
		return has(res, "MLP021", "") == nil && has(res, "MLP022", "ResourceFlavor doc-tas") != nil
	})
	f = has(res, "MLP022", "ResourceFlavor doc-tas")
	if code != doctor.ExitFindings || f.Severity != doctor.SeverityWarning ||
		!strings.Contains(f.Message, "the nodes of pool "+gpuPool+" will not carry cloud.google.com/gce-topology-block") {
		t.Errorf("want exit 6 and MLP022 (warning) naming the pool and the level; got exit %d:\n%s", code, out)
	}

	p.deleteFlavor("doc-tas") // Kueue holds no flavor that no queue names
	topology("doc-hosts", "kubernetes.io/hostname")
	flavor("doc-tas-hosts", "doc-hosts")
	code, out, _ = p.until("clean with a Topology of hosts", clean)
	t.Logf("with a Topology of hosts: exit %d", code)
	if code != doctor.ExitOK {
		t.Errorf("a flavor naming a Topology of kubernetes.io/hostname: exit %d:\n%s", code, out)
	}

	// A queue whose one resource group lists the topology-aware flavor and
	// the pool's plain one: MLP023; without the queue, clean again.
	cqs := p.kq.KueueV1beta2().ClusterQueues()
	gpu := func(flavor string) kueuev1beta2.FlavorQuotas {
		return kueuev1beta2.FlavorQuotas{Name: kueuev1beta2.ResourceFlavorReference(flavor),
			Resources: []kueuev1beta2.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: resource.MustParse("1")}}}
	}
	_, err := cqs.Create(p.ctx, &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "doc-mixed"},
		Spec: kueuev1beta2.ClusterQueueSpec{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{teamLabel: nsName(0)}},
			ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
				Flavors: []kueuev1beta2.FlavorQuotas{gpu("doc-tas-hosts"), gpu(gpuPool)}}}}}, metav1.CreateOptions{})
	ignoreExists(t, err)
	t.Cleanup(func() { _ = cqs.Delete(p.ctx, "doc-mixed", metav1.DeleteOptions{}) })
	code, out, res = p.until("MLP023 found", func(_ int, _ string, res jsonResult) bool { return has(res, "MLP023", "ClusterQueue doc-mixed") != nil })
	f = has(res, "MLP023", "ClusterQueue doc-mixed")
	if code != doctor.ExitFindings || f.Severity != doctor.SeverityWarning ||
		!strings.Contains(f.Message, "mixes topology-aware flavors (doc-tas-hosts (Topology doc-hosts)) and plain ones ("+gpuPool+")") {
		t.Errorf("want exit 6 and MLP023 (warning) naming both flavors; got exit %d:\n%s", code, out)
	}
	if err := cqs.Delete(p.ctx, "doc-mixed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, out, _ = p.until("clean without the mixed queue", clean); code != doctor.ExitOK {
		t.Errorf("without the mixed queue: exit %d:\n%s", code, out)
	}
}
