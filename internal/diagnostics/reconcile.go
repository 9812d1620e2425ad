package diagnostics

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
)

// reconcilePlain says in Terraform's words what the reconcile library's
// typed errors mean and what to do: the library states the facts (object,
// fields, cause), and the advice (attributes, HCL, lifecycle) is written
// here. ok is false for any other error.
func reconcilePlain(err error) (text string, ok bool) {
	var inUse *reconcile.InUseError
	var settled *reconcile.SettledError
	var pre *reconcile.PreflightError
	var notReady *reconcile.NotReadyError
	var failed *reconcile.CreateFailedError
	var busy *gke.BusyError
	var gone *reconcile.GoneError
	switch {
	case errors.As(err, &failed):
		text := failed.Failure() + " "
		if failed.Cleaned {
			text += "The provider deleted the half-created pool, so nothing is left behind and the next apply starts over."
		} else {
			text += "The provider could not delete the half-created pool; the next apply deletes and recreates it."
		}
		if _, ok := failed.Stockout(); ok {
			text += " Try again later, add zones to node_locations, or choose capacity \"flex_start\" (waits for capacity) or \"reservation\" (capacity you reserved)."
		}
		return text, true
	case errors.As(err, &busy):
		return fmt.Sprintf("GKE is busy with another operation on cluster %s (it runs one at a time); the provider retried %d times over %s "+
			"and the timeout ran out. Run the apply again once the other operation (an upgrade, the autoscaler, another apply) has finished, "+
			"or raise the timeouts.", busy.Cluster, busy.Attempts, busy.Elapsed.Round(time.Second)), true
	case errors.Is(err, reconcile.ErrNeedsReplacement):
		return "The node pool changed since the plan in a field GKE cannot change in place. Run terraform plan again: it shows the replacement.", true
	case errors.As(err, &gone):
		return fmt.Sprintf("Node pool %s no longer exists (it was deleted since the plan); run terraform apply again to create it.", gone.Pool), true
	case errors.As(err, &notReady):
		text := "Kueue did not report the object active in time. The reason, as Kueue reports it, is below; the object exists " +
			"and the next apply checks again once the cause is fixed."
		if notReady.Why != "" {
			// The library put Kueue's reason in plain words: say them first.
			text = fmt.Sprintf("Kueue did not report %s %s active within %s: %s. The object exists, and the next apply checks again "+
				"once the cause is fixed.", notReady.Kind, notReady.Name, notReady.Waited.Round(time.Second), notReady.Why)
		}
		if fix := notReadyFix[notReady.Kind+"/"+notReady.Last.Reason]; fix != "" {
			text += " To fix it: " + fix + "."
		}
		return text, true
	case errors.As(err, &inUse):
		return "Kueue still uses this object, so the provider did not delete it (Kueue would only hold it in Terminating): " +
			inUse.Error() + ". Let those finish or remove them first, or reference this object from their configuration " +
			"(e.g. mlplatform_resource_flavor.x.name) so Terraform deletes them before it. If they stay and only stop naming it, " +
			"Terraform deletes it before it updates them: set lifecycle { create_before_destroy = true } on it, or apply the change to them first.", true
	case errors.As(err, &settled):
		return fmt.Sprintf("The server keeps %s of %s %s different from the configuration after apply: a webhook or controller "+
			"is changing it. Configure the value the server settles on.", strings.Join(settled.Fields, ", "), settled.Kind, settled.Name), true
	case errors.As(err, &pre):
		return preflightPlain(pre), true
	}
	return "", false
}

func preflightPlain(e *reconcile.PreflightError) string {
	s := e.Binding
	switch e.Check {
	case reconcile.PreflightNoWorkloadPool:
		return fmt.Sprintf("cluster %s has no Workload Identity pool; enable it on the cluster first "+
			"(gcloud container clusters update %s --workload-pool=%s), then apply again.", e.Cluster, e.ClusterShortName(), s.WorkloadPool())
	case reconcile.PreflightOtherWorkloadPool:
		return fmt.Sprintf("cluster %s has workload pool %s, but this binding names %s: set project to the cluster's project.",
			e.Cluster, e.Have, s.WorkloadPool())
	case reconcile.PreflightNoKSA:
		return fmt.Sprintf("Kubernetes service account %s/%s does not exist; create it first, or set create_kubernetes_service_account = true.",
			s.Namespace, s.KSA)
	case reconcile.PreflightNoGSA:
		return fmt.Sprintf("Google service account %s does not exist (or the provider's credentials may not read it); "+
			"create it first, or use create_google_service_account.", s.GSA())
	}
	return e.Error() + "."
}

// notReadyFix is what to do about a Kueue reason, by kind and reason.
var notReadyFix = map[string]string{
	"ClusterQueue/FlavorNotFound":         "create the flavor (mlplatform_resource_flavor) or fix the flavor names in resource_groups",
	"ClusterQueue/AdmissionCheckNotFound": "create it (mlplatform_provisioning_admission_check) or fix admission_checks",
	"LocalQueue/ClusterQueueDoesNotExist": "create it (mlplatform_cluster_queue) or fix cluster_queue",
}
