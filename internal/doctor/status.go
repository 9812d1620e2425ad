package doctor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"cloud.google.com/go/container/apiv1/containerpb"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

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

// --- DOC006 DOC007: queues ------------------------------------------------------

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
	if a.needs(s.CQRead, CheckClusterQueue) {
		for i := range s.ClusterQueues {
			cq := &s.ClusterQueues[i]
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
	}
	if !a.needs(s.LQRead, CheckLocalQueue) {
		return
	}
	for _, lq := range s.LocalQueues {
		obj := "LocalQueue " + lq.Namespace + "/" + lq.Name
		cqName := string(lq.Spec.ClusterQueue)
		r := reconcile.ConditionReadiness(lq.Status.Conditions, kueuev1beta2.LocalQueueActive)
		if r.Ready {
			a.f.pass(1)
			continue
		}
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

// --- DOC011: node pools ------------------------------------------------------------

// pools: DOC011, each node pool's GKE status.
func (a analysis) pools() {
	s := a.s
	if s.PoolsRead.What == "" || !a.needs(s.PoolsRead, CheckPoolRunning) {
		return // without GKE, platform() says what did not run
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
}

func statusMessage(np *containerpb.NodePool) string {
	if m := np.GetStatusMessage(); m != "" {
		return " (GKE says: " + m + ")"
	}
	return ""
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
