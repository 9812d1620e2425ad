package doctor

import (
	"errors"
	"fmt"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
)

// MinKueueVersion is the Kueue release the provider is built and tested
// against (the sigs.k8s.io/kueue module in go.mod; a test keeps them equal).
const MinKueueVersion = "v0.17.0"

// kueueVersion is the Kueue API version the provider speaks.
var kueueVersion = kueue.GroupVersion.Version

const provisioningRequestCRD = "provisioningrequests.autoscaling.x-k8s.io"

// kueueKinds are the Kueue CRDs the provider writes or doctor reads.
var kueueKinds = []string{
	"admissionchecks", "clusterqueues", "cohorts", "localqueues", "multikueueconfigs", "provisioningrequestconfigs",
	"resourceflavors", "workloadpriorityclasses", "workloads",
}

// Analyze runs every check on s.

// --- DOC001 DOC002 DOC003: the installation ---------------------------------

func (a analysis) installation() {
	s := a.s
	crds := map[string]apiextv1.CustomResourceDefinition{}
	if a.needs(s.CRDsRead, CheckKueueCRDs, CheckKueueVersion, CheckProvisioningAPI) {
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

// version: Kueue's manager image, when it runs in the cluster; else the
// storage version of its CRDs (v1beta2 since v0.16).
func (a analysis) version(crds map[string]apiextv1.CustomResourceDefinition) {
	cq, ok := crds["clusterqueues."+kueue.GroupVersion.Group]
	if !ok {
		return // DOC001 said it
	}
	for _, v := range cq.Spec.Versions {
		if v.Storage && v.Name != kueueVersion {
			a.f.add(CheckKueueVersion, SeverityError, "Kueue", fmt.Sprintf("Kueue stores its objects as %s, not %s: the installed Kueue is older than v0.16, "+
				"and the provider speaks %s of %s", v.Name, kueueVersion, kueueVersion, MinKueueVersion), "upgrade Kueue to "+MinKueueVersion+" or later")
			return
		}
	}
	if !a.s.DeploymentsRead.ok() {
		a.f.pass(1)
		a.f.note(fmt.Sprintf("Kueue's version was not read (%s: %s); its CRDs serve and store %s", a.s.DeploymentsRead.What, plainErr(a.s.DeploymentsRead.Err), kueueVersion))
		return
	}
	for _, d := range a.s.KueueDeployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			if !strings.Contains(c.Image, "kueue") {
				continue
			}
			_, tag, _ := strings.Cut(c.Image[strings.LastIndex(c.Image, "/")+1:], ":")
			tag, _, _ = strings.Cut(tag, "@")
			if older, known := versionLess(tag, MinKueueVersion); known && older {
				a.f.add(CheckKueueVersion, SeverityError, "Deployment "+KueueNamespace+"/"+d.Name,
					fmt.Sprintf("Kueue's manager runs %s, older than %s, the version the provider speaks", c.Image, MinKueueVersion),
					"upgrade Kueue to "+MinKueueVersion+" or later")
				return
			} else if !known {
				a.f.note(fmt.Sprintf("Kueue's manager image %s has no version tag doctor can compare with %s", c.Image, MinKueueVersion))
			}
			a.f.pass(1)
			return
		}
	}
	a.f.pass(1)
	a.f.note(fmt.Sprintf("no Kueue Deployment in %s (Kueue runs outside the cluster, or in another namespace): its version is not known; its CRDs serve and store %s",
		KueueNamespace, kueueVersion))
}

// versionLess compares vMAJOR.MINOR.PATCH tags; known is false for a tag
// that is not one.
func versionLess(a, b string) (less, known bool) {
	pa, oka := parseVersion(a)
	pb, okb := parseVersion(b)
	if !oka || !okb {
		return false, false
	}
	for i := range pa {
		if pa[i] != pb[i] {
			return pa[i] < pb[i], true
		}
	}
	return false, true
}

func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		if _, err := fmt.Sscanf(p, "%d", &out[i]); err != nil {
			return out, false
		}
	}
	return out, true
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
