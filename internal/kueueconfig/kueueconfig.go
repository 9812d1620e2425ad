// Package kueueconfig turns spec.KueueConfiguration into Kueue's own typed
// Configuration (config.kueue.x-k8s.io/v1beta2), renders it as the YAML the
// Kueue Helm chart takes and the manager's ConfigMap holds, validates it
// with Kueue's own validation (sigs.k8s.io/kueue/pkg/config), and reads a
// running Kueue's configuration back.
package kueueconfig

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configv1alpha1 "k8s.io/component-base/config/v1alpha1"
	"k8s.io/utils/ptr"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The in-cluster settings of Kueue's Helm chart (charts/kueue/values.yaml
// managerConfig.controllerManagerConfigYaml, v0.19.2): the ports its
// Deployment and Services point at, leader election, the controllers'
// concurrency and the client's rate limits.
const (
	healthProbeBindAddress = ":8081"
	metricsBindAddress     = ":8443"
	webhookPort            = 9443
	leaderElectionID       = "c1f6bfd2.kueue.x-k8s.io"
)

// disableWaitForPodsReady is the feature gate that turns waitForPodsReady
// off from Kueue v0.19, where it is on even without the block; before
// v0.19 the gate does not exist and leaving the block out turns it off.
const disableWaitForPodsReady = "DisableWaitForPodsReady"

// Configuration is c as Kueue's Configuration, for Kueue release version
// (vX.Y.Z), with the in-cluster settings of Kueue's Helm chart. c must be
// valid (durations and quantities parse).
func Configuration(c spec.KueueConfiguration, version string) *configapi.Configuration {
	cfg := &configapi.Configuration{
		TypeMeta:  metav1.TypeMeta{APIVersion: configapi.SchemeGroupVersion.String(), Kind: "Configuration"},
		Namespace: ptr.To(c.Namespace),
		ControllerManager: configapi.ControllerManager{
			Health:         configapi.ControllerHealth{HealthProbeBindAddress: healthProbeBindAddress},
			Metrics:        configapi.ControllerMetrics{BindAddress: metricsBindAddress},
			Webhook:        configapi.ControllerWebhook{Port: ptr.To(webhookPort)},
			LeaderElection: &configv1alpha1.LeaderElectionConfiguration{LeaderElect: ptr.To(true), ResourceName: leaderElectionID},
			Controller: &configapi.ControllerConfigurationSpec{GroupKindConcurrency: map[string]int{
				"Job.batch": 5, "Pod": 5, "Workload.kueue.x-k8s.io": 10, "LocalQueue.kueue.x-k8s.io": 5,
				"ClusterQueue.kueue.x-k8s.io": 5, "ResourceFlavor.kueue.x-k8s.io": 1,
			}},
		},
		ClientConnection:           &configapi.ClientConnection{QPS: ptr.To[float32](300), Burst: ptr.To[int32](500)},
		ManageJobsWithoutQueueName: c.ManageJobsWithoutQueueName,
		Integrations:               &configapi.Integrations{Frameworks: slices.Clone(c.Frameworks), ExternalFrameworks: slices.Clone(c.ExternalFrameworks)},
	}
	if s := c.ManagedJobsNamespaceSelector; s != nil {
		cfg.ManagedJobsNamespaceSelector = labelSelector(s)
	}
	gates := maps.Clone(c.FeatureGates)
	if w := c.WaitForPodsReady; w.Enabled {
		cfg.WaitForPodsReady = &configapi.WaitForPodsReady{
			Timeout:        duration(w.Timeout),
			BlockAdmission: ptr.To(w.BlockAdmission),
		}
		if w.RecoveryTimeout != "" {
			cfg.WaitForPodsReady.RecoveryTimeout = ptr.To(duration(w.RecoveryTimeout))
		}
		if w.RequeuingTimestamp != "" || w.BackoffLimitCount != nil || w.BackoffBaseSeconds != nil || w.BackoffMaxSeconds != nil {
			rs := &configapi.RequeuingStrategy{
				BackoffLimitCount:  int32Of(w.BackoffLimitCount),
				BackoffBaseSeconds: int32Of(w.BackoffBaseSeconds),
				BackoffMaxSeconds:  int32Of(w.BackoffMaxSeconds),
			}
			if w.RequeuingTimestamp != "" {
				rs.Timestamp = ptr.To(configapi.RequeuingTimestamp(w.RequeuingTimestamp))
			}
			cfg.WaitForPodsReady.RequeuingStrategy = rs
		}
	} else if !kueue.VersionLess(version, "v0.19.0") {
		if gates == nil {
			gates = map[string]bool{}
		}
		gates[disableWaitForPodsReady] = true
	}
	cfg.FeatureGates = gates
	if fs := c.FairSharing; fs != nil {
		cfg.FairSharing = &configapi.FairSharing{}
		for _, s := range fs.PreemptionStrategies {
			cfg.FairSharing.PreemptionStrategies = append(cfg.FairSharing.PreemptionStrategies, configapi.PreemptionStrategy(s))
		}
	}
	if afs := c.AdmissionFairSharing; afs != nil {
		cfg.AdmissionFairSharing = &configapi.AdmissionFairSharing{
			UsageHalfLifeTime:     duration(afs.UsageHalfLifeTime),
			UsageSamplingInterval: duration(afs.UsageSamplingInterval),
		}
		for r, w := range afs.ResourceWeights {
			if cfg.AdmissionFairSharing.ResourceWeights == nil {
				cfg.AdmissionFairSharing.ResourceWeights = map[corev1.ResourceName]float64{}
			}
			cfg.AdmissionFairSharing.ResourceWeights[corev1.ResourceName(r)] = w
		}
	}
	if len(c.ExcludeResourcePrefixes) > 0 || len(c.Transformations) > 0 {
		cfg.Resources = &configapi.Resources{ExcludeResourcePrefixes: slices.Clone(c.ExcludeResourcePrefixes)}
		for _, t := range c.Transformations {
			rt := configapi.ResourceTransformation{Input: corev1.ResourceName(t.Input), MultiplyBy: corev1.ResourceName(t.MultiplyBy)}
			rt.Strategy = ptr.To(configapi.ResourceTransformationStrategy(t.Strategy))
			if t.Strategy == "" {
				rt.Strategy = ptr.To(configapi.Retain)
			}
			for r, q := range t.Outputs {
				if rt.Outputs == nil {
					rt.Outputs = corev1.ResourceList{}
				}
				rt.Outputs[corev1.ResourceName(r)] = resource.MustParse(q)
			}
			cfg.Resources.Transformations = append(cfg.Resources.Transformations, rt)
		}
	}
	if mk := c.MultiKueue; mk != nil {
		cfg.MultiKueue = &configapi.MultiKueue{}
		if mk.GCInterval != "" {
			cfg.MultiKueue.GCInterval = ptr.To(duration(mk.GCInterval))
		}
		if mk.WorkerLostTimeout != "" {
			cfg.MultiKueue.WorkerLostTimeout = ptr.To(duration(mk.WorkerLostTimeout))
		}
		if mk.Origin != "" {
			cfg.MultiKueue.Origin = ptr.To(mk.Origin)
		}
		if mk.DispatcherName != "" {
			cfg.MultiKueue.DispatcherName = ptr.To(mk.DispatcherName)
		}
	}
	return cfg
}

// YAML is cfg as the YAML the Kueue Helm chart takes in
// managerConfig.controllerManagerConfigYaml (the ConfigMap's
// controller_manager_config.yaml).
func YAML(cfg *configapi.Configuration) (string, error) {
	js, err := json.Marshal(cfg)
	var doc map[string]any
	if err == nil {
		err = json.Unmarshal(js, &doc)
	}
	if err != nil {
		return "", fmt.Errorf("render Kueue's configuration: %w", err)
	}
	// component-base's LeaderElectionConfiguration has no omitempty: leave
	// out what is unset, as the chart does, for Kueue to default.
	if le, ok := doc["leaderElection"].(map[string]any); ok {
		for k, v := range le {
			if v == "" || v == "0s" {
				delete(le, k)
			}
		}
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("render Kueue's configuration: %w", err)
	}
	return string(out), nil
}

func labelSelector(s *spec.LabelSelector) *metav1.LabelSelector {
	ls := &metav1.LabelSelector{MatchLabels: maps.Clone(s.MatchLabels)}
	for _, r := range s.MatchExpressions {
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: r.Key, Operator: metav1.LabelSelectorOperator(r.Operator), Values: slices.Clone(r.Values),
		})
	}
	return ls
}

// duration parses a valid Go duration ("" is 0).
func duration(s string) metav1.Duration {
	d, _ := time.ParseDuration(s)
	return metav1.Duration{Duration: d}
}

func int32Of(v *int64) *int32 {
	if v == nil {
		return nil
	}
	return ptr.To(int32(*v)) //nolint:gosec // validated to fit 32 bits
}

// HelmValues are Helm values for Kueue's chart that make it run with the
// configuration yaml (managerConfig.controllerManagerConfigYaml).
func HelmValues(configYAML string) (string, error) {
	out, err := yaml.Marshal(map[string]any{"managerConfig": map[string]any{"controllerManagerConfigYaml": configYAML}})
	if err != nil {
		return "", fmt.Errorf("render Kueue's Helm values: %w", err)
	}
	return string(out), nil
}

// Parse reads a configuration as Kueue's ConfigMap holds it, strictly (a
// field Kueue does not know is an error, as it is to Kueue) and without
// Kueue's defaults, so a reader sees what was set.
func Parse(text string) (*configapi.Configuration, error) {
	var cfg configapi.Configuration
	if err := yaml.UnmarshalStrict([]byte(text), &cfg); err != nil {
		return nil, fmt.Errorf("not a Kueue configuration: %w", err)
	}
	if cfg.Kind != "Configuration" || cfg.APIVersion != configapi.SchemeGroupVersion.String() {
		return nil, fmt.Errorf("not a Kueue configuration: apiVersion %q, kind %q (want %s, Configuration)", cfg.APIVersion, cfg.Kind, configapi.SchemeGroupVersion)
	}
	return &cfg, nil
}
