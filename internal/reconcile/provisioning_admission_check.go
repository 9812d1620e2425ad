package reconcile

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// AdmissionChecks reconciles Kueue AdmissionChecks.
type AdmissionChecks = Object[spec.AdmissionCheck, *kueuev1beta2.AdmissionCheck, *kueueac.AdmissionCheckApplyConfiguration]

// ProvisioningRequestConfigs reconciles Kueue ProvisioningRequestConfigs (the
// configuration half of a spec.ProvisioningAdmissionCheck).
type ProvisioningRequestConfigs = Object[spec.ProvisioningAdmissionCheck, *kueuev1beta2.ProvisioningRequestConfig, *kueueac.ProvisioningRequestConfigApplyConfiguration]

// NewAdmissionChecks reconciles through c.
func NewAdmissionChecks(c *kube.Client) AdmissionChecks {
	o := clusterScoped(c, "AdmissionCheck", c.Kueue.KueueV1beta2().AdmissionChecks(), metav1.ListOptions{}, kueue.AdmissionCheck, kueue.AdmissionCheckSpec, DiffAdmissionCheck)
	o.Blockers = func(ctx context.Context, ref Ref) ([]string, error) { return admissionCheckUsers(ctx, c, ref.Name) }
	return o
}

// admissionCheckUsers lists the ClusterQueues (not being deleted) that list
// the check: Kueue keeps a check they use (finalizer) and they stop
// admitting while it is being deleted.
func admissionCheckUsers(ctx context.Context, c *kube.Client, check string) ([]string, error) {
	cqs, err := c.Kueue.KueueV1beta2().ClusterQueues().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var users []string
	for _, q := range cqs.Items {
		s := q.Spec.AdmissionChecksStrategy
		if q.DeletionTimestamp != nil || s == nil {
			continue
		}
		if slices.ContainsFunc(s.AdmissionChecks, func(r kueuev1beta2.AdmissionCheckStrategyRule) bool { return string(r.Name) == check }) {
			users = append(users, "ClusterQueue "+q.Name)
		}
	}
	return users, nil
}

// NewProvisioningRequestConfigs reconciles through c.
func NewProvisioningRequestConfigs(c *kube.Client) ProvisioningRequestConfigs {
	return clusterScoped(c, "ProvisioningRequestConfig", c.Kueue.KueueV1beta2().ProvisioningRequestConfigs(), metav1.ListOptions{}, kueue.ProvisioningRequestConfig, kueue.ProvisioningRequestConfigSpec, DiffProvisioningRequestConfig)
}

// DiffAdmissionCheck names the fields of actual that differ from desired.
func DiffAdmissionCheck(desired, actual spec.AdmissionCheck) []string {
	var d []string
	if desired.ControllerName != actual.ControllerName {
		d = append(d, "controller_name")
	}
	if (desired.Parameters == nil) != (actual.Parameters == nil) ||
		(desired.Parameters != nil && *desired.Parameters != *actual.Parameters) {
		d = append(d, "parameters")
	}
	return d
}

// DiffProvisioningRequestConfig names the fields of actual that differ from
// desired. Managed resources are a set (Kueue's listType=set): order does
// not matter.
func DiffProvisioningRequestConfig(desired, actual spec.ProvisioningAdmissionCheck) []string {
	var d []string
	if desired.ProvisioningClass != actual.ProvisioningClass {
		d = append(d, "provisioning_class")
	}
	if !sameSet(desired.ManagedResources, actual.ManagedResources) {
		d = append(d, "managed_resources")
	}
	if !sameMap(desired.Parameters, actual.Parameters) {
		d = append(d, "parameters")
	}
	if desired.RetryStrategy != actual.RetryStrategy {
		d = append(d, "retry_strategy")
	}
	if !sameList(desired.PodSetNodeSelectors, actual.PodSetNodeSelectors) {
		d = append(d, "pod_set_node_selector_update")
	}
	return d
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// CheckWithConfig reconciles an AdmissionCheck together with the
// configuration object of the same name its parameters point at (a
// ProvisioningRequestConfig, a MultiKueueConfig), both with server-side
// apply. The config is written first and deleted last, so the check never
// points at nothing the platform created; what the platform compares is the
// config (the check follows from it: it names the config).
type CheckWithConfig[S any, O metav1.Object, AC Labeled[AC]] struct {
	Checks  AdmissionChecks
	Configs Object[S, O, AC]
	// Check is the AdmissionCheck of a spec.
	Check func(S) spec.AdmissionCheck
}

// Observe reads both objects; found is false when neither is there (or
// neither is this resource instance's). A half that is missing is noted in
// the ledger (Ledger.Missing), and the next update writes it again; with
// the config missing, what the check stands for is hint.
func (p CheckWithConfig[S, O, AC]) Observe(ctx context.Context, ref Ref, hint S) (S, bool, error) {
	cfg, cfgFound, err := p.Configs.Observe(ctx, ref, hint)
	if err != nil {
		return cfg, false, err
	}
	_, checkFound, err := p.Checks.Observe(ctx, ref, p.Check(hint))
	switch {
	case err != nil || (!cfgFound && !checkFound):
		return cfg, false, err
	case !checkFound:
		ledgerOf(ctx).noteMissing(p.Checks.Kind, ref)
	case !cfgFound:
		ledgerOf(ctx).noteMissing(p.Configs.Kind, ref)
		return hint, true, nil
	}
	return cfg, true, nil
}

// Diff names the fields of the config that differ.
func (p CheckWithConfig[S, O, AC]) Diff(desired, actual S) []string {
	return p.Configs.Diff(desired, actual)
}

// Create creates both objects, the config first. Either existing without the
// platform's marker fails the create before anything is written.
func (p CheckWithConfig[S, O, AC]) Create(ctx context.Context, ref Ref, desired S) (Result[S], error) {
	for _, check := range []func(context.Context, Ref) error{p.Configs.CheckCreate, p.Checks.CheckCreate} {
		if err := check(ctx, ref); err != nil {
			return Result[S]{}, err
		}
	}
	got, err := p.Configs.Create(ctx, ref, desired)
	if err != nil {
		return got, err
	}
	if _, err := p.Checks.Create(ctx, ref, p.Check(desired)); err != nil {
		got.Partial = true // the config is there: recorded, so the next apply completes the pair
		return got, err
	}
	return got, nil
}

// Update makes both objects match desired, the config first, and returns
// what the server then holds.
func (p CheckWithConfig[S, O, AC]) Update(ctx context.Context, ref Ref, _, desired S) (Result[S], error) {
	got, err := p.Configs.apply(ctx, ref, desired)
	if err != nil {
		return Result[S]{Observed: got}, err
	}
	_, err = p.Checks.apply(ctx, ref, p.Check(desired))
	return Result[S]{Observed: got}, err
}

// WaitReady returns at once: a provisioning check's controller reports on it
// only once a ClusterQueue uses it, and that queue waits for it. Kinds whose
// check reports on its own (MultiKueue) wait in their own WaitReady.
func (p CheckWithConfig[S, O, AC]) WaitReady(context.Context, Ref, S) error { return nil }

// Delete deletes the AdmissionCheck and waits until it is gone, then deletes
// the config. While a ClusterQueue lists the check, nothing is deleted and
// Delete fails saying which (after a grace period in which the queue may be
// being deleted at the same time).
func (p CheckWithConfig[S, O, AC]) Delete(ctx context.Context, ref Ref, last S) error {
	if err := p.Checks.Delete(ctx, ref, p.Check(last)); err != nil {
		return err
	}
	return p.Configs.Delete(ctx, ref, last)
}

// ProvisioningAdmissionChecks reconciles a spec.ProvisioningAdmissionCheck:
// an AdmissionCheck and the ProvisioningRequestConfig of the same name it
// points at.
type ProvisioningAdmissionChecks struct {
	CheckWithConfig[spec.ProvisioningAdmissionCheck, *kueuev1beta2.ProvisioningRequestConfig, *kueueac.ProvisioningRequestConfigApplyConfiguration]
}

var (
	_ Reconciler[Ref, spec.ProvisioningAdmissionCheck, spec.ProvisioningAdmissionCheck] = ProvisioningAdmissionChecks{}
	_ Reconciler[Ref, spec.AdmissionCheck, spec.AdmissionCheck]                         = AdmissionChecks{}
	_ Reconciler[Ref, spec.ProvisioningAdmissionCheck, spec.ProvisioningAdmissionCheck] = ProvisioningRequestConfigs{}
)

// NewProvisioningAdmissionChecks reconciles through c.
func NewProvisioningAdmissionChecks(c *kube.Client) ProvisioningAdmissionChecks {
	return ProvisioningAdmissionChecks{CheckWithConfig[spec.ProvisioningAdmissionCheck, *kueuev1beta2.ProvisioningRequestConfig, *kueueac.ProvisioningRequestConfigApplyConfiguration]{
		Checks: NewAdmissionChecks(c), Configs: NewProvisioningRequestConfigs(c), Check: spec.ProvisioningAdmissionCheck.AdmissionCheck,
	}}
}
