package doctor

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"k8s.io/apimachinery/pkg/api/meta"
)

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
