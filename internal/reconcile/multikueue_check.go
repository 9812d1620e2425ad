package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// MultiKueueConfigs reconciles Kueue MultiKueueConfigs (the configuration
// half of a spec.MultiKueueCheck).
type MultiKueueConfigs = Object[spec.MultiKueueCheck, *kueuev1beta2.MultiKueueConfig, *kueueac.MultiKueueConfigApplyConfiguration]

// NewMultiKueueConfigs reconciles through c.
func NewMultiKueueConfigs(c *kube.Client) MultiKueueConfigs {
	return clusterScoped(c, "MultiKueueConfig", c.Kueue.KueueV1beta2().MultiKueueConfigs(), metav1.ListOptions{},
		kueue.MultiKueueConfig, kueue.MultiKueueConfigSpec, DiffMultiKueueConfig)
}

// DiffMultiKueueConfig names the fields of actual that differ from desired
// (clusters are an ordered list: the same workers in another order differ).
func DiffMultiKueueConfig(desired, actual spec.MultiKueueCheck) []string {
	if !slices.Equal(desired.Clusters, actual.Clusters) {
		return []string{"clusters"}
	}
	return nil
}

// MultiKueueChecks reconciles a spec.MultiKueueCheck: an AdmissionCheck and
// the MultiKueueConfig of the same name it points at (CheckWithConfig);
// WaitReady waits for the check and every cluster it lists to be Active.
type MultiKueueChecks struct {
	CheckWithConfig[spec.MultiKueueCheck, *kueuev1beta2.MultiKueueConfig, *kueueac.MultiKueueConfigApplyConfiguration]
	kube *kube.Client
	Poll time.Duration // default 200ms
}

var _ Reconciler[Ref, spec.MultiKueueCheck, spec.MultiKueueCheck] = MultiKueueChecks{}

// NewMultiKueueChecks reconciles through c.
func NewMultiKueueChecks(c *kube.Client) MultiKueueChecks {
	return MultiKueueChecks{kube: c, CheckWithConfig: CheckWithConfig[spec.MultiKueueCheck, *kueuev1beta2.MultiKueueConfig, *kueueac.MultiKueueConfigApplyConfiguration]{
		Checks: NewAdmissionChecks(c), Configs: NewMultiKueueConfigs(c), Check: spec.MultiKueueCheck.AdmissionCheck,
	}}
}

// WaitReady waits until every cluster of desired is Active and Kueue reports
// the check Active with all of them (reason Active, not SomeActiveClusters),
// or ctx ends: then a *NotReadyError names each cluster that is not, with
// Kueue's reason in plain words.
func (m MultiKueueChecks) WaitReady(ctx context.Context, ref Ref, desired spec.MultiKueueCheck) error {
	poll := m.Poll
	if poll == 0 {
		poll = 200 * time.Millisecond
	}
	start := time.Now()
	var last Readiness
	var why string
	for {
		ready, r, w, err := m.readiness(ctx, ref, desired)
		if err != nil && !kube.DeadlineReached(ctx, err) {
			return err
		}
		if err == nil {
			if ready {
				return nil
			}
			last, why = r, w
		}
		select {
		case <-ctx.Done():
			return &NotReadyError{Kind: "MultiKueue AdmissionCheck", Name: ref.String(), Waited: time.Since(start), Last: last, Why: why}
		case <-time.After(poll):
		}
	}
}

// readiness reads the check and its clusters once.
func (m MultiKueueChecks) readiness(ctx context.Context, ref Ref, desired spec.MultiKueueCheck) (ready bool, last Readiness, why string, err error) {
	api := m.kube.Kueue.KueueV1beta2()
	var problems []string
	for _, name := range desired.Clusters {
		c, err := api.MultiKueueClusters().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			if !apierrors.IsNotFound(err) {
				return false, last, "", fmt.Errorf("read MultiKueueCluster %s while waiting for the check: %w", name, err)
			}
			problems = append(problems, fmt.Sprintf("worker %s: there is no MultiKueueCluster %s (create it with an mlplatform_multikueue_cluster)", name, name))
			continue
		}
		r := ConditionReadiness(c.Status.Conditions, kueuev1beta2.MultiKueueClusterActive)
		if !r.Ready {
			problems = append(problems, fmt.Sprintf("worker %s: %s (Kueue says %s: %s)", name, WorkerProblem(r), r.Reason, r.Message))
		}
	}
	ac, err := api.AdmissionChecks().Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		last = Readiness{Reason: "Deleted", Message: "the AdmissionCheck was deleted while waiting for it"}
	case err != nil:
		return false, last, "", fmt.Errorf("read AdmissionCheck %s while waiting for it to become active: %w", ref, err)
	default:
		last = ConditionReadiness(ac.Status.Conditions, kueuev1beta2.AdmissionCheckActive)
		c := meta.FindStatusCondition(ac.Status.Conditions, kueuev1beta2.AdmissionCheckActive)
		// Active=True with reason SomeActiveClusters is a partial check.
		last.Ready = c != nil && c.Status == metav1.ConditionTrue && c.Reason == "Active" && c.ObservedGeneration >= ac.Generation
	}
	if last.Ready && len(problems) == 0 {
		return true, last, "", nil
	}
	if len(problems) == 0 {
		problems = []string{"Kueue has not yet reported every worker connected"}
	}
	slices.Sort(problems)
	return false, last, strings.Join(problems, "; "), nil
}

// WorkerProblem says in plain words why Kueue reports a MultiKueueCluster
// inactive, from its Active condition (Kueue v0.17 to v0.19, multikueuecluster.go).
func WorkerProblem(r Readiness) string {
	msg := strings.ToLower(r.Message)
	switch {
	case r.Reason == "NoStatus":
		return "Kueue has not connected to it yet"
	case r.Reason == "BadKubeConfig" && strings.Contains(msg, "not found"):
		return "its kubeconfig Secret is missing from kueue-system"
	case r.Reason == "BadKubeConfig":
		return "Kueue cannot read its kubeconfig Secret"
	case r.Reason == "InsecureKubeConfig":
		return "Kueue rejected its kubeconfig (no exec plugins, token files, CA file paths or insecure TLS: inline CA data and a bearer token only)"
	case r.Reason == "ClientConnectionFailed" && (strings.Contains(msg, "provide credentials") || strings.Contains(msg, "unauthorized")):
		return "the worker rejects the manager's token (expired, revoked, or its service account deleted)"
	case r.Reason == "ClientConnectionFailed" && strings.Contains(msg, "forbidden"):
		return "the manager's service account lacks RBAC in the worker"
	case r.Reason == "ClientConnectionFailed":
		return "the worker's API server is unreachable from the manager"
	}
	return "Kueue reports it inactive"
}
