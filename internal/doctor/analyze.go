package doctor

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// MinKueueVersion is the Kueue release the provider is built and tested
// against (the sigs.k8s.io/kueue module in go.mod; a test keeps them equal).
const MinKueueVersion = "v0.17.0"

// kueueVersion is the Kueue API version the provider speaks.
var kueueVersion = kueue.GroupVersion.Version

const provisioningRequestCRD = "provisioningrequests.autoscaling.x-k8s.io"

// kueueKinds are the Kueue CRDs the provider writes or doctor reads.
var kueueKinds = []string{
	"admissionchecks", "clusterqueues", "cohorts", "localqueues", "provisioningrequestconfigs",
	"resourceflavors", "workloadpriorityclasses", "workloads",
}

// Analyze runs every check on s.
func Analyze(s *Snapshot, opts Options) *Result {
	opts = opts.withDefaults()
	res := &Result{}
	f := findings{res: res}
	a := analysis{s: s, f: f, opts: opts}
	a.installation()
	a.admissionChecks()
	a.queues()
	a.flavorsAndPools()
	a.workloads()
	a.defaultDeny()
	sortFindings(res.Findings)
	return res
}

type analysis struct {
	s    *Snapshot
	f    findings
	opts Options
}

// needs reports whether r succeeded, and records DOC000 for the checks that
// needed it when it did not.
func (a analysis) needs(r Read, checks ...Check) bool {
	if r.ok() {
		return true
	}
	var ids []string
	for _, c := range checks {
		ids = append(ids, c.ID+" "+c.Slug)
	}
	msg := fmt.Sprintf("could not read %s: %s, so %s could not run", r.What, plainErr(r.Err), strings.Join(ids, ", "))
	fix := "check the credentials and that the API answers (the error says which); run doctor again"
	if apierrors.IsForbidden(r.Err) {
		fix = "grant the identity doctor runs as list on " + r.What + " (a ClusterRole with get, list on the kind)"
	}
	for _, have := range a.f.res.Findings { // one DOC000 per read
		if have.ID == CheckNotRun.ID && have.Object == r.What {
			return false
		}
	}
	a.f.add(CheckNotRun, SeverityError, r.What, msg, fix)
	return false
}

func plainErr(err error) string {
	var te *TimeoutError
	if errors.As(err, &te) {
		return fmt.Sprintf("no answer within %s", te.After)
	}
	return err.Error()
}

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

// --- DOC004 DOC005: admission checks ----------------------------------------

func (a analysis) admissionChecks() {
	s := a.s
	if !a.needs(s.ACRead, CheckProvisioningAPI, CheckAdmissionCheck) {
		return
	}
	var provCRD *apiextv1.CustomResourceDefinition
	for i := range s.CRDs {
		if s.CRDs[i].Name == provisioningRequestCRD {
			provCRD = &s.CRDs[i]
		}
	}
	for _, ac := range s.AdmissionChecks {
		obj := "AdmissionCheck " + ac.Name
		r := reconcile.ConditionReadiness(ac.Status.Conditions, kueuev1beta2.AdmissionCheckActive)
		prov := ac.Spec.ControllerName == kueuev1beta2.ProvisioningRequestControllerName
		if prov && s.CRDsRead.ok() {
			switch {
			case provCRD == nil || !served(*provCRD, "v1"):
				a.f.add(CheckProvisioningAPI, SeverityError, obj, fmt.Sprintf("AdmissionCheck %s is a provisioning check, but the cluster does not serve "+
					"the ProvisioningRequest API (autoscaling.x-k8s.io/v1): workloads on its flavors wait for nodes that are never requested", ac.Name),
					"use a GKE version with queued provisioning (1.28.3-gke.1098000 or later, ProvisioningRequest served by GKE's autoscaler), then restart Kueue so it sees the API")
				continue
			case !r.Ready:
				when := ""
				if start := a.kueueStart(); !start.IsZero() && provCRD.CreationTimestamp.After(start) {
					when = fmt.Sprintf(" (the API appeared at %s, after Kueue started)", provCRD.CreationTimestamp.UTC().Format(time.RFC3339))
				}
				a.f.add(CheckProvisioningAPI, SeverityError, obj, fmt.Sprintf("AdmissionCheck %s is not active although the ProvisioningRequest API is served%s: "+
					"Kueue looks for that API only when it starts, so its provisioning controller is not running (Kueue says %s: %s)", ac.Name, when, r.Reason, r.Message),
					"restart Kueue (kubectl -n "+KueueNamespace+" rollout restart deploy/kueue-controller-manager)")
				continue
			}
			a.f.pass(1)
		}
		if r.Ready {
			a.f.pass(1)
			continue
		}
		why := fmt.Sprintf("Kueue says %s: %s", r.Reason, r.Message)
		fix := "see kubectl describe admissioncheck " + ac.Name
		if prov && ac.Spec.Parameters != nil {
			fix = fmt.Sprintf("check that ProvisioningRequestConfig %s exists (mlplatform_provisioning_admission_check creates it)", ac.Spec.Parameters.Name)
		}
		a.f.add(CheckAdmissionCheck, SeverityError, obj, fmt.Sprintf("AdmissionCheck %s is not active (%s): ClusterQueues that use it admit nothing", ac.Name, why), fix)
	}
}

// kueueStart is when Kueue's manager last started, as far as the cluster
// says (its Deployment's newest condition); zero when unknown.
func (a analysis) kueueStart() time.Time {
	var t time.Time
	for _, d := range a.s.KueueDeployments {
		for _, c := range d.Status.Conditions {
			if c.LastUpdateTime.After(t) {
				t = c.LastUpdateTime.Time
			}
		}
	}
	return t
}

// --- DOC006 DOC007 DOC008 DOC009: queues ----------------------------------------

func (a analysis) queues() {
	s := a.s
	flavors := map[string]*kueuev1beta2.ResourceFlavor{}
	for i := range s.Flavors {
		flavors[s.Flavors[i].Name] = &s.Flavors[i]
	}
	lqsOf := map[string][]string{}
	for _, lq := range s.LocalQueues {
		lqsOf[string(lq.Spec.ClusterQueue)] = append(lqsOf[string(lq.Spec.ClusterQueue)], lq.Namespace+"/"+lq.Name)
	}
	cqs := map[string]*kueuev1beta2.ClusterQueue{}
	if a.needs(s.CQRead, CheckClusterQueue, CheckLocalQueue, CheckLocalQueueNS, CheckFlavorMissing, CheckFlavorPool) {
		for i := range s.ClusterQueues {
			cq := &s.ClusterQueues[i]
			cqs[cq.Name] = cq
			r := reconcile.ConditionReadiness(cq.Status.Conditions, kueuev1beta2.ClusterQueueActive)
			if r.Ready {
				a.f.pass(1)
				continue
			}
			stop := ""
			if cq.Spec.StopPolicy != nil {
				stop = string(*cq.Spec.StopPolicy)
			}
			why := reconcile.ExplainClusterQueue(spec.ClusterQueue{StopPolicy: stop})(r)
			var missing []string
			if r.Reason == kueuev1beta2.ClusterQueueActiveReasonFlavorNotFound && s.FlavorsRead.ok() {
				for _, fl := range queueFlavors(cq) {
					if fv := flavors[fl]; fv == nil || fv.DeletionTimestamp != nil {
						missing = append(missing, fl)
					}
				}
				if len(missing) > 0 {
					why = fmt.Sprintf("its ResourceFlavor %s does not exist", strings.Join(quoteAll(missing), ", "))
				}
			}
			msg := fmt.Sprintf("ClusterQueue %s is not active", cq.Name)
			if why != "" {
				msg += ": " + why
			}
			msg += fmt.Sprintf(" (Kueue says %s: %s); it admits no workload", r.Reason, strings.TrimSpace(r.Message))
			if lqs := lqsOf[cq.Name]; len(lqs) > 0 {
				msg += ", so jobs submitted to " + listSome(lqs, 5) + " wait"
			}
			a.f.add(CheckClusterQueue, SeverityError, "ClusterQueue "+cq.Name, msg, cqFix(cq, r, missing))
		}
		a.flavorsMissing(cqs, flavors)
	}
	if !a.needs(s.LQRead, CheckLocalQueue, CheckLocalQueueNS) {
		return
	}
	nsLabels := map[string]map[string]string{}
	nsOK := s.NamespacesRead.ok()
	for _, ns := range s.Namespaces {
		nsLabels[ns.Name] = ns.Labels
	}
	for _, lq := range s.LocalQueues {
		obj := "LocalQueue " + lq.Namespace + "/" + lq.Name
		cqName := string(lq.Spec.ClusterQueue)
		r := reconcile.ConditionReadiness(lq.Status.Conditions, kueuev1beta2.LocalQueueActive)
		if r.Ready {
			a.f.pass(1)
		} else {
			why := reconcile.ExplainLocalQueue(spec.LocalQueue{ClusterQueue: cqName})(r)
			msg := fmt.Sprintf("LocalQueue %s/%s is not active", lq.Namespace, lq.Name)
			if why != "" {
				msg += ": " + why
			}
			msg += fmt.Sprintf(" (Kueue says %s: %s); jobs submitted to it are not admitted", r.Reason, strings.TrimSpace(r.Message))
			fix := "see kubectl -n " + lq.Namespace + " describe localqueue " + lq.Name
			switch r.Reason {
			case "ClusterQueueDoesNotExist":
				fix = "create ClusterQueue " + cqName + " (mlplatform_cluster_queue) or fix cluster_queue"
			case "ClusterQueueIsInactive":
				fix = "fix ClusterQueue " + cqName + " (its own finding says why)"
			}
			a.f.add(CheckLocalQueue, SeverityError, obj, msg, fix)
		}
		cq := cqs[cqName]
		if cq == nil || !nsOK {
			continue
		}
		sel, err := selectorOf(cq.Spec.NamespaceSelector)
		if err != nil {
			continue
		}
		if sel.Matches(labels.Set(nsLabels[lq.Namespace])) {
			a.f.pass(1)
			continue
		}
		a.f.add(CheckLocalQueueNS, SeverityError, obj, fmt.Sprintf("LocalQueue %s/%s points at ClusterQueue %s, whose namespace_selector (%s) does not select namespace %s: "+
			"Kueue never admits its jobs (they stay Inadmissible)", lq.Namespace, lq.Name, cqName, describeSelector(cq.Spec.NamespaceSelector), lq.Namespace),
			"label the namespace to match, or change the ClusterQueue's namespace_selector (e.g. to the team namespace's selector)")
	}
}

func selectorOf(s *metav1.LabelSelector) (labels.Selector, error) {
	if s == nil {
		return labels.Nothing(), nil
	}
	return metav1.LabelSelectorAsSelector(s)
}

func describeSelector(s *metav1.LabelSelector) string {
	if s == nil {
		return "none: it selects no namespace"
	}
	if sel, err := metav1.LabelSelectorAsSelector(s); err == nil {
		if sel.Empty() {
			return "{}: every namespace"
		}
		return sel.String()
	}
	return "invalid"
}

func cqFix(cq *kueuev1beta2.ClusterQueue, r reconcile.Readiness, missing []string) string {
	switch r.Reason {
	case kueuev1beta2.ClusterQueueActiveReasonFlavorNotFound:
		if len(missing) > 0 {
			return "create ResourceFlavor " + strings.Join(missing, ", ") + " (mlplatform_resource_flavor; terraform apply puts back one deleted out of band) or remove it from resource_groups"
		}
		return "create the flavor (mlplatform_resource_flavor) or fix the flavor names in resource_groups"
	case kueuev1beta2.ClusterQueueActiveReasonAdmissionCheckNotFound:
		return "create it (mlplatform_provisioning_admission_check) or fix admission_checks"
	case kueuev1beta2.ClusterQueueActiveReasonAdmissionCheckInactive:
		return "fix the admission check (its own finding says why)"
	case kueuev1beta2.ClusterQueueActiveReasonStopped:
		return "set stop_policy = \"None\" when the queue should run again"
	case "NoStatus":
		return "check that Kueue's manager is running (kubectl -n " + KueueNamespace + " get pods)"
	}
	return "see kubectl describe clusterqueue " + cq.Name
}

// queueFlavors are the flavors a ClusterQueue's quotas name, in order.
func queueFlavors(cq *kueuev1beta2.ClusterQueue) []string {
	var out []string
	for _, g := range cq.Spec.ResourceGroups {
		for _, fq := range g.Flavors {
			if !slices.Contains(out, string(fq.Name)) {
				out = append(out, string(fq.Name))
			}
		}
	}
	return out
}

// flavorsMissing: DOC009, one finding per flavor named by queues that does
// not exist (or is being deleted), naming the queues.
func (a analysis) flavorsMissing(cqs map[string]*kueuev1beta2.ClusterQueue, flavors map[string]*kueuev1beta2.ResourceFlavor) {
	if !a.needs(a.s.FlavorsRead, CheckFlavorMissing, CheckFlavorPool) {
		return
	}
	users := a.flavorUsers()
	for _, name := range spec.SortedKeys(users) {
		fl := flavors[name]
		switch {
		case fl == nil:
			a.f.add(CheckFlavorMissing, SeverityError, "ResourceFlavor "+name, fmt.Sprintf("ResourceFlavor %s does not exist, but %s it in quotas: inactive, they admit nothing", name, queues(users[name], "names", "name")),
				"create it again (terraform apply puts back a flavor deleted out of band), or remove it from the queues' resource_groups")
		case fl.DeletionTimestamp != nil:
			a.f.add(CheckFlavorMissing, SeverityWarning, "ResourceFlavor "+name, fmt.Sprintf("ResourceFlavor %s is being deleted (since %s); Kueue's finalizer keeps it "+
				"only while %s it: once it goes, they turn inactive and admit nothing", name, fl.DeletionTimestamp.UTC().Format(time.RFC3339), queues(users[name], "names", "name")),
				"a deletion cannot be undone: if the flavor should stay, run terraform apply once it is gone to create it again; if it should go, remove it from those queues' resource_groups")
		default:
			a.f.pass(1)
		}
	}
}

// flavorUsers maps each flavor named by a ClusterQueue to those queues.
func (a analysis) flavorUsers() map[string][]string {
	users := map[string][]string{}
	for i := range a.s.ClusterQueues {
		cq := &a.s.ClusterQueues[i]
		for _, f := range queueFlavors(cq) {
			users[f] = append(users[f], cq.Name)
		}
	}
	return users
}

// --- DOC010 DOC011 DOC012: flavors and pools ---------------------------------------

// poolLabels are the node labels GKE puts on a pool's nodes that doctor can
// know from the pool: its own labels, the pool name, the accelerator, MIG
// and sharing labels, spot.
func poolLabels(np *containerpb.NodePool) map[string]string {
	out := maps.Clone(np.GetConfig().GetLabels())
	if out == nil {
		out = map[string]string{}
	}
	out[spec.NodePoolLabel] = np.GetName()
	for _, acc := range np.GetConfig().GetAccelerators() {
		out["cloud.google.com/gke-accelerator"] = acc.GetAcceleratorType()
		if p := acc.GetGpuPartitionSize(); p != "" {
			out[spec.PartitionSizeLabel] = p
		}
		if sh := acc.GetGpuSharingConfig(); sh != nil && sh.GetMaxSharedClientsPerGpu() > 0 {
			out[spec.MaxClientsLabel] = fmt.Sprint(sh.GetMaxSharedClientsPerGpu())
			switch sh.GetGpuSharingStrategy() {
			case containerpb.GPUSharingConfig_TIME_SHARING:
				out[spec.SharingStrategyLabel] = "time-sharing"
			case containerpb.GPUSharingConfig_MPS:
				out[spec.SharingStrategyLabel] = "mps"
			}
		}
	}
	if np.GetConfig().GetSpot() {
		out["cloud.google.com/gke-spot"] = "true"
	}
	if np.GetConfig().GetFlexStart() {
		out["cloud.google.com/gke-flex-start"] = "true"
	}
	return out
}

// mismatch is the first label of want the pool's nodes do not carry ("" when
// they carry them all). GKE labels doctor cannot know from the pool
// (cloud.google.com/gke-*, not in have) are taken as carried.
func mismatch(want, have map[string]string) string {
	for _, k := range spec.SortedKeys(want) {
		v, ok := have[k]
		if ok && v == want[k] {
			continue
		}
		if !ok && strings.HasPrefix(k, spec.ServerOwnedNodeLabelPfx) {
			continue
		}
		return k + "=" + want[k]
	}
	return ""
}

func (a analysis) flavorsAndPools() {
	s := a.s
	if s.PoolsRead.What == "" {
		a.f.note("GKE was not read (no project, location and cluster: --project, --location, --cluster or MLPLATFORM_PROJECT, MLPLATFORM_LOCATION, MLPLATFORM_CLUSTER): flavors were not checked against node pools, nor pools' status and taints")
		return
	}
	if !a.needs(s.PoolsRead, CheckFlavorPool, CheckPoolRunning, CheckPoolTaints) {
		return
	}
	for _, np := range s.Pools {
		switch np.GetStatus() {
		case containerpb.NodePool_RUNNING:
			a.f.pass(1)
		case containerpb.NodePool_PROVISIONING, containerpb.NodePool_RECONCILING:
			a.f.add(CheckPoolRunning, SeverityWarning, "node pool "+np.GetName(), fmt.Sprintf("GKE node pool %s is %s: GKE is changing it, and it may not add nodes until it is done%s",
				np.GetName(), np.GetStatus(), statusMessage(np)), "wait for the operation to finish (gcloud container operations list); run doctor again")
		default:
			a.f.add(CheckPoolRunning, SeverityError, "node pool "+np.GetName(), fmt.Sprintf("GKE node pool %s is %s, not RUNNING%s: workloads admitted on its flavor may get no nodes",
				np.GetName(), np.GetStatus(), statusMessage(np)), "see gcloud container node-pools describe "+np.GetName()+"; fix the cause, or recreate the pool (terraform apply -replace)")
		}
	}
	if !s.FlavorsRead.ok() || !s.CQRead.ok() {
		return // DOC000 said so
	}
	users := a.flavorUsers()
	pools := map[string]*containerpb.NodePool{}
	for _, np := range s.Pools {
		pools[np.GetName()] = np
	}
	for i := range s.Flavors {
		fl := &s.Flavors[i]
		if len(users[fl.Name]) == 0 || len(fl.Spec.NodeLabels) == 0 {
			continue // not in use, or not tied to nodes of any pool
		}
		obj := "ResourceFlavor " + fl.Name
		var backing []*containerpb.NodePool
		why := ""
		if name, ok := fl.Spec.NodeLabels[spec.NodePoolLabel]; ok {
			np := pools[name]
			switch {
			case np == nil:
				why = fmt.Sprintf("its node_labels select node pool %s (%s=%s), and cluster %s has no such pool", name, spec.NodePoolLabel, name, shortCluster(s.Cluster))
			case mismatch(fl.Spec.NodeLabels, poolLabels(np)) != "":
				why = fmt.Sprintf("its node_labels select node pool %s, but that pool's nodes do not carry %s", name, mismatch(fl.Spec.NodeLabels, poolLabels(np)))
			default:
				backing = append(backing, np)
			}
		} else {
			for _, np := range s.Pools {
				if mismatch(fl.Spec.NodeLabels, poolLabels(np)) == "" {
					backing = append(backing, np)
				}
			}
			if len(backing) == 0 {
				why = fmt.Sprintf("no node pool of cluster %s has nodes with all its node_labels (%s)", shortCluster(s.Cluster), labels.Set(fl.Spec.NodeLabels).String())
			}
		}
		if len(backing) == 0 {
			a.f.add(CheckFlavorPool, SeverityError, obj, fmt.Sprintf("ResourceFlavor %s has no GKE node pool: %s. %s quota on it, so Kueue admits "+
				"workloads whose pods then stay Pending", fl.Name, why, queues(users[fl.Name], "gives", "give")),
				"create the pool again (terraform apply puts back a pool deleted out of band), or point the flavor's node_labels at an existing pool (node_labels = mlplatform_gpu_pool.x.node_selector)")
			continue
		}
		a.f.pass(1)
		for _, np := range backing {
			a.taints(fl, np)
		}
	}
}

func (a analysis) taints(fl *kueuev1beta2.ResourceFlavor, np *containerpb.NodePool) {
	var missed []string
	for _, t := range np.GetConfig().GetTaints() {
		taint := corev1.Taint{Key: t.GetKey(), Value: t.GetValue(), Effect: taintEffect(t.GetEffect())}
		if taint.Effect == corev1.TaintEffectPreferNoSchedule || taint.Effect == "" {
			continue // pods may still land there
		}
		// Kubernetes' own matching, as the scheduler does it; doctor logs
		// nothing, and a flavor's tolerations cannot use Lt or Gt.
		if !slices.ContainsFunc(fl.Spec.Tolerations, func(tol corev1.Toleration) bool { return tol.ToleratesTaint(klog.Background(), &taint, false) }) {
			missed = append(missed, taint.ToString())
		}
	}
	if len(missed) == 0 {
		a.f.pass(1)
		return
	}
	a.f.add(CheckPoolTaints, SeverityError, "ResourceFlavor "+fl.Name, fmt.Sprintf("ResourceFlavor %s does not tolerate %s of its node pool %s: Kueue admits workloads on it, "+
		"and their pods stay Pending, untolerated", fl.Name, strings.Join(missed, ", "), np.GetName()),
		"add the tolerations to the flavor (tolerations = mlplatform_gpu_pool."+strings.ReplaceAll(np.GetName(), "-", "_")+".workload_tolerations)")
}

func taintEffect(e containerpb.NodeTaint_Effect) corev1.TaintEffect {
	switch e {
	case containerpb.NodeTaint_NO_SCHEDULE:
		return corev1.TaintEffectNoSchedule
	case containerpb.NodeTaint_PREFER_NO_SCHEDULE:
		return corev1.TaintEffectPreferNoSchedule
	case containerpb.NodeTaint_NO_EXECUTE:
		return corev1.TaintEffectNoExecute
	}
	return ""
}

func statusMessage(np *containerpb.NodePool) string {
	if m := np.GetStatusMessage(); m != "" {
		return " (GKE says: " + m + ")"
	}
	return ""
}

func shortCluster(name string) string { return name[strings.LastIndex(name, "/")+1:] }

// --- DOC013: workloads -----------------------------------------------------------

func (a analysis) workloads() {
	s := a.s
	if !a.needs(s.WorkloadsRead, CheckWorkloadPending) {
		return
	}
	provChecks := map[string]bool{}
	for _, ac := range s.AdmissionChecks {
		provChecks[ac.Name] = ac.Spec.ControllerName == kueuev1beta2.ProvisioningRequestControllerName
	}
	for _, w := range s.Workloads {
		c := w.Status.Conditions
		if meta.IsStatusConditionTrue(c, kueuev1beta2.WorkloadFinished) || w.DeletionTimestamp != nil {
			continue
		}
		admitted := meta.IsStatusConditionTrue(c, kueuev1beta2.WorkloadAdmitted)
		since := w.CreationTimestamp.Time
		if r := meta.FindStatusCondition(c, kueuev1beta2.WorkloadRequeued); r != nil && r.LastTransitionTime.After(since) {
			since = r.LastTransitionTime.Time
		}
		var why, kind string
		switch {
		case admitted:
			pr := meta.FindStatusCondition(c, kueuev1beta2.WorkloadPodsReady)
			if pr == nil || pr.Status == metav1.ConditionTrue {
				a.f.pass(1)
				continue
			}
			if adm := meta.FindStatusCondition(c, kueuev1beta2.WorkloadAdmitted); adm.LastTransitionTime.After(since) {
				since = adm.LastTransitionTime.Time
			}
			kind, why = "no capacity", "admitted, but its pods are not ready: the nodes of its flavor's pool are not there, or not enough of them ("+pr.Reason+": "+pr.Message+")"
		case w.Spec.Active != nil && !*w.Spec.Active:
			a.f.pass(1)
			continue // deactivated on purpose
		case meta.IsStatusConditionTrue(c, kueuev1beta2.WorkloadQuotaReserved):
			var pending []string
			for _, st := range w.Status.AdmissionChecks {
				if st.State == kueuev1beta2.CheckStatePending || st.State == kueuev1beta2.CheckStateRetry {
					p := fmt.Sprintf("%s (%s", st.Name, st.State)
					if st.Message != "" {
						p += ": " + st.Message
					}
					pending = append(pending, p+")")
					if provChecks[string(st.Name)] {
						kind = "no capacity"
					}
				}
			}
			if kind == "" {
				kind = "admission check pending"
			}
			why = "its quota is reserved, and it waits for admission check " + strings.Join(pending, ", ")
			if kind == "no capacity" {
				why += ": GKE has not provisioned its nodes yet (no capacity for the request)"
			}
		default:
			qr := meta.FindStatusCondition(c, kueuev1beta2.WorkloadQuotaReserved)
			switch {
			case qr == nil:
				kind, why = "not seen", "Kueue has not looked at it (no QuotaReserved condition): its LocalQueue "+string(w.Spec.QueueName)+" may not exist, or Kueue is not running"
			case strings.Contains(qr.Message, "insufficient quota") || strings.Contains(qr.Message, "insufficient unused quota"):
				kind, why = "quota", "not enough quota: "+qr.Message
			default:
				kind, why = strings.ToLower(qr.Reason), qr.Reason+": "+qr.Message
			}
		}
		waited := s.Now.Sub(since)
		if waited < a.opts.PendingThreshold {
			a.f.pass(1)
			continue
		}
		fix := map[string]string{
			"quota":                   "raise the nominal quota of its ClusterQueue (or borrowing in its cohort), or wait for running workloads to finish",
			"no capacity":             "check the node pool's autoscaling max_nodes, GKE quota and stockouts (kubectl get provisioningrequests -A; gcloud container operations list)",
			"admission check pending": "see the admission check's controller (kubectl describe admissioncheck)",
			"not seen":                "check the LocalQueue exists (kubectl -n " + w.Namespace + " get localqueues) and Kueue runs",
		}[kind]
		if fix == "" {
			fix = "see kubectl -n " + w.Namespace + " describe workload " + w.Name
		}
		phrase := map[string]string{"quota": "for want of quota", "no capacity": "for want of capacity",
			"admission check pending": "on an admission check", "not seen": "unseen by Kueue"}[kind]
		if phrase == "" {
			phrase = "(" + kind + ")"
		}
		a.f.add(CheckWorkloadPending, SeverityWarning, "Workload "+w.Namespace+"/"+w.Name, fmt.Sprintf("Workload %s/%s (queue %s) has waited %s %s: %s",
			w.Namespace, w.Name, w.Spec.QueueName, waited.Round(time.Second), phrase, why), fix)
	}
}

// --- DOC014: team namespaces' default deny ----------------------------------------------

// otherPolicyKinds are the CRDs of other policy kinds that can also let a
// team namespace's pods do more than its NetworkPolicies say, by what
// serves them. Doctor does not evaluate them; when the cluster serves one,
// a note says so (see the checks guide, DOC014).
var otherPolicyKinds = map[string]string{
	"fqdnnetworkpolicies.networking.gke.io":                 "FQDNNetworkPolicy (GKE Dataplane V2, --enable-fqdn-network-policy): egress to host names",
	"ciliumclusterwidenetworkpolicies.cilium.io":            "CiliumClusterwideNetworkPolicy (GKE Dataplane V2, --enable-cilium-clusterwide-network-policy)",
	"ciliumnetworkpolicies.cilium.io":                       "CiliumNetworkPolicy",
	"adminnetworkpolicies.policy.networking.k8s.io":         "AdminNetworkPolicy",
	"baselineadminnetworkpolicies.policy.networking.k8s.io": "BaselineAdminNetworkPolicy",
}

// defaultDeny: DOC014, per team namespace (one that holds the platform's
// default deny, mlplatform_training_network_policy's), each NetworkPolicy
// there that is not the platform's and lets its pods do more than the
// platform's policies there allow (netpol.Widenings, which asks cyclonus'
// matcher), naming what it opens. One finding per policy; a namespace
// without one passes once.
func (a analysis) defaultDeny() {
	if a.s.CRDsRead.ok() {
		for _, c := range a.s.CRDs {
			if kind := otherPolicyKinds[c.Name]; kind != "" {
				a.f.note(fmt.Sprintf("the cluster serves %s (CRD %s): such policies can also let a team namespace's pods do more than its "+
					"NetworkPolicies say; DOC014 evaluates NetworkPolicies only, so review those with kubectl get %s -A", kind, c.Name, c.Name))
			}
		}
	}
	if !a.needs(a.s.NetworkPoliciesRead, CheckDefaultDeny) {
		return
	}
	byNS := map[string][]networkingv1.NetworkPolicy{}
	for _, p := range a.s.NetworkPolicies {
		byNS[p.Namespace] = append(byNS[p.Namespace], p)
	}
	for _, ns := range spec.SortedKeys(byNS) {
		platform, others := netpol.Split(byNS[ns])
		if !slices.ContainsFunc(platform, func(p networkingv1.NetworkPolicy) bool { return p.Name == netpol.DefaultDeny }) {
			continue // not a team namespace of the platform
		}
		ws, err := netpol.Widenings(ns, platform, others)
		if err != nil {
			a.f.add(CheckDefaultDeny, SeverityError, "Namespace "+ns, fmt.Sprintf("the NetworkPolicies of team namespace %s could not be evaluated: %v", ns, err),
				"see kubectl -n "+ns+" get networkpolicies -o yaml; the API server accepts no policy the evaluator refuses, so report this")
			continue
		}
		if len(ws) == 0 {
			a.f.pass(1)
			continue
		}
		for _, w := range ws {
			a.f.add(CheckDefaultDeny, SeverityError, "NetworkPolicy "+ns+"/"+w.Policy, fmt.Sprintf("NetworkPolicy %s/%s widens the default deny of team namespace %s: "+
				"it opens %s, beyond the platform's holes there, so the namespace's pods may make those connections", ns, w.Policy, ns, w.Opens()),
				fmt.Sprintf("delete it (kubectl -n %s delete networkpolicy %s); if the traffic is meant, declare the hole in the namespace's "+
					"mlplatform_training_network_policy (extra_egress, ingress_from_namespaces) and narrow the policy to it", ns, w.Policy))
		}
	}
}

// --- helpers -------------------------------------------------------------------------

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// queues is "ClusterQueue a <one>" or "ClusterQueues a, b <many>".
func queues(names []string, one, many string) string {
	if len(names) == 1 {
		return "ClusterQueue " + names[0] + " " + one
	}
	return "ClusterQueues " + listSome(names, 5) + " " + many
}

// listSome joins up to n items, and says how many more.
func listSome(items []string, n int) string {
	items = slices.Clone(items)
	sort.Strings(items)
	if len(items) > n {
		return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
	}
	return strings.Join(items, ", ")
}
