package datasources

import (
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type kueueConfigurationModel struct {
	KueueVersion                 types.String               `tfsdk:"kueue_version"`
	Namespace                    types.String               `tfsdk:"namespace"`
	Frameworks                   []types.String             `tfsdk:"frameworks"`
	ExternalFrameworks           []types.String             `tfsdk:"external_frameworks"`
	ManageJobsWithoutQueueName   types.Bool                 `tfsdk:"manage_jobs_without_queue_name"`
	ManagedJobsNamespaceSelector *selectorModel             `tfsdk:"managed_jobs_namespace_selector"`
	WaitForPodsReady             *waitForPodsReadyModel     `tfsdk:"wait_for_pods_ready"`
	FairSharing                  *fairSharingModel          `tfsdk:"fair_sharing"`
	AdmissionFairSharing         *admissionFairSharingModel `tfsdk:"admission_fair_sharing"`
	Resources                    *resourcesModel            `tfsdk:"resources"`
	FeatureGates                 map[string]types.Bool      `tfsdk:"feature_gates"`
	MultiKueue                   *multiKueueSettingsModel   `tfsdk:"multikueue"`
	YAML                         types.String               `tfsdk:"yaml"`
	HelmValues                   types.String               `tfsdk:"helm_values"`
}

type selectorModel struct {
	MatchLabels      map[string]types.String `tfsdk:"match_labels"`
	MatchExpressions []requirementModel      `tfsdk:"match_expressions"`
}

type requirementModel struct {
	Key      types.String   `tfsdk:"key"`
	Operator types.String   `tfsdk:"operator"`
	Values   []types.String `tfsdk:"values"`
}

type waitForPodsReadyModel struct {
	Enabled            types.Bool   `tfsdk:"enabled"`
	Timeout            types.String `tfsdk:"timeout"`
	RecoveryTimeout    types.String `tfsdk:"recovery_timeout"`
	BlockAdmission     types.Bool   `tfsdk:"block_admission"`
	RequeuingTimestamp types.String `tfsdk:"requeuing_timestamp"`
	BackoffLimitCount  types.Int64  `tfsdk:"backoff_limit_count"`
	BackoffBaseSeconds types.Int64  `tfsdk:"backoff_base_seconds"`
	BackoffMaxSeconds  types.Int64  `tfsdk:"backoff_max_seconds"`
}

type fairSharingModel struct {
	PreemptionStrategies []types.String `tfsdk:"preemption_strategies"`
}

type admissionFairSharingModel struct {
	UsageHalfLifeTime     types.String             `tfsdk:"usage_half_life_time"`
	UsageSamplingInterval types.String             `tfsdk:"usage_sampling_interval"`
	ResourceWeights       map[string]types.Float64 `tfsdk:"resource_weights"`
}

type resourcesModel struct {
	ExcludeResourcePrefixes []types.String        `tfsdk:"exclude_resource_prefixes"`
	Transformations         []transformationModel `tfsdk:"transformations"`
}

type transformationModel struct {
	Input      types.String            `tfsdk:"input"`
	Strategy   types.String            `tfsdk:"strategy"`
	MultiplyBy types.String            `tfsdk:"multiply_by"`
	Outputs    map[string]types.String `tfsdk:"outputs"`
}

type multiKueueSettingsModel struct {
	GCInterval        types.String `tfsdk:"gc_interval"`
	Origin            types.String `tfsdk:"origin"`
	WorkerLostTimeout types.String `tfsdk:"worker_lost_timeout"`
	DispatcherName    types.String `tfsdk:"dispatcher_name"`
}

// toSpec is the configuration m declares, spec.DefaultKueueConfiguration
// where m leaves an attribute out, and the Kueue release it is for.
func (m kueueConfigurationModel) toSpec() (spec.KueueConfiguration, string) {
	c := spec.DefaultKueueConfiguration()
	version := kueue.NewestVersion
	if !m.KueueVersion.IsNull() {
		version = m.KueueVersion.ValueString()
	}
	if !m.Namespace.IsNull() {
		c.Namespace = m.Namespace.ValueString()
	}
	if m.Frameworks != nil {
		c.Frameworks = stringsOf(m.Frameworks)
	}
	c.ExternalFrameworks = stringsOf(m.ExternalFrameworks)
	if !m.ManageJobsWithoutQueueName.IsNull() {
		c.ManageJobsWithoutQueueName = m.ManageJobsWithoutQueueName.ValueBool()
	}
	if s := m.ManagedJobsNamespaceSelector; s != nil {
		c.ManagedJobsNamespaceSelector = &spec.LabelSelector{MatchLabels: stringMap(s.MatchLabels)}
		for _, r := range s.MatchExpressions {
			c.ManagedJobsNamespaceSelector.MatchExpressions = append(c.ManagedJobsNamespaceSelector.MatchExpressions,
				spec.SelectorRequirement{Key: r.Key.ValueString(), Operator: r.Operator.ValueString(), Values: stringsOf(r.Values)})
		}
	}
	if w := m.WaitForPodsReady; w != nil {
		enabled := w.Enabled.IsNull() || w.Enabled.ValueBool()
		c.WaitForPodsReady = spec.WaitForPodsReady{
			Enabled:            enabled,
			RecoveryTimeout:    w.RecoveryTimeout.ValueString(),
			BlockAdmission:     w.BlockAdmission.ValueBool(),
			RequeuingTimestamp: w.RequeuingTimestamp.ValueString(),
			BackoffLimitCount:  w.BackoffLimitCount.ValueInt64Pointer(),
			BackoffBaseSeconds: w.BackoffBaseSeconds.ValueInt64Pointer(),
			BackoffMaxSeconds:  w.BackoffMaxSeconds.ValueInt64Pointer(),
		}
		switch {
		case !w.Timeout.IsNull():
			c.WaitForPodsReady.Timeout = w.Timeout.ValueString()
		case enabled:
			c.WaitForPodsReady.Timeout = spec.DefaultKueueConfiguration().WaitForPodsReady.Timeout
		}
	}
	if fs := m.FairSharing; fs != nil {
		c.FairSharing = &spec.FairSharingSettings{PreemptionStrategies: stringsOf(fs.PreemptionStrategies)}
	}
	if a := m.AdmissionFairSharing; a != nil {
		c.AdmissionFairSharing = &spec.AdmissionFairSharingSettings{
			UsageHalfLifeTime: a.UsageHalfLifeTime.ValueString(), UsageSamplingInterval: a.UsageSamplingInterval.ValueString(),
		}
		for k, v := range a.ResourceWeights {
			if c.AdmissionFairSharing.ResourceWeights == nil {
				c.AdmissionFairSharing.ResourceWeights = map[string]float64{}
			}
			c.AdmissionFairSharing.ResourceWeights[k] = v.ValueFloat64()
		}
	}
	if r := m.Resources; r != nil {
		c.ExcludeResourcePrefixes = stringsOf(r.ExcludeResourcePrefixes)
		for _, t := range r.Transformations {
			c.Transformations = append(c.Transformations, spec.ResourceTransformation{
				Input: t.Input.ValueString(), Strategy: t.Strategy.ValueString(), MultiplyBy: t.MultiplyBy.ValueString(), Outputs: stringMap(t.Outputs),
			})
		}
	}
	for k, v := range m.FeatureGates {
		if c.FeatureGates == nil {
			c.FeatureGates = map[string]bool{}
		}
		c.FeatureGates[k] = v.ValueBool()
	}
	if mk := m.MultiKueue; mk != nil {
		c.MultiKueue = &spec.MultiKueueSettings{
			GCInterval: mk.GCInterval.ValueString(), Origin: mk.Origin.ValueString(),
			WorkerLostTimeout: mk.WorkerLostTimeout.ValueString(), DispatcherName: mk.DispatcherName.ValueString(),
		}
	}
	return c, version
}

func stringsOf(in []types.String) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = s.ValueString()
	}
	return out
}

func stringMap(in map[string]types.String) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v.ValueString()
	}
	return out
}
