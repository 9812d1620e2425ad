package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
	"sigs.k8s.io/yaml"
)

const kueueNamespace = "kueue-system"

// conversionCRDs are the Kueue CRDs served through its conversion webhook
// (the same set as upstream config/components/crd/kustomization.yaml and the
// CRDConversion entries of Kueue's cert rotator).
var conversionCRDs = []string{
	"clusterqueues.kueue.x-k8s.io", "localqueues.kueue.x-k8s.io", "workloads.kueue.x-k8s.io",
	"cohorts.kueue.x-k8s.io", "multikueueclusters.kueue.x-k8s.io",
}

type kueueSetup struct {
	env         *Env
	pki         *pki
	webhookPort int
	healthPort  int
	// dir holds the kueue binary and kueue-manifests/ of the Kueue that
	// runs (Options.KueueBinDir, or another after ReplaceKueue).
	dir string
	// version is that Kueue's release, e.g. "v0.19.2" (from the binary).
	version string
	proc    *process
}

func (k *kueueSetup) webhookURL(path string) string {
	return "https://127.0.0.1:" + strconv.Itoa(k.webhookPort) + path
}

// installCRDs installs the CRDs shipped with the pinned Kueue module and the
// ProvisioningRequest CRD GKE serves. With
// conversion, the multi-version CRDs point at the local Kueue manager.
func (k *kueueSetup) installCRDs(ctx context.Context, conversion bool) error {
	dir := filepath.Join(k.dir, "kueue-manifests", "crd")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no Kueue CRDs in %s: run scripts/tools.sh", dir)
	}
	// The APIs GKE serves that Kueue builds on: ProvisioningRequest (served by
	// GKE's cluster autoscaler), without which Kueue skips its flex-start
	// admission-check controller.
	gke, _ := filepath.Glob(filepath.Join(k.dir, "kueue-manifests", "gke", "*.yaml"))
	files = append(files, gke...)
	cs, err := apiextclient.NewForConfig(k.env.REST)
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
		if conversion && slices.Contains(conversionCRDs, crd.Name) {
			url := k.webhookURL("/convert")
			crd.Spec.Conversion = &apiextv1.CustomResourceConversion{
				Strategy: apiextv1.WebhookConverter,
				Webhook: &apiextv1.WebhookConversion{
					ConversionReviewVersions: []string{"v1"},
					ClientConfig:             &apiextv1.WebhookClientConfig{URL: &url, CABundle: k.pki.kueueCA.CertPEM},
				},
			}
		}
		if err := createOrUpdateCRD(ctx, cs, &crd); err != nil {
			return fmt.Errorf("install CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	return waitEstablished(ctx, cs, names)
}

// start runs the Kueue manager out of cluster with its webhooks served on
// 127.0.0.1, following the upstream deployment: namespace kueue-system, the
// webhook Secret pre-filled with our CA and serving cert (Kueue's cert
// rotator then accepts them instead of minting certs for a Service), and
// webhook configurations rewritten from Service to URL form.
func (k *kueueSetup) start(ctx context.Context) error {
	kc, err := kubernetes.NewForConfig(k.env.REST)
	if err != nil {
		return err
	}
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kueueNamespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", kueueNamespace, err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "kueue-webhook-server-cert", Namespace: kueueNamespace},
		Data: map[string][]byte{
			"ca.crt": k.pki.kueueCA.CertPEM, "ca.key": k.pki.kueueCA.KeyPEM,
			"tls.crt": k.pki.kueueServe.CertPEM, "tls.key": k.pki.kueueServe.KeyPEM,
		},
	}
	if _, err := kc.CoreV1().Secrets(kueueNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the Kueue webhook secret: %w", err)
	}
	return k.run(ctx, kc)
}

// run installs Kueue's webhooks and its configuration (a file for the
// manager, and the ConfigMap an in-cluster install keeps it in), starts the
// manager and waits until its webhooks answer.
func (k *kueueSetup) run(ctx context.Context, kc kubernetes.Interface) error {
	if err := k.installWebhooks(ctx, kc); err != nil {
		return err
	}
	config, err := KueueConfig(k.version, k.healthPort, k.webhookPort, k.pki.path("kueue"))
	if err != nil {
		return err
	}
	cfgPath := filepath.Join(k.env.Dir, "kueue-config.yaml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		return err
	}
	if err := writeKueueConfigMap(ctx, kc, k.version, config); err != nil {
		return err
	}
	p, err := startProcess("kueue", filepath.Join(k.env.Dir, "logs"), 5*time.Second,
		[]string{"KUBECONFIG=" + k.env.Kubeconfig}, filepath.Join(k.dir, "kueue"),
		"--config="+cfgPath, "--feature-gates=VisibilityOnDemand=false", "--zap-log-level=info")
	if err != nil {
		return err
	}
	k.proc = p
	k.env.procs = append(k.env.procs, p)
	health := "http://127.0.0.1:" + strconv.Itoa(k.healthPort) + "/readyz"
	if err := p.waitFor(ctx, 120*time.Second, "ready", func(ctx context.Context) error { return httpOK(ctx, nil, health) }); err != nil {
		return err
	}
	// Ready means the manager started; prove the webhooks answer through the
	// apiserver (the path every test takes) with a dry-run create.
	qc, err := kueueclient.NewForConfig(k.env.REST)
	if err != nil {
		return err
	}
	probe := &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: "mlplatform-webhook-probe"}}
	return p.waitFor(ctx, 60*time.Second, "serving its webhooks", func(ctx context.Context) error {
		_, err := qc.KueueV1beta2().ClusterQueues().Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	})
}

// installWebhooks installs the admission webhooks of Kueue that wanted
// picks, in URL form, named as Kueue's cert rotator expects.
func (k *kueueSetup) installWebhooks(ctx context.Context, kc kubernetes.Interface) error {
	path := filepath.Join(k.dir, "kueue-manifests", "webhooks.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
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
			m.Name = "kueue-" + m.Name
			m.Webhooks = slices.DeleteFunc(m.Webhooks, func(w admissionv1.MutatingWebhook) bool { return !k.wanted(w.Rules) })
			for i := range m.Webhooks {
				m.Webhooks[i].ClientConfig = k.clientConfig(m.Webhooks[i].ClientConfig)
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
			v.Name = "kueue-" + v.Name
			v.Webhooks = slices.DeleteFunc(v.Webhooks, func(w admissionv1.ValidatingWebhook) bool { return !k.wanted(w.Rules) })
			for i := range v.Webhooks {
				v.Webhooks[i].ClientConfig = k.clientConfig(v.Webhooks[i].ClientConfig)
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

// wanted says whether a webhook of Kueue's is installed:
//   - those of Kueue's own kinds (kueue.x-k8s.io), always;
//   - those of JobSets (jobset.x-k8s.io), whenever the JobSet controller
//     runs, as a real installation with the jobset integration has them: the
//     mutating one suspends a JobSet with the queue-name label on create
//     (else the JobSet controller would create its Jobs unsuspended before
//     Kueue's reconciler stopped it) and, in a MultiKueue manager, sets its
//     spec.managedBy=kueue.x-k8s.io/multikueue, so the manager's JobSet
//     controller leaves it to the worker it is dispatched to;
//   - with Options.JobWebhooks, those of batch/v1 Jobs (the same for Jobs).
//
// The pod, deployment, statefulset and other integrations' webhooks are not
// installed: those frameworks are off (KueueConfig).
func (k *kueueSetup) wanted(rules []admissionv1.RuleWithOperations) bool {
	if forKueue(rules) {
		return true
	}
	for _, r := range rules {
		if k.env.jobset != nil && slices.Contains(r.APIGroups, jobSetsResource.Group) && slices.Contains(r.Resources, jobSetsResource.Resource) {
			return true
		}
		if k.env.opts.JobWebhooks && slices.Contains(r.APIGroups, "batch") && slices.Contains(r.Resources, "jobs") {
			return true
		}
	}
	return false
}

func forKueue(rules []admissionv1.RuleWithOperations) bool {
	for _, r := range rules {
		if slices.Contains(r.APIGroups, kueuev1beta2.SchemeGroupVersion.Group) {
			return true
		}
	}
	return false
}

func (k *kueueSetup) clientConfig(in admissionv1.WebhookClientConfig) admissionv1.WebhookClientConfig {
	path := ""
	if in.Service != nil && in.Service.Path != nil {
		path = *in.Service.Path
	}
	url := k.webhookURL(path)
	return admissionv1.WebhookClientConfig{URL: &url, CABundle: k.pki.kueueCA.CertPEM}
}

// httpOK GETs url (with the cluster's TLS and credentials when cfg is set)
// and succeeds on 200.
func httpOK(ctx context.Context, cfg *rest.Config, url string) error {
	client := http.DefaultClient
	if cfg != nil {
		var err error
		if client, err = rest.HTTPClientFor(cfg); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: %s %s", errNotReady, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}
