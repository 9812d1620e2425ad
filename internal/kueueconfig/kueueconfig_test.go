package kueueconfig

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueueconfig "sigs.k8s.io/kueue/pkg/config"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// load reads yaml with Kueue's own loader (strict decoding, defaulting), as
// the manager reads its --config file.
func load(t *testing.T, yaml string) configapi.Configuration {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := configapi.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	_, cfg, err := kueueconfig.Load(scheme, path)
	if err != nil {
		t.Fatalf("Kueue cannot load the rendered configuration: %v\n%s", err, yaml)
	}
	return cfg
}

func TestDefaultConfigurationIsWhatKueueLoads(t *testing.T) {
	t.Parallel()
	c := spec.DefaultKueueConfiguration()
	if errs := Validate(c, kueue.NewestVersion); errs != nil {
		t.Fatalf("the default configuration is refused: %v", errs)
	}
	out, err := YAML(Configuration(c, kueue.NewestVersion))
	if err != nil {
		t.Fatal(err)
	}
	cfg := load(t, out)
	type view struct {
		Namespace           string
		Frameworks          []string
		ManageWithoutQueue  bool
		Selector            string
		Timeout             time.Duration
		RecoveryTimeout     time.Duration
		BlockAdmission      bool
		RequeuingTimestamp  string
		WebhookPort         int
		LeaderElect         bool
		ClientQPS           float32
		ManagedJobNamespace string
	}
	got := view{
		Namespace:          *cfg.Namespace,
		Frameworks:         cfg.Integrations.Frameworks,
		ManageWithoutQueue: cfg.ManageJobsWithoutQueueName,
		Selector:           mustJSON(t, cfg.ManagedJobsNamespaceSelector),
		Timeout:            cfg.WaitForPodsReady.Timeout.Duration,
		RecoveryTimeout:    cfg.WaitForPodsReady.RecoveryTimeout.Duration,
		BlockAdmission:     *cfg.WaitForPodsReady.BlockAdmission,
		RequeuingTimestamp: string(*cfg.WaitForPodsReady.RequeuingStrategy.Timestamp),
		WebhookPort:        *cfg.Webhook.Port,
		LeaderElect:        *cfg.LeaderElection.LeaderElect,
		ClientQPS:          *cfg.ClientConnection.QPS,
	}
	want := view{
		Namespace: "kueue-system", Frameworks: []string{"batch/job", "jobset.x-k8s.io/jobset"}, ManageWithoutQueue: true,
		Selector: `{"matchExpressions":[{"key":"mlplatform.dev/team","operator":"Exists"}]}`,
		Timeout:  30 * time.Minute, RecoveryTimeout: 30 * time.Minute, RequeuingTimestamp: "Eviction",
		WebhookPort: 9443, LeaderElect: true, ClientQPS: 300,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kueue loads the default configuration as (-want +got):\n%s", diff)
	}
}

func TestEverySettingRendersAndLoads(t *testing.T) {
	t.Parallel()
	c := spec.DefaultKueueConfiguration()
	c.ExternalFrameworks = []string{"MyJob.v1.example.com"}
	c.WaitForPodsReady = spec.WaitForPodsReady{Enabled: true, Timeout: "10m", RecoveryTimeout: "3m", BlockAdmission: true,
		RequeuingTimestamp: "Creation", BackoffLimitCount: ptr.To[int64](5), BackoffBaseSeconds: ptr.To[int64](30), BackoffMaxSeconds: ptr.To[int64](600)}
	c.FairSharing = &spec.FairSharingSettings{PreemptionStrategies: []string{"LessThanOrEqualToFinalShare", "LessThanInitialShare"}}
	c.AdmissionFairSharing = &spec.AdmissionFairSharingSettings{UsageHalfLifeTime: "168h", UsageSamplingInterval: "5m",
		ResourceWeights: map[string]float64{"cpu": 0, "nvidia.com/gpu": 100}}
	c.ExcludeResourcePrefixes = []string{"example.com/"}
	c.Transformations = []spec.ResourceTransformation{{Input: "nvidia.com/mig-1g.5gb", Strategy: "Replace", Outputs: map[string]string{"example.com/gpu-memory": "5Gi"}}}
	c.FeatureGates = map[string]bool{"TopologyAwareScheduling": true}
	c.MultiKueue = &spec.MultiKueueSettings{GCInterval: "2m", Origin: "manager-eu", WorkerLostTimeout: "10m",
		DispatcherName: "kueue.x-k8s.io/multikueue-dispatcher-incremental"}
	if errs := Validate(c, kueue.NewestVersion); errs != nil {
		t.Fatalf("refused: %v", errs)
	}
	out, err := YAML(Configuration(c, kueue.NewestVersion))
	if err != nil {
		t.Fatal(err)
	}
	cfg := load(t, out)
	got := []string{
		cfg.WaitForPodsReady.RecoveryTimeout.Duration.String(), string(*cfg.WaitForPodsReady.RequeuingStrategy.Timestamp),
		mustJSON(t, cfg.FairSharing), mustJSON(t, cfg.AdmissionFairSharing), mustJSON(t, cfg.Resources.Transformations),
		mustJSON(t, cfg.FeatureGates), *cfg.MultiKueue.Origin, *cfg.MultiKueue.DispatcherName, cfg.Integrations.ExternalFrameworks[0],
	}
	want := []string{
		"3m0s", "Creation", `{"preemptionStrategies":["LessThanOrEqualToFinalShare","LessThanInitialShare"]}`,
		`{"usageHalfLifeTime":"168h0m0s","usageSamplingInterval":"5m0s","resourceWeights":{"cpu":0,"nvidia.com/gpu":100}}`,
		`[{"input":"nvidia.com/mig-1g.5gb","strategy":"Replace","outputs":{"example.com/gpu-memory":"5Gi"}}]`,
		`{"TopologyAwareScheduling":true}`, "manager-eu", "kueue.x-k8s.io/multikueue-dispatcher-incremental", "MyJob.v1.example.com",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Kueue loads (-want +got):\n%s", diff)
	}
}

// Turning waitForPodsReady off takes a feature gate from v0.19 (where it is
// on without the block) and leaving the block out before.
func TestWaitForPodsReadyOff(t *testing.T) {
	t.Parallel()
	c := spec.DefaultKueueConfiguration()
	c.WaitForPodsReady = spec.WaitForPodsReady{}
	for version, want := range map[string]map[string]bool{kueue.NewestVersion: {"DisableWaitForPodsReady": true}, kueue.OldestVersion: nil} {
		if errs := Validate(c, version); errs != nil {
			t.Fatalf("%s: %v", version, errs)
		}
		cfg := Configuration(c, version)
		if cfg.WaitForPodsReady != nil {
			t.Errorf("%s: the block is rendered", version)
		}
		if diff := cmp.Diff(want, cfg.FeatureGates); diff != "" {
			t.Errorf("%s: feature gates (-want +got):\n%s", version, diff)
		}
	}
}

// TestBadInput: each bad setting gives exactly one error, at its path.
func TestBadInput(t *testing.T) {
	t.Parallel()
	type want struct {
		Path    string
		Summary string
	}
	for name, tc := range map[string]struct {
		edit    func(*spec.KueueConfiguration)
		version string
		want    want
		says    string
	}{
		"unknown framework": {edit: func(c *spec.KueueConfiguration) { c.Frameworks = []string{"batch/jobs"} },
			want: want{"frameworks[0]", "Unknown Framework"}, says: `"batch/jobs" is not one of Kueue's integrations`},
		"duplicate framework": {edit: func(c *spec.KueueConfiguration) { c.Frameworks = append(c.Frameworks, "batch/job") },
			want: want{"frameworks[2]", "Duplicate Framework"}},
		"no framework": {edit: func(c *spec.KueueConfiguration) { c.Frameworks = nil },
			want: want{"frameworks", "No Framework"}},
		"external framework not Kind.version.group": {edit: func(c *spec.KueueConfiguration) { c.ExternalFrameworks = []string{"MyJob"} },
			want: want{"external_frameworks[0]", "Invalid External Framework"}},
		"external framework that is built in": {edit: func(c *spec.KueueConfiguration) { c.ExternalFrameworks = []string{"JobSet.v1alpha2.jobset.x-k8s.io"} },
			want: want{"external_frameworks[0]", "Duplicate Framework"}},
		"zero timeout": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.Timeout = "0s" },
			want: want{"wait_for_pods_ready.timeout", "Zero Duration"}},
		"negative timeout": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.Timeout = "-5m" },
			want: want{"wait_for_pods_ready.timeout", "Negative Duration"}},
		"timeout not a duration": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.Timeout = "30 minutes" },
			want: want{"wait_for_pods_ready.timeout", "Invalid Duration"}},
		"negative recovery timeout": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.RecoveryTimeout = "-1m" },
			want: want{"wait_for_pods_ready.recovery_timeout", "Negative Duration"}},
		"requeuing timestamp": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.RequeuingTimestamp = "Evicted" },
			want: want{"wait_for_pods_ready.requeuing_timestamp", "Invalid Requeuing Timestamp"}},
		"negative backoff limit": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.BackoffLimitCount = ptr.To[int64](-1) },
			want: want{"wait_for_pods_ready.backoff_limit_count", "Out Of Range"}},
		"backoff maximum below base": {edit: func(c *spec.KueueConfiguration) {
			c.WaitForPodsReady.BackoffBaseSeconds, c.WaitForPodsReady.BackoffMaxSeconds = ptr.To[int64](600), ptr.To[int64](60)
		}, want: want{"wait_for_pods_ready.backoff_max_seconds", "Backoff Maximum Below Base"}},
		"settings of a disabled wait": {edit: func(c *spec.KueueConfiguration) { c.WaitForPodsReady.Enabled = false },
			want: want{"wait_for_pods_ready.enabled", "Settings Without Effect"}},
		"invalid selector operator": {edit: func(c *spec.KueueConfiguration) {
			c.ManagedJobsNamespaceSelector.MatchExpressions[0].Operator = "Has"
		}, want: want{"managed_jobs_namespace_selector.match_expressions[0].operator", "Invalid Operator"}},
		"selector that takes kube-system": {edit: func(c *spec.KueueConfiguration) {
			c.ManagedJobsNamespaceSelector = &spec.LabelSelector{}
		}, want: want{"managed_jobs_namespace_selector", "Refused By Kueue"}, says: `should not match the "kube-system" namespace`},
		"selector without effect": {edit: func(c *spec.KueueConfiguration) { c.ManageJobsWithoutQueueName = false },
			want: want{"managed_jobs_namespace_selector", "Selector Has No Effect"}},
		"selector that takes Kueue's namespace": {edit: func(c *spec.KueueConfiguration) {
			c.ManagedJobsNamespaceSelector = &spec.LabelSelector{MatchExpressions: []spec.SelectorRequirement{
				{Key: "kubernetes.io/metadata.name", Operator: "NotIn", Values: []string{"kube-system"}},
			}}
		}, want: want{"managed_jobs_namespace_selector", "Refused By Kueue"}, says: `should not match the "kueue-system" namespace`},
		"fair sharing strategies": {edit: func(c *spec.KueueConfiguration) {
			c.FairSharing = &spec.FairSharingSettings{PreemptionStrategies: []string{"LessThanInitialShare", "LessThanOrEqualToFinalShare"}}
		}, want: want{"fair_sharing.preemption_strategies", "Invalid Preemption Strategies"}},
		"admission fair sharing without sampling": {edit: func(c *spec.KueueConfiguration) {
			c.AdmissionFairSharing = &spec.AdmissionFairSharingSettings{UsageHalfLifeTime: "168h", UsageSamplingInterval: "0s"}
		}, want: want{"admission_fair_sharing.usage_sampling_interval", "Zero Duration"}},
		"negative resource weight": {edit: func(c *spec.KueueConfiguration) {
			c.AdmissionFairSharing = &spec.AdmissionFairSharingSettings{UsageHalfLifeTime: "168h", UsageSamplingInterval: "5m",
				ResourceWeights: map[string]float64{"nvidia.com/gpu": -1}}
		}, want: want{`admission_fair_sharing.resource_weights["nvidia.com/gpu"]`, "Negative Weight"}},
		"transformation strategy": {edit: func(c *spec.KueueConfiguration) {
			c.Transformations = []spec.ResourceTransformation{{Input: "nvidia.com/mig-1g.5gb", Strategy: "Keep"}}
		}, want: want{"resources.transformations[0].strategy", "Invalid Strategy"}},
		"transformation twice": {edit: func(c *spec.KueueConfiguration) {
			c.Transformations = []spec.ResourceTransformation{{Input: "nvidia.com/mig-1g.5gb"}, {Input: "nvidia.com/mig-1g.5gb"}}
		}, want: want{"resources.transformations[1].input", "Duplicate Transformation"}},
		"transformation output": {edit: func(c *spec.KueueConfiguration) {
			c.Transformations = []spec.ResourceTransformation{{Input: "nvidia.com/mig-1g.5gb", Outputs: map[string]string{"example.com/mem": "five"}}}
		}, want: want{`resources.transformations[0].outputs["example.com/mem"]`, "Invalid Quantity"}},
		"unknown feature gate": {edit: func(c *spec.KueueConfiguration) { c.FeatureGates = map[string]bool{"GangScheduling": true} },
			want: want{"feature_gates", "Refused By Kueue"}, says: "unrecognized feature gate: GangScheduling"},
		"feature gate locked to its default": {edit: func(c *spec.KueueConfiguration) {
			c.FeatureGates = map[string]bool{"HierarchicalCohorts": false}
		}, want: want{"feature_gates", "Refused By Kueue"}, says: "cannot set feature gate HierarchicalCohorts to false"},
		"multikueue origin": {edit: func(c *spec.KueueConfiguration) { c.MultiKueue = &spec.MultiKueueSettings{Origin: "manager/eu"} },
			want: want{"multikueue.origin", "Invalid Origin"}},
		"negative multikueue gc interval": {edit: func(c *spec.KueueConfiguration) { c.MultiKueue = &spec.MultiKueueSettings{GCInterval: "-1m"} },
			want: want{"multikueue.gc_interval", "Negative Duration"}},
		"namespace": {edit: func(c *spec.KueueConfiguration) { c.Namespace = "Kueue_System" },
			want: want{"namespace", "Invalid Name"}},
		"unsupported kueue version": {version: "v0.16.2",
			want: want{"kueue_version", "Unsupported Kueue Version"}, says: kueue.SupportedRange()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := spec.DefaultKueueConfiguration()
			if tc.edit != nil {
				tc.edit(&c)
			}
			errs := Validate(c, cmpOr(tc.version, kueue.NewestVersion))
			var got []want
			for _, e := range errs {
				got = append(got, want{e.Path.String(), e.Summary})
			}
			if diff := cmp.Diff([]want{tc.want}, got); diff != "" {
				t.Fatalf("errors (-want +got):\n%s\n%v", diff, errs)
			}
			if !strings.Contains(errs[0].Error(), tc.says) {
				t.Errorf("error %q does not say %q", errs[0].Error(), tc.says)
			}
		})
	}
}

// TestFrameworksAreKueues: spec.KueueFrameworks are exactly the
// integrations the pinned Kueue registers, read from its sources.
func TestFrameworksAreKueues(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kueue").Output()
	if err != nil {
		t.Fatalf("find the pinned Kueue's sources: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "pkg", "controller", "jobs")
	name := regexp.MustCompile(`(?m)^\s*FrameworkName\s*=\s*"([^"]+)"`)
	var kueues []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_controller.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range name.FindAllSubmatch(src, -1) {
			kueues = append(kueues, string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(kueues)
	ours := spec.KueueFrameworkNames()
	slices.Sort(ours)
	if diff := cmp.Diff(kueues, ours); diff != "" {
		t.Errorf("spec.KueueFrameworks differ from the integrations of %s (-kueue +ours):\n%s", root, diff)
	}
}

func TestPathOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"waitForPodsReady.timeout":                              "wait_for_pods_ready.timeout",
		"waitForPodsReady.requeuingStrategy.timestamp":          "wait_for_pods_ready.requeuing_timestamp",
		"waitForPodsReady.requeuingStrategy.backoffBaseSeconds": "wait_for_pods_ready.backoff_base_seconds",
		"integrations.frameworks[2]":                            "frameworks[2]",
		"integrations.externalFrameworks[0]":                    "external_frameworks[0]",
		"admissionFairSharing.resourceWeights[cpu]":             `admission_fair_sharing.resource_weights["cpu"]`,
		"resources.transformations[1].input":                    "resources.transformations[1].input",
		"multiKueue.gcInterval":                                 "multikueue.gc_interval",
		"managedJobsNamespaceSelector":                          "managed_jobs_namespace_selector",
		"featureGates":                                          "feature_gates",
	} {
		if got := pathOf(in).String(); got != want {
			t.Errorf("pathOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
