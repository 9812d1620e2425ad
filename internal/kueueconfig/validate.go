package kueueconfig

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueueconfig "sigs.k8s.io/kueue/pkg/config"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Validate checks c for Kueue release version: the platform's own checks
// (spec.KueueConfiguration.Validate, in the configuration's words), then
// Kueue's: pkg/config Validate on the configuration Kueue would load
// (defaulted as Kueue defaults it), and the feature gates set on Kueue's
// gates (unknown gates, gates locked to their default). Kueue's findings at a path the
// platform's checks already reported are left out, so each problem is said
// once.
//
// Not reused: Kueue checks integrations.frameworks against the integrations
// linked into its binary (jobframework's registry, filled by importing every
// job controller: Ray, Kubeflow, Spark, AppWrapper, LeaderWorkerSet); the
// platform checks the same names against spec.KueueFrameworks, which a test
// keeps equal to the pinned Kueue's sources. And the dependencies between
// feature gates (LoadAndValidateFeatureGates: TAS sub-features need
// TopologyAwareScheduling, ...): Kueue checks them on its process-wide
// gates, which a provider serving many configurations cannot set.
func Validate(c spec.KueueConfiguration, version string) spec.FieldErrors {
	errs := c.Validate()
	if ok, known := kueue.Supported(version); !ok {
		why := "is not a Kueue release tag such as " + kueue.NewestVersion
		if known {
			why = "is outside the supported range, " + kueue.SupportedRange()
		}
		errs = append(errs, spec.FieldError{Path: spec.Path{"kueue_version"}, Summary: "Unsupported Kueue Version",
			Detail: fmt.Sprintf("kueue_version %q %s; set the version of the Kueue that will run this configuration.", version, why)})
		return errs
	}
	if len(errs) > 0 {
		// Durations and quantities that do not parse cannot be rendered.
		return errs
	}
	for _, e := range kueueErrors(Configuration(c, version)) {
		p := pathOf(e.Field)
		if slices.ContainsFunc(errs, func(have spec.FieldError) bool { return overlaps(have.Path, p) }) {
			continue
		}
		errs = append(errs, spec.FieldError{Path: p, Summary: "Refused By Kueue",
			Detail: fmt.Sprintf("Kueue refuses this configuration: %s.", strings.TrimSuffix(e.ErrorBody(), "."))})
	}
	return errs
}

// kueueErrors runs Kueue's validation on cfg as Kueue loads it.
func kueueErrors(cfg *configapi.Configuration) field.ErrorList {
	cfg = cfg.DeepCopy()
	configapi.SetDefaults_Configuration(cfg)
	// Only the integrations linked into this binary are in Kueue's
	// registry (the pod integration, which pkg/config imports); the others
	// are checked by name in spec (see Validate).
	cfg.Integrations.Frameworks = slices.DeleteFunc(cfg.Integrations.Frameworks, func(f string) bool {
		_, registered := jobframework.GetIntegration(f)
		return !registered
	})
	if len(cfg.Integrations.Frameworks) == 0 {
		cfg.Integrations.Frameworks = []string{}
	}
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	errs := kueueconfig.Validate(cfg, scheme)
	// The feature gates as Kueue sets them (its first step in
	// LoadAndValidateFeatureGates), on a copy of Kueue's gates: the
	// process-wide ones stay as they are.
	if len(cfg.FeatureGates) > 0 {
		if err := utilfeature.DefaultMutableFeatureGate.DeepCopy().SetFromMap(cfg.FeatureGates); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("featureGates"), cfg.FeatureGates, err.Error()))
		}
	}
	return errs
}

var (
	pathElem = regexp.MustCompile(`([A-Za-z]+)|\[([^\]]*)\]`)
	upper    = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	// renamed are Kueue's path prefixes that the configuration spells
	// differently (after camelCase becomes snake_case).
	renamed = []struct{ from, to spec.Path }{
		{spec.Path{"integrations", "frameworks"}, spec.Path{"frameworks"}},
		{spec.Path{"integrations", "external_frameworks"}, spec.Path{"external_frameworks"}},
		{spec.Path{"integrations"}, spec.Path{"frameworks"}},
		{spec.Path{"wait_for_pods_ready", "requeuing_strategy", "timestamp"}, spec.Path{"wait_for_pods_ready", "requeuing_timestamp"}},
		{spec.Path{"wait_for_pods_ready", "requeuing_strategy"}, spec.Path{"wait_for_pods_ready"}},
		{spec.Path{"multi_kueue"}, spec.Path{"multikueue"}},
		{spec.Path{"resources", "exclude_resource_prefixes"}, spec.Path{"exclude_resource_prefixes"}},
	}
)

// pathOf turns a Kueue field path ("waitForPodsReady.timeout",
// "admissionFairSharing.resourceWeights[cpu]") into the configuration's.
func pathOf(f string) spec.Path {
	var p spec.Path
	for _, m := range pathElem.FindAllStringSubmatch(f, -1) {
		switch {
		case m[1] != "":
			p = append(p, strings.ToLower(upper.ReplaceAllString(m[1], "${1}_${2}")))
		default:
			if i, err := strconv.Atoi(m[2]); err == nil {
				p = append(p, i)
			} else {
				p = append(p, spec.Key(m[2]))
			}
		}
	}
	for _, r := range renamed {
		if hasPrefix(p, r.from) {
			return append(slices.Clone(r.to), p[len(r.from):]...)
		}
	}
	return p
}

func hasPrefix(p, prefix spec.Path) bool {
	return len(p) >= len(prefix) && slices.Equal(p[:len(prefix)], prefix)
}

// overlaps says whether one path is the other or inside it.
func overlaps(a, b spec.Path) bool { return hasPrefix(a, b) || hasPrefix(b, a) }
