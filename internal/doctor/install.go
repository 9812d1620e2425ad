package doctor

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
)

// MinKueueVersion is the oldest Kueue release the provider supports
// (internal/kueue: the supported range).
const MinKueueVersion = kueue.OldestVersion

// kueueVersion is the Kueue API version the provider speaks.
var kueueVersion = kueue.GroupVersion.Version

const provisioningRequestCRD = "provisioningrequests.autoscaling.x-k8s.io"

// KueueConfigMap is where an in-cluster Kueue keeps its configuration (the
// manifests' and the Helm chart's name), under KueueConfigMapKey; the chart
// labels it with the release (app.kubernetes.io/version), and the sandbox
// and the test environment write it the same way for the Kueue they run out
// of cluster.
const (
	KueueConfigMap    = "kueue-manager-config"
	KueueConfigMapKey = "controller_manager_config.yaml"
	versionLabel      = "app.kubernetes.io/version"
)

// MigrationStep is Kueue's own step that rewrites every stored object as
// v1beta2 and drops v1beta1 from the CRDs' storedVersions.
const MigrationStep = "hack/migrate-to-v1beta2.sh"

// kueueKinds are the Kueue CRDs the provider writes or doctor reads.
var kueueKinds = []string{
	"admissionchecks", "clusterqueues", "cohorts", "localqueues", "multikueueclusters", "multikueueconfigs",
	"provisioningrequestconfigs",
	"resourceflavors", "topologies", "workloadpriorityclasses", "workloads",
}

// Analyze runs every check on s.

// --- DOC001 DOC002 DOC003 DOC015: the installation ---------------------------------

func (a analysis) installation() {
	s := a.s
	crds := map[string]apiextv1.CustomResourceDefinition{}
	if a.needs(s.CRDsRead, CheckKueueCRDs, CheckKueueVersion, CheckStoredV1beta1, CheckProvisioningAPI) {
		for _, c := range s.CRDs {
			crds[c.Name] = c
		}
		for _, kind := range kueueKinds {
			name := kind + "." + kueue.GroupVersion.Group
			crd, ok := crds[name]
			switch {
			case !ok:
				a.f.add(CheckKueueCRDs, SeverityError, "CRD "+name, fmt.Sprintf("Kueue's CRD %s is not installed: Kueue is not installed, "+
					"or is older than the provider needs (%s)", name, MinKueueVersion),
					"install Kueue "+MinKueueVersion+" or later (kubectl apply --server-side -f https://github.com/kubernetes-sigs/kueue/releases/download/"+MinKueueVersion+"/manifests.yaml)")
			case !served(crd, kueueVersion):
				a.f.add(CheckKueueCRDs, SeverityError, "CRD "+name, fmt.Sprintf("Kueue's CRD %s does not serve %s (it serves %s): the installed Kueue is older "+
					"than the provider speaks", name, kueueVersion, strings.Join(servedVersions(crd), ", ")),
					"upgrade Kueue to "+MinKueueVersion+" or later")
			case !established(crd):
				a.f.add(CheckKueueCRDs, SeverityError, "CRD "+name, fmt.Sprintf("Kueue's CRD %s is not Established: the API server does not serve it yet", name),
					"wait for the CRD to be established (kubectl wait --for condition=established crd/"+name+"); if it stays so, see its conditions with kubectl describe crd "+name)
			default:
				a.f.pass(1)
			}
		}
		a.version(crds)
		a.storedVersions()
	}
	a.webhooks()
}

func served(c apiextv1.CustomResourceDefinition, v string) bool {
	for _, cv := range c.Spec.Versions {
		if cv.Name == v && cv.Served {
			return true
		}
	}
	return false
}

func servedVersions(c apiextv1.CustomResourceDefinition) []string {
	var out []string
	for _, cv := range c.Spec.Versions {
		if cv.Served {
			out = append(out, cv.Name)
		}
	}
	if len(out) == 0 {
		out = []string{"none"}
	}
	return out
}

func established(c apiextv1.CustomResourceDefinition) bool {
	for _, cond := range c.Status.Conditions {
		if cond.Type == apiextv1.Established {
			return cond.Status == apiextv1.ConditionTrue
		}
	}
	return false
}

func (a analysis) webhooks() {
	w := a.s.Webhook
	if w.ok() {
		a.f.pass(1)
		return
	}
	var te *TimeoutError
	fix := "check Kueue's manager (kubectl -n " + KueueNamespace + " get pods; kubectl -n " + KueueNamespace + " logs deploy/kueue-controller-manager) " +
		"and that kueue-webhook-service has ready endpoints; restart the manager if it hangs"
	switch {
	case errors.As(w.Err, &te):
		a.f.add(CheckKueueWebhooks, SeverityError, "Kueue webhooks", fmt.Sprintf("Kueue's admission webhooks did not answer within %s "+
			"(a server-side dry-run create of ResourceFlavor %s): Kueue's manager is stopped, frozen or unreachable, so every create "+
			"or change of a Kueue object fails, and terraform apply with it", te.After, ProbeFlavor), fix)
	case apierrors.IsForbidden(w.Err):
		a.f.pass(1)
		a.f.note("Kueue's webhooks were not probed: the identity doctor runs as may not create ResourceFlavors (" + w.Err.Error() + "); " +
			"to probe them, grant it create on resourceflavors.kueue.x-k8s.io (the probe is a server-side dry run: it stores nothing)")
	case strings.Contains(w.Err.Error(), "failed calling webhook"):
		a.f.add(CheckKueueWebhooks, SeverityError, "Kueue webhooks", "the API server could not call Kueue's admission webhooks: "+w.Err.Error()+
			"; every create or change of a Kueue object fails until they answer", fix)
	default:
		a.f.add(CheckKueueWebhooks, SeverityError, "Kueue webhooks", "a dry-run create of ResourceFlavor "+ProbeFlavor+" failed: "+w.Err.Error()+
			"; Kueue's webhooks may not be answering, and then every create or change of a Kueue object fails", fix)
	}
}

// kueueVersionFound is the Kueue release the cluster runs and where doctor
// read it: the manager's image tag in a kueue-system Deployment, else the
// release label of Kueue's ConfigMap. version is "" when neither says.
func (s *Snapshot) kueueVersionFound() (version, source string) {
	for _, d := range s.KueueDeployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if !strings.Contains(c.Image, "kueue") {
				continue
			}
			_, tag, _ := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":")
			tag, _, _ = strings.Cut(tag, "@")
			return tag, fmt.Sprintf("the image %s of Deployment %s/%s", c.Image, KueueNamespace, d.Name)
		}
	}
	if s.KueueConfig != nil && s.KueueConfig.Labels[versionLabel] != "" {
		return s.KueueConfig.Labels[versionLabel], fmt.Sprintf("the %s label of ConfigMap %s/%s", versionLabel, KueueNamespace, KueueConfigMap)
	}
	return "", ""
}

// version is DOC002: Kueue stores its objects as v1beta2, and the release
// found is one the provider supports.
func (a analysis) version(crds map[string]apiextv1.CustomResourceDefinition) {
	cq, ok := crds["clusterqueues."+kueue.GroupVersion.Group]
	if !ok {
		return // DOC001 said it
	}
	for _, v := range cq.Spec.Versions {
		if v.Storage && v.Name != kueueVersion {
			a.f.add(CheckKueueVersion, SeverityError, "Kueue", fmt.Sprintf("Kueue stores its objects as %s, not %s: the installed Kueue is older than v0.16, "+
				"and the provider supports %s", v.Name, kueueVersion, kueue.SupportedRange()), "upgrade Kueue to "+kueue.NewestVersion)
			return
		}
	}
	found, source := a.s.kueueVersionFound()
	switch {
	case found == "" && (!a.s.DeploymentsRead.ok() || !a.s.KueueConfigRead.ok()):
		failed := a.s.DeploymentsRead
		if failed.ok() {
			failed = a.s.KueueConfigRead
		}
		a.f.pass(1)
		a.f.note(fmt.Sprintf("Kueue's version was not read (%s: %s); its CRDs serve and store %s", failed.What, plainErr(failed.Err), kueueVersion))
		return
	case found == "":
		a.f.pass(1)
		a.f.note(fmt.Sprintf("no Kueue Deployment in %s and no %s label on ConfigMap %s/%s: Kueue's version is not known; its CRDs serve and store %s",
			KueueNamespace, versionLabel, KueueNamespace, KueueConfigMap, kueueVersion))
		return
	}
	object := "Kueue " + found
	supported, known := kueue.Supported(found)
	switch {
	case !known:
		a.f.pass(1)
		a.f.note(fmt.Sprintf("Kueue's version %q (from %s) is not a release doctor can compare with the supported range, %s", found, source, kueue.SupportedRange()))
	case supported:
		a.f.pass(1)
		a.f.note(fmt.Sprintf("Kueue %s (from %s): supported (%s)", found, source, kueue.SupportedRange()))
	case kueue.VersionLess(found, kueue.OldestVersion):
		a.f.add(CheckKueueVersion, SeverityError, object, fmt.Sprintf("Kueue's manager runs %s (from %s), older than %s: the provider supports %s",
			found, source, kueue.OldestVersion, kueue.SupportedRange()),
			"upgrade Kueue to "+kueue.NewestVersion+" (or at least "+kueue.OldestVersion+")")
	default:
		a.f.add(CheckKueueVersion, SeverityWarning, object, fmt.Sprintf("Kueue's manager runs %s (from %s), newer than this provider supports (%s): "+
			"it is not tested with it, and from %s Kueue no longer serves v1beta1", found, source, kueue.SupportedRange(), kueue.FirstUnsupportedVersion),
			"use a provider release whose supported range includes "+found+", or run Kueue "+kueue.NewestVersion)
	}
}

// storedVersions is DOC015 (installation runs it when the CRDs were read):
// a Kueue CRD whose status.storedVersions still lists v1beta1 may have
// objects in etcd stored as v1beta1, which Kueue v0.20 (it stops serving
// v1beta1) can no longer read. Kueue's migration script rewrites the
// objects; the API server never drops a version from storedVersions by
// itself, so the fix ends with that patch.
func (a analysis) storedVersions() {
	var stale []apiextv1.CustomResourceDefinition
	for _, c := range a.s.CRDs {
		if strings.HasSuffix(c.Name, "."+kueue.GroupVersion.Group) && slices.Contains(c.Status.StoredVersions, "v1beta1") {
			stale = append(stale, c)
		}
	}
	if len(stale) == 0 {
		a.f.pass(1)
		return
	}
	for _, c := range stale {
		a.f.add(CheckStoredV1beta1, SeverityWarning, "CRD "+c.Name, fmt.Sprintf("Kueue's CRD %s still lists v1beta1 in status.storedVersions (%s): "+
			"objects of this kind may still be stored as v1beta1, and Kueue %s stops serving v1beta1, so an upgrade to it fails to serve them",
			c.Name, strings.Join(c.Status.StoredVersions, ", "), kueue.FirstUnsupportedVersion),
			"before upgrading Kueue to "+kueue.FirstUnsupportedVersion+" or later, run Kueue's migration step "+MigrationStep+
				" (from the Kueue release you run; it rewrites every object as v1beta2), then drop v1beta1 from the CRD's stored versions: "+
				"kubectl patch crd "+c.Name+" --subresource=status --type=merge -p '{\"status\":{\"storedVersions\":[\"v1beta2\"]}}'; then run doctor again")
	}
}

// versionLess compares vMAJOR.MINOR.PATCH tags; known is false for a tag
// that is not one.
func versionLess(a, b string) (less, known bool) {
	if !kueue.ParseVersion(a) || !kueue.ParseVersion(b) {
		return false, false
	}
	return kueue.VersionLess(a, b), true
}
