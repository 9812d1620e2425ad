package diagnostics

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The library's typed errors carry facts; the Terraform advice is written
// here, in plain words, before the original error.
func TestReconcileErrorsGetTerraformAdvice(t *testing.T) {
	t.Parallel()
	binding := spec.WorkloadIdentity{Namespace: "vision", KSA: "trainer", Project: "ml-prod", Mode: spec.ModeGoogleServiceAccount,
		GSAEmail: "trainer@ml-prod.iam.gserviceaccount.com"}
	cluster := "projects/ml-prod/locations/us-central1/clusters/training"
	cases := map[string]struct {
		err  error
		want []string
	}{
		"in use": {&reconcile.InUseError{Kind: "ResourceFlavor", Name: "h100", Users: []string{"ClusterQueue team-a"}},
			[]string{"Kueue still uses this object", "ResourceFlavor h100 is still used by ClusterQueue team-a", "lifecycle { create_before_destroy = true }"}},
		"not settled": {&reconcile.SettledError{Kind: "ClusterQueue", Name: "team-a", Fields: []string{"preemption"}},
			[]string{"keeps preemption of ClusterQueue team-a different", "Configure the value the server settles on"}},
		"not ready, known reason": {&reconcile.NotReadyError{Kind: "LocalQueue", Name: "vision/gpu", Waited: time.Minute,
			Last: reconcile.Readiness{Reason: "ClusterQueueDoesNotExist"}},
			[]string{"did not report the object active in time", "create it (mlplatform_cluster_queue) or fix cluster_queue"}},
		"not ready, in plain words": {&reconcile.NotReadyError{Kind: "MultiKueue AdmissionCheck", Name: "regions", Waited: 20 * time.Second,
			Last: reconcile.Readiness{Reason: "NoUsableClusters"}, Why: "worker eu: the worker's API server is unreachable from the manager"},
			[]string{"Kueue did not report MultiKueue AdmissionCheck regions active within 20s: worker eu: the worker's API server is unreachable from the manager. The object exists"}},
		"still listed": {fmt.Errorf("MultiKueueCluster eu is still listed by MultiKueueConfig regions; it was not deleted: %w", reconcile.ErrStillListed),
			[]string{"A MultiKueue check still lists this worker", "Remove the worker from that mlplatform_multikueue_check's clusters"}},
		"no pool": {&reconcile.PreflightError{Check: reconcile.PreflightNoWorkloadPool, Cluster: cluster, Binding: binding},
			[]string{"has no Workload Identity pool; enable it on the cluster first", "clusters update training --workload-pool=ml-prod.svc.id.goog"}},
		"no KSA": {&reconcile.PreflightError{Check: reconcile.PreflightNoKSA, Cluster: cluster, Binding: binding},
			[]string{"vision/trainer does not exist; create it first, or set create_kubernetes_service_account = true"}},
		"no GSA": {&reconcile.PreflightError{Check: reconcile.PreflightNoGSA, Cluster: cluster, Binding: binding},
			[]string{"trainer@ml-prod.iam.gserviceaccount.com does not exist", "use create_google_service_account"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Explain(fmt.Errorf("wrapped: %w", tc.err))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Explain lacks %q:\n%s", w, got)
				}
			}
			if !strings.Contains(got, "Original error: wrapped: "+tc.err.Error()) {
				t.Errorf("Explain does not quote the original error:\n%s", got)
			}
		})
	}
	// A wait that gave up keeps its own words.
	waited := Explain(&retry.Error{Err: &reconcile.InUseError{Kind: "Cohort", Name: "x"}, Waited: time.Minute, Waiting: "Kueue"})
	if !strings.Contains(waited, "retry_timeout") {
		t.Errorf("a retry.Error lost its words:\n%s", waited)
	}
}
