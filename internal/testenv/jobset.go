package testenv

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// The JobSet controller (sigs.k8s.io/jobset) runs out of cluster like Kueue:
// its CRD installed, its webhooks in URL form on 127.0.0.1 with a CA of our
// own, and its manager (the module's main package, built by
// scripts/tools.sh at the version the newest Kueue is built with) started
// with a configuration file. It creates each JobSet's child Jobs (and
// headless Service), suspends and resumes them with the JobSet, and copies
// the node selector and tolerations Kueue admits a JobSet with into them.
//
// Those Jobs' pods are never created: kube-controller-manager runs no job
// controller (and there is no kubelet to run pods anyway). Admission needs
// none of it: Kueue admits a JobSet from its Workload, which it builds from
// the JobSet's replicated jobs. What the JobSet controller would take from
// the job controller is the Jobs' status: it marks a JobSet Completed or
// Failed (and counts ready Jobs, which an InOrder startup policy waits on)
// from its Jobs' status, so a test that wants a finished JobSet writes its
// Jobs' status as the job controller would (see
// TestAccTeamNamespaceDestroyProtectsData).
const jobsetNamespace = "jobset-system"

// jobSetsResource is the JobSet API the tests and the probe use.
var jobSetsResource = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

type jobsetSetup struct {
	env         *Env
	pki         *pki
	webhookPort int
	healthPort  int
	// version is the JobSet release, e.g. "v0.12.0" (from the binary).
	version string
}

func (j *jobsetSetup) webhookURL(path string) string {
	return "https://127.0.0.1:" + strconv.Itoa(j.webhookPort) + path
}

// jobsetConfig is the JobSet manager's configuration
// (config.jobset.x-k8s.io/v1alpha1): the webhook and health ports on
// 127.0.0.1, no metrics, no leader election, and the client QPS Kueue gets.
//
// Internal certificate management is off, and the webhook server reads the
// certificate we issue from certDir, as an install that takes its
// certificate from cert-manager does. JobSet's own rotator cannot be used
// out of cluster: it fills the Secret jobset-webhook-server-cert in its
// namespace, then waits for the certificate at a fixed path
// (/tmp/k8s-webhook-server/serving-certs, where the Secret is mounted in its
// pod, whatever webhook.certDir says), which would be one directory for
// every environment on the machine.
func jobsetConfig(healthPort, webhookPort int, certDir string) string {
	return fmt.Sprintf(`apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
health:
  healthProbeBindAddress: 127.0.0.1:%d
metrics:
  bindAddress: "0"
webhook:
  port: %d
  host: 127.0.0.1
  certDir: %s
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
clientConnection:
  qps: 300
  burst: 500
`, healthPort, webhookPort, certDir)
}

// install installs the JobSet CRD and the JobSet manager's webhooks. Kueue's
// jobset integration needs the CRD when its manager starts.
func (j *jobsetSetup) install(ctx context.Context) error {
	dir := filepath.Join(j.env.opts.BinDir, "jobset-manifests", "crd")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no JobSet CRDs in %s: run scripts/tools.sh", dir)
	}
	cs, err := apiextclient.NewForConfig(j.env.REST)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var crd apiextv1.CustomResourceDefinition
		if err := yaml.Unmarshal(data, &crd); err != nil {
			return fmt.Errorf("parse CRD %s: %w", f, err)
		}
		// JobSet serves one version (v1alpha2): no conversion webhook, though
		// upstream's kustomize build points one at the manager.
		if err := createOrUpdateCRD(ctx, cs, &crd); err != nil {
			return fmt.Errorf("install CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	if err := waitEstablished(ctx, cs, names); err != nil {
		return err
	}
	kc, err := kubernetes.NewForConfig(j.env.REST)
	if err != nil {
		return err
	}
	return j.installWebhooks(ctx, kc)
}

// waitEstablished waits until every CRD named is served.
func waitEstablished(ctx context.Context, cs apiextclient.Interface, names []string) error {
	return wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		for _, n := range names {
			crd, err := cs.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				return false, nil //nolint:nilerr // retried until the deadline
			}
			established := false
			for _, c := range crd.Status.Conditions {
				established = established || (c.Type == apiextv1.Established && c.Status == apiextv1.ConditionTrue)
			}
			if !established {
				return false, nil
			}
		}
		return true, nil
	})
}

// jobsetPodSelector is the objectSelector upstream's kustomize build
// (config/components/webhook/patches) gives JobSet's pod webhooks, so that
// they see the pods of JobSets only.
var jobsetPodSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
	{Key: "jobset.sigs.k8s.io/jobset-name", Operator: metav1.LabelSelectorOpExists},
}}

// installWebhooks installs every webhook of the JobSet manager (JobSets'
// defaulting and validation, and those of JobSets' pods), in URL form, named
// as an install names them.
func (j *jobsetSetup) installWebhooks(ctx context.Context, kc kubernetes.Interface) error {
	path := filepath.Join(j.env.opts.BinDir, "jobset-manifests", "webhooks.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	clientConfig := func(in admissionv1.WebhookClientConfig) admissionv1.WebhookClientConfig {
		path := ""
		if in.Service != nil && in.Service.Path != nil {
			path = *in.Service.Path
		}
		url := j.webhookURL(path)
		return admissionv1.WebhookClientConfig{URL: &url, CABundle: j.pki.jobsetCA.CertPEM}
	}
	forPods := func(rules []admissionv1.RuleWithOperations) bool {
		return slices.ContainsFunc(rules, func(r admissionv1.RuleWithOperations) bool {
			return slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "pods")
		})
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var raw map[string]any
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return fmt.Errorf("parse %s: %w", path, err)
		}
		if raw == nil {
			continue
		}
		doc, _ := yaml.Marshal(raw)
		switch raw["kind"] {
		case "MutatingWebhookConfiguration":
			var m admissionv1.MutatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &m); err != nil {
				return err
			}
			m.Name = "jobset-" + m.Name
			for i := range m.Webhooks {
				m.Webhooks[i].ClientConfig = clientConfig(m.Webhooks[i].ClientConfig)
				if forPods(m.Webhooks[i].Rules) {
					m.Webhooks[i].ObjectSelector = jobsetPodSelector
				}
			}
			hooks := kc.AdmissionregistrationV1().MutatingWebhookConfigurations()
			if err := hooks.Delete(ctx, m.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("replace %s: %w", m.Name, err)
			}
			if _, err := hooks.Create(ctx, &m, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("install %s: %w", m.Name, err)
			}
		case "ValidatingWebhookConfiguration":
			var v admissionv1.ValidatingWebhookConfiguration
			if err := yaml.Unmarshal(doc, &v); err != nil {
				return err
			}
			v.Name = "jobset-" + v.Name
			for i := range v.Webhooks {
				v.Webhooks[i].ClientConfig = clientConfig(v.Webhooks[i].ClientConfig)
				if forPods(v.Webhooks[i].Rules) {
					v.Webhooks[i].ObjectSelector = jobsetPodSelector
				}
			}
			hooks := kc.AdmissionregistrationV1().ValidatingWebhookConfigurations()
			if err := hooks.Delete(ctx, v.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("replace %s: %w", v.Name, err)
			}
			if _, err := hooks.Create(ctx, &v, metav1.CreateOptions{}); err != nil {
				return fmt.Errorf("install %s: %w", v.Name, err)
			}
		}
	}
}

// start runs the JobSet manager in namespace jobset-system (where an
// install runs it; its headless Services and events go to the JobSets'
// own namespaces) and waits until it is ready and its webhooks answer.
func (j *jobsetSetup) start(ctx context.Context) error {
	kc, err := kubernetes.NewForConfig(j.env.REST)
	if err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: jobsetNamespace}}
	if _, err := kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", jobsetNamespace, err)
	}
	cfgPath := filepath.Join(j.env.Dir, "jobset-config.yaml")
	if err := os.WriteFile(cfgPath, []byte(jobsetConfig(j.healthPort, j.webhookPort, j.pki.path("jobset"))), 0o600); err != nil {
		return err
	}
	p, err := startProcess("jobset", filepath.Join(j.env.Dir, "logs"), 5*time.Second,
		[]string{"KUBECONFIG=" + j.env.Kubeconfig}, j.env.bin("jobset"),
		"--config="+cfgPath, "--zap-log-level=info")
	if err != nil {
		return err
	}
	j.env.procs = append(j.env.procs, p)
	health := "http://127.0.0.1:" + strconv.Itoa(j.healthPort) + "/readyz"
	if err := p.waitFor(ctx, 120*time.Second, "ready", func(ctx context.Context) error { return httpOK(ctx, nil, health) }); err != nil {
		return err
	}
	// Ready means the webhook server started; prove the webhooks answer
	// through the API server with a dry-run create.
	dc, err := dynamic.NewForConfig(j.env.REST)
	if err != nil {
		return err
	}
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": "mlplatform-webhook-probe"},
		"spec": map[string]any{"replicatedJobs": []any{map[string]any{
			"name": "probe", "replicas": int64(1),
			"template": map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
				"restartPolicy": "Never",
				"containers":    []any{map[string]any{"name": "probe", "image": "probe"}},
			}}}},
		}}},
	}}
	return p.waitFor(ctx, 60*time.Second, "serving its webhooks", func(ctx context.Context) error {
		_, err := dc.Resource(jobSetsResource).Namespace(metav1.NamespaceDefault).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	})
}

// jobsetVersionOf reads the JobSet release a jobset binary was built from
// (scripts/tools.sh builds sigs.k8s.io/jobset@vX.Y.Z as a dependency of a
// throwaway main module, which records it).
func jobsetVersionOf(bin string) (string, error) {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("read the JobSet version of %s: %w", bin, err)
	}
	for _, m := range append([]*debug.Module{&info.Main}, info.Deps...) {
		if m.Path == "sigs.k8s.io/jobset" && m.Version != "" && m.Version != "(devel)" {
			return m.Version, nil
		}
	}
	return "", fmt.Errorf("%s does not say which JobSet release it is (not built from sigs.k8s.io/jobset@VERSION)", bin)
}

// JobSetVersion is the JobSet release the environment runs, e.g. "v0.12.0";
// "" with Options.WithoutJobSet.
func (e *Env) JobSetVersion() string {
	if e.jobset == nil {
		return ""
	}
	return e.jobset.version
}
