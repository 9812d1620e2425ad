package testenv

import (
	"context"
	"debug/buildinfo"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	configv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/utils/ptr"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Kueue's configuration where an in-cluster install keeps it: the manifests'
// (kustomize namePrefix kueue-) and the Helm chart's (fullname kueue) ConfigMap
// in kueue-system, mounted into the manager as its --config file.
const (
	KueueConfigMap    = "kueue-manager-config"
	KueueConfigMapKey = "controller_manager_config.yaml"
)

// KueueConfig is the configuration the environment runs Kueue version with:
// data "mlplatform_kueue_configuration"'s defaults (spec.DefaultKueueConfiguration),
// rendered by the code that renders the data source, so the tests exercise
// it. Written out in full, no test depends on a release's defaults:
//   - the batch/job and jobset.x-k8s.io/jobset integrations only (v0.19 adds
//     a dozen by default; the environment runs the JobSet controller, whose
//     CRD is installed before Kueue starts);
//   - waitForPodsReady on (v0.19's default; on v0.17 off unless configured),
//     30 min timeout, admission not blocked;
//   - jobs without a queue name in team namespaces (label mlplatform.dev/team)
//     are held: manageJobsWithoutQueueName with that namespace selector;
//   - the client QPS and burst of Kueue's Helm chart (v0.19's defaults; v0.17: 20 and 30);
//   - quota is checked for every resource a workload requests (BlockUndeclared:
//     v0.19's default, and the only behaviour before; v0.17 has no such field).
//
// The rest is what running out of cluster needs instead of the chart's
// in-cluster settings: the webhook and health ports on 127.0.0.1, the
// certificates, no leader election, no metrics.
func KueueConfig(version string, healthPort, webhookPort int, certDir string) (string, error) {
	c := spec.DefaultKueueConfiguration()
	c.Namespace = kueueNamespace
	cfg := kueueconfig.Configuration(c, version)
	cfg.Health = configapi.ControllerHealth{HealthProbeBindAddress: fmt.Sprintf("127.0.0.1:%d", healthPort)}
	cfg.Metrics = configapi.ControllerMetrics{BindAddress: "0"}
	cfg.Webhook = configapi.ControllerWebhook{Port: ptr.To(webhookPort), Host: "127.0.0.1", CertDir: certDir}
	cfg.LeaderElection = &configv1alpha1.LeaderElectionConfiguration{LeaderElect: ptr.To(false)}
	cfg.InternalCertManagement = &configapi.InternalCertManagement{Enable: ptr.To(true)}
	if !kueue.VersionLess(version, "v0.19.0") {
		cfg.Resources = &configapi.Resources{QuotaCheckStrategy: ptr.To(configapi.QuotaCheckBlockUndeclared)}
	}
	return kueueconfig.YAML(cfg)
}

// writeKueueConfigMap writes config to Kueue's ConfigMap, labelled as
// Kueue's Helm chart labels it (app.kubernetes.io/version is the release),
// so that doctor reads the configuration and version of an out-of-cluster
// Kueue as it reads an in-cluster one's.
func writeKueueConfigMap(ctx context.Context, kc kubernetes.Interface, version, config string) error {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: KueueConfigMap, Namespace: kueueNamespace, Labels: map[string]string{
			"app.kubernetes.io/name": "kueue", "app.kubernetes.io/version": version, "control-plane": "controller-manager",
		}},
		Data: map[string]string{KueueConfigMapKey: config},
	}
	cms := kc.CoreV1().ConfigMaps(kueueNamespace)
	_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("write Kueue's configuration to ConfigMap %s/%s: %w", kueueNamespace, KueueConfigMap, err)
	}
	return nil
}

// kueueVersionOf reads the Kueue release a kueue binary was built from
// (`go install sigs.k8s.io/kueue/cmd/kueue@vX.Y.Z` records it).
func kueueVersionOf(bin string) (string, error) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("read the Kueue version of %s: %w", bin, err)
	}
	for _, m := range append([]*debug.Module{&info.Main}, info.Deps...) {
		if m.Path == "sigs.k8s.io/kueue" && m.Version != "" && m.Version != "(devel)" {
			return m.Version, nil
		}
	}
	return "", fmt.Errorf("%s does not say which Kueue release it is (not built with go install sigs.k8s.io/kueue/cmd/kueue@VERSION)", bin)
}

// createOrUpdateCRD creates crd, or replaces the spec of the one that
// exists (as `kubectl apply` of a new Kueue release does; its status, with
// storedVersions, stays).
func createOrUpdateCRD(ctx context.Context, cs apiextclient.Interface, crd *apiextv1.CustomResourceDefinition) error {
	crds := cs.ApiextensionsV1().CustomResourceDefinitions()
	_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		return err
	}
	have, err := crds.Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	have.Spec = crd.Spec
	have.Labels, have.Annotations = crd.Labels, crd.Annotations
	_, err = crds.Update(ctx, have, metav1.UpdateOptions{})
	return err
}

// KueueVersion is the Kueue release the environment runs, e.g. "v0.19.2".
func (e *Env) KueueVersion() string {
	if e.kueue == nil {
		return ""
	}
	return e.kueue.version
}

// ReplaceKueue upgrades (or downgrades) the environment's Kueue as a cluster
// operator would, keeping the same etcd and API server: it stops the
// running manager, applies the CRDs and webhooks of the Kueue in dir (a
// directory scripts/tools.sh builds, like Options.KueueBinDir), updates
// Kueue's ConfigMap, starts that manager and waits until its webhooks answer.
func (e *Env) ReplaceKueue(ctx context.Context, dir string) error {
	k := e.kueue
	if k == nil || k.proc == nil {
		return fmt.Errorf("the environment runs no Kueue manager (Options.WithoutKueue)")
	}
	version, err := kueueVersionOf(filepath.Join(dir, "kueue"))
	if err != nil {
		return err
	}
	k.proc.Stop()
	e.procs = slices.DeleteFunc(e.procs, func(p *process) bool { return p == k.proc })
	k.dir, k.version, k.proc = dir, version, nil
	if err := k.installCRDs(ctx, true); err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(e.REST)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := k.run(ctx, kc); err != nil {
		return err
	}
	fmt.Fprintf(e.opts.Log, "Kueue replaced by %s in %.1fs\n", version, time.Since(start).Seconds())
	return nil
}
