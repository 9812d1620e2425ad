package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
)

// ErrHoldsData is returned (wrapped in a *HoldsDataError) when deleting a
// namespace would delete what training needs to keep: the volumes that hold
// checkpoints, and work that has not finished.
var ErrHoldsData = errors.New("namespace holds data or unfinished work")

// HoldsDataError names what a namespace still holds. Each list is "name"
// or "name (state)", at most maxNamed entries then "N more".
type HoldsDataError struct {
	Namespace string
	PVCs      []string // PersistentVolumeClaims (with their size)
	Jobs      []string // batch/v1 Jobs not complete or failed (and not a listed JobSet's)
	JobSets   []string // jobset.x-k8s.io JobSets not completed or failed
	Workloads []string // Kueue Workloads not finished (and not a listed Job's or JobSet's)
}

func (e *HoldsDataError) Error() string {
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{{"PersistentVolumeClaims", e.PVCs}, {"unfinished Jobs", e.Jobs}, {"unfinished JobSets", e.JobSets}, {"unfinished Kueue Workloads", e.Workloads}} {
		if len(p.names) > 0 {
			parts = append(parts, p.what+" "+strings.Join(p.names, ", "))
		}
	}
	return fmt.Sprintf("namespace %s holds %s, which deleting it would delete too; it was not deleted", e.Namespace, strings.Join(parts, "; "))
}

func (e *HoldsDataError) Unwrap() error { return ErrHoldsData }

const maxNamed = 10

func named(names []string) []string {
	if len(names) > maxNamed {
		return append(names[:maxNamed:maxNamed], fmt.Sprintf("%d more", len(names)-maxNamed))
	}
	return names
}

// jobSets is the JobSet API (sigs.k8s.io/jobset), read only when the
// cluster serves it.
var jobSets = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

// NamespaceData returns a *HoldsDataError when namespace ns holds
// PersistentVolumeClaims, or Jobs, JobSets or Kueue Workloads that have not
// finished; nil when deleting it would lose none of them (or it is gone).
// Kinds the cluster does not serve (JobSet, Kueue) hold nothing.
func NamespaceData(ctx context.Context, c *kube.Client, ns string) error {
	e := &HoldsDataError{Namespace: ns}
	pvcs, err := c.Core.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list PersistentVolumeClaims in %s: %w", ns, err)
	}
	for _, p := range pvcs.Items {
		if p.DeletionTimestamp == nil {
			e.PVCs = append(e.PVCs, p.Name+pvcSize(p))
		}
	}
	// owners: kind/name of the listed JobSets and Jobs, which stand for the
	// Jobs and Workloads they own (a JobSet's Jobs, a JobSet's or Job's
	// Workload), so those are not named again.
	owners := map[string]bool{}
	ownedByListed := func(refs []metav1.OwnerReference) bool {
		return slices.ContainsFunc(refs, func(o metav1.OwnerReference) bool { return owners[o.Kind+"/"+o.Name] })
	}
	sets, err := c.Dynamic.Resource(jobSets).Namespace(ns).List(ctx, metav1.ListOptions{})
	switch {
	case notServed(err):
	case err != nil:
		return fmt.Errorf("list JobSets in %s: %w", ns, err)
	default:
		for _, js := range sets.Items {
			if state, done := jobSetState(js); !done && js.GetDeletionTimestamp() == nil {
				e.JobSets = append(e.JobSets, js.GetName()+" ("+state+")")
				owners["JobSet/"+js.GetName()] = true
			}
		}
	}
	jobs, err := c.Core.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("list Jobs in %s: %w", ns, err)
	}
	for _, j := range jobs.Items {
		if state, done := jobState(j); !done && j.DeletionTimestamp == nil && !ownedByListed(j.OwnerReferences) {
			e.Jobs = append(e.Jobs, j.Name+" ("+state+")")
			owners["Job/"+j.Name] = true
		}
	}
	wls, err := c.Kueue.KueueV1beta2().Workloads(ns).List(ctx, metav1.ListOptions{})
	switch {
	case notServed(err):
	case err != nil:
		return fmt.Errorf("list Kueue Workloads in %s: %w", ns, err)
	default:
		for _, w := range wls.Items {
			if meta.IsStatusConditionTrue(w.Status.Conditions, kueuev1beta2.WorkloadFinished) || w.DeletionTimestamp != nil ||
				ownedByListed(w.OwnerReferences) {
				continue
			}
			e.Workloads = append(e.Workloads, w.Name+" ("+workloadState(w)+")")
		}
	}
	if len(e.PVCs)+len(e.Jobs)+len(e.JobSets)+len(e.Workloads) == 0 {
		return nil
	}
	e.PVCs, e.Jobs, e.JobSets, e.Workloads = named(e.PVCs), named(e.Jobs), named(e.JobSets), named(e.Workloads)
	return e
}

// notServed reports a list of a kind the cluster does not serve.
func notServed(err error) bool {
	return meta.IsNoMatchError(err) || (apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource"))
}

func pvcSize(p corev1.PersistentVolumeClaim) string {
	q, ok := p.Status.Capacity[corev1.ResourceStorage]
	if !ok {
		q, ok = p.Spec.Resources.Requests[corev1.ResourceStorage]
	}
	if !ok {
		return ""
	}
	return " (" + q.String() + ")"
}

// jobState says how far a Job is, and whether it is done (complete or failed).
func jobState(j batchv1.Job) (string, bool) {
	for _, c := range j.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			return strings.ToLower(string(c.Type)), true
		}
	}
	switch {
	case j.Spec.Suspend != nil && *j.Spec.Suspend:
		return "suspended, e.g. waiting in a Kueue queue", false
	case j.Status.Active > 0:
		return fmt.Sprintf("running, %d active pods", j.Status.Active), false
	}
	return "not started", false
}

// jobSetState says how far a JobSet is, and whether it is done: the JobSet
// controller (v0.12) sets condition Completed or Failed to True when it
// finishes (and status.terminalState to the same word).
func jobSetState(js unstructured.Unstructured) (string, bool) {
	var status struct {
		Conditions []metav1.Condition `json:"conditions"`
	}
	if raw, ok := js.Object["status"].(map[string]any); ok {
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(raw, &status)
	}
	for _, t := range []string{"Completed", "Failed"} {
		if meta.IsStatusConditionTrue(status.Conditions, t) {
			return strings.ToLower(t), true
		}
	}
	if s, _, _ := unstructured.NestedBool(js.Object, "spec", "suspend"); s {
		return "suspended, e.g. waiting in a Kueue queue", false
	}
	return "running", false
}

func workloadState(w kueuev1beta2.Workload) string {
	switch {
	case meta.IsStatusConditionTrue(w.Status.Conditions, kueuev1beta2.WorkloadAdmitted):
		return "admitted"
	case meta.IsStatusConditionTrue(w.Status.Conditions, kueuev1beta2.WorkloadQuotaReserved):
		return "quota reserved"
	}
	return "pending"
}
