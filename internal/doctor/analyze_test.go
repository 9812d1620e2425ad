package doctor

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol/netpoltest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func crd(name string, versions ...string) apiextv1.CustomResourceDefinition {
	c := apiextv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(now.Add(-48 * time.Hour))}}
	for i, v := range versions {
		c.Spec.Versions = append(c.Spec.Versions, apiextv1.CustomResourceDefinitionVersion{Name: v, Served: true, Storage: i == 0})
	}
	c.Status.Conditions = []apiextv1.CustomResourceDefinitionCondition{{Type: apiextv1.Established, Status: apiextv1.ConditionTrue}}
	if len(versions) > 0 {
		c.Status.StoredVersions = []string{versions[0]}
	}
	return c
}

func active(reason string, ok bool) []metav1.Condition {
	st := metav1.ConditionTrue
	if !ok {
		st = metav1.ConditionFalse
	}
	return []metav1.Condition{{Type: "Active", Status: st, Reason: reason, Message: reason + " message"}}
}

// healthy is a clean platform: one team, one GPU pool and flavor, a
// flex-start pool and flavor guarded by a provisioning check.
func healthy() *Snapshot {
	s := &Snapshot{Now: now, Cluster: "projects/p/locations/l/clusters/training", CheckTimeout: 10 * time.Second}
	for _, k := range kueueKinds {
		s.CRDs = append(s.CRDs, crd(k+".kueue.x-k8s.io", "v1beta2", "v1beta1"))
	}
	// JobSet is installed, and Kueue runs with the platform's default
	// configuration (it manages JobSets).
	jobsets := crd("jobsets.jobset.x-k8s.io", "v1alpha2")
	jobsets.Spec.Group, jobsets.Spec.Names.Plural = "jobset.x-k8s.io", "jobsets"
	s.CRDs = append(s.CRDs, jobsets, crd(provisioningRequestCRD, "v1")) // the ProvisioningRequest CRD last: cases remove it
	cfg, err := kueueconfig.YAML(kueueconfig.Configuration(spec.DefaultKueueConfiguration(), kueue.NewestVersion))
	if err != nil {
		panic(err)
	}
	s.KueueConfig = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: KueueConfigMap, Namespace: KueueNamespace,
		Labels: map[string]string{versionLabel: kueue.NewestVersion}}, Data: map[string]string{KueueConfigMapKey: cfg}}
	for _, r := range []*Read{&s.CRDsRead, &s.DeploymentsRead, &s.Webhook, &s.NamespacesRead, &s.CQRead, &s.LQRead, &s.FlavorsRead, &s.ACRead, &s.WorkloadsRead,
		&s.CohortsRead, &s.TopologiesRead, &s.ProvisioningConfigsRead, &s.MultiKueueConfigsRead, &s.MultiKueueClustersRead, &s.ServiceAccountsRead} {
		r.What = "something"
	}
	s.NetworkPoliciesRead.What = "NetworkPolicies"
	// the team namespace's default deny and holes, and the team's own policies, narrower
	s.NetworkPolicies = netpol.Render(spec.DefaultTrainingNetworkPolicy("team-nlp"))
	for _, k := range slices.Sorted(maps.Keys(netpoltest.Narrower("team-nlp"))) {
		s.NetworkPolicies = append(s.NetworkPolicies, netpoltest.Narrower("team-nlp")[k])
	}
	// a namespace without the platform's default deny is not a team namespace
	s.NetworkPolicies = append(s.NetworkPolicies, netpoltest.Widening("kube-system")["allow-everything"])
	// the team's Workload Identity binding
	s.ServiceAccounts = []corev1.ServiceAccount{
		{ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "team-nlp", Annotations: map[string]string{spec.GSAAnnotation: "trainer@p.iam.gserviceaccount.com"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "team-nlp"}},
	}
	s.ProvisioningConfigs = []kueuev1beta2.ProvisioningRequestConfig{{ObjectMeta: metav1.ObjectMeta{Name: "dws"},
		Spec: kueuev1beta2.ProvisioningRequestConfigSpec{ProvisioningClassName: spec.QueuedProvisioningClass}}}
	s.PoolsRead.What = "GKE node pools"
	// a MultiKueue worker, Active
	s.MultiKueueClusters = []kueuev1beta2.MultiKueueCluster{{ObjectMeta: metav1.ObjectMeta{Name: "worker-1"},
		Spec:   kueuev1beta2.MultiKueueClusterSpec{ClusterSource: kueuev1beta2.ClusterSource{KubeConfig: &kueuev1beta2.KubeConfig{Location: "worker-1-kubeconfig"}}},
		Status: kueuev1beta2.MultiKueueClusterStatus{Conditions: active("Active", true)}}}
	s.Namespaces = []corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "team-nlp", Labels: map[string]string{"mlplatform.dev/team": "nlp"}}}}
	gpuTol := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	queuedTol := corev1.Toleration{Key: "cloud.google.com/gke-queued", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	s.Flavors = []kueuev1beta2.ResourceFlavor{
		{ObjectMeta: metav1.ObjectMeta{Name: "l4"}, Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": "l4"},
			Tolerations: []corev1.Toleration{gpuTol}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "flex"}, Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": "flex"},
			Tolerations: []corev1.Toleration{gpuTol, queuedTol}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, // no node labels: not tied to a pool
	}
	s.AdmissionChecks = []kueuev1beta2.AdmissionCheck{{ObjectMeta: metav1.ObjectMeta{Name: "dws"},
		Spec:   kueuev1beta2.AdmissionCheckSpec{ControllerName: kueuev1beta2.ProvisioningRequestControllerName, Parameters: &kueuev1beta2.AdmissionCheckParametersReference{Name: "dws"}},
		Status: kueuev1beta2.AdmissionCheckStatus{Conditions: active("Active", true)}}}
	quota := func(flavor string, gpus int64) kueuev1beta2.FlavorQuotas {
		return kueuev1beta2.FlavorQuotas{Name: kueuev1beta2.ResourceFlavorReference(flavor), Resources: []kueuev1beta2.ResourceQuota{
			{Name: corev1.ResourceCPU, NominalQuota: resource.MustParse("64")}, {Name: "nvidia.com/gpu", NominalQuota: *resource.NewQuantity(gpus, resource.DecimalSI)}}}
	}
	s.ClusterQueues = []kueuev1beta2.ClusterQueue{{ObjectMeta: metav1.ObjectMeta{Name: "team-nlp"},
		Spec: kueuev1beta2.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mlplatform.dev/team": "nlp"}},
			ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{corev1.ResourceCPU, "nvidia.com/gpu"},
				Flavors: []kueuev1beta2.FlavorQuotas{quota("l4", 8), quota("flex", 16)}},
				{CoveredResources: []corev1.ResourceName{corev1.ResourceMemory}, Flavors: []kueuev1beta2.FlavorQuotas{{Name: "default",
					Resources: []kueuev1beta2.ResourceQuota{{Name: corev1.ResourceMemory, NominalQuota: resource.MustParse("256Gi")}}}}}},
			AdmissionChecksStrategy: &kueuev1beta2.AdmissionChecksStrategy{AdmissionChecks: []kueuev1beta2.AdmissionCheckStrategyRule{
				{Name: "dws", OnFlavors: []kueuev1beta2.ResourceFlavorReference{"flex"}}}},
		},
		Status: kueuev1beta2.ClusterQueueStatus{Conditions: active("Ready", true)}}}
	s.LocalQueues = []kueuev1beta2.LocalQueue{{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "team-nlp"},
		Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "team-nlp"}, Status: kueuev1beta2.LocalQueueStatus{Conditions: active("Ready", true)}}}
	gpuTaint := &containerpb.NodeTaint{Key: "nvidia.com/gpu", Value: "present", Effect: containerpb.NodeTaint_NO_SCHEDULE}
	gkeMetadata := &containerpb.WorkloadMetadataConfig{Mode: containerpb.WorkloadMetadataConfig_GKE_METADATA}
	s.Pools = []*containerpb.NodePool{
		{Name: "default-pool", Status: containerpb.NodePool_RUNNING, Config: &containerpb.NodeConfig{MachineType: "e2-standard-8", WorkloadMetadataConfig: gkeMetadata}},
		{Name: "l4", Status: containerpb.NodePool_RUNNING, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 8},
			Config: &containerpb.NodeConfig{MachineType: "g2-standard-8", Spot: true, Taints: []*containerpb.NodeTaint{gpuTaint}, WorkloadMetadataConfig: gkeMetadata,
				Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1}}}},
		{Name: "flex", Status: containerpb.NodePool_RUNNING, Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 2},
			QueuedProvisioning: &containerpb.NodePool_QueuedProvisioning{Enabled: true},
			Config: &containerpb.NodeConfig{MachineType: "a3-highgpu-8g", FlexStart: ptr(true), WorkloadMetadataConfig: gkeMetadata, Taints: []*containerpb.NodeTaint{gpuTaint,
				{Key: "cloud.google.com/gke-queued", Value: "true", Effect: containerpb.NodeTaint_NO_SCHEDULE}},
				Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-h100-80gb", AcceleratorCount: 8}}}},
	}
	return s
}

// withConfig puts in Kueue's ConfigMap the default configuration, edited,
// rendered for Kueue release version.
func withConfig(s *Snapshot, version string, edit func(*spec.KueueConfiguration)) {
	c := spec.DefaultKueueConfiguration()
	edit(&c)
	cfg, err := kueueconfig.YAML(kueueconfig.Configuration(c, version))
	if err != nil {
		panic(err)
	}
	s.KueueConfig.Data[KueueConfigMapKey] = cfg
	s.KueueConfig.Labels[versionLabel] = version
}

func workload(name string, age time.Duration, conds ...metav1.Condition) kueuev1beta2.Workload {
	return kueuev1beta2.Workload{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-nlp", CreationTimestamp: metav1.NewTime(now.Add(-age))},
		Spec: kueuev1beta2.WorkloadSpec{QueueName: "gpu"}, Status: kueuev1beta2.WorkloadStatus{Conditions: conds}}
}

func cond(t, status, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionStatus(status), Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(now.Add(-2 * time.Hour))}
}

func TestAnalyzeHealthy(t *testing.T) {
	t.Parallel()
	s := healthy()
	s.Workloads = []kueuev1beta2.Workload{
		workload("running", 5*time.Hour, cond("QuotaReserved", "True", "QuotaReserved", ""), cond("Admitted", "True", "Admitted", "")),
		workload("young", time.Minute, cond("QuotaReserved", "False", "Pending", "couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor l4")),
		workload("done", 50*time.Hour, cond("Finished", "True", "Succeeded", "")),
	}
	res := Analyze(s, Options{})
	if res.Failed() {
		t.Fatalf("findings on a healthy platform: %+v", res.Findings)
	}
	// The CRDs (one check each of kueueKinds), version, webhooks, provisioning API, AdmissionCheck, CQ, LQ,
	// MultiKueue worker, 3 pools running, 2 workloads, no CRD storing
	// v1beta1, JobSets managed, waitForPodsReady on, team jobs held, JobSets
	// served (DOC029); and each rule that runs live; per GPU pool (2), no
	// idle node, no holder pod and no floor (DOC020–DOC022).
	want := len(kueueKinds) + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 3 + 2 + 1 + 3 + 1 + 2*3 + rules.CountIn(true)
	if res.Checks != want {
		t.Errorf("checks = %d, want %d", res.Checks, want)
	}
	var b strings.Builder
	if err := Render(&b, res, FormatText); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(fmt.Sprintf(`(?m)^all %d checks passed$`, want)).MatchString(b.String()) {
		t.Errorf("text:\n%s", b.String())
	}
}

// Each case breaks the healthy platform one way; want is the finding's
// id, object and message fragments. Fixing it (the healthy platform) has no
// finding: TestAnalyzeHealthy.
func TestAnalyzeFindings(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		breakIt func(s *Snapshot)
		id      string
		object  string
		sev     Severity
		want    []string
	}{
		"CRD missing": {func(s *Snapshot) { s.CRDs = s.CRDs[1:] }, "DOC001", "CRD admissionchecks.kueue.x-k8s.io", SeverityError,
			[]string{"is not installed"}},
		"v1beta2 not served": {func(s *Snapshot) { s.CRDs[3].Spec.Versions = s.CRDs[3].Spec.Versions[1:] }, "DOC001", "CRD localqueues.kueue.x-k8s.io", SeverityError,
			[]string{"does not serve v1beta2 (it serves v1beta1)"}},
		"CRD not established": {func(s *Snapshot) { s.CRDs[0].Status.Conditions = nil }, "DOC001", "CRD admissionchecks.kueue.x-k8s.io", SeverityError,
			[]string{"not Established"}},
		"old storage version": {func(s *Snapshot) {
			v := s.CRDs[1].Spec.Versions
			v[0].Storage, v[1].Storage = false, true
		}, "DOC002", "Kueue", SeverityError, []string{"stores its objects as v1beta1", "older than v0.16"}},
		"old manager image": {func(s *Snapshot) {
			s.KueueDeployments = []appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "kueue-controller-manager"},
				Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "registry.k8s.io/kueue/kueue:v0.16.2"}}}}}}}
		}, "DOC002", "Kueue v0.16.2", SeverityError, []string{"runs v0.16.2 (from the image registry.k8s.io/kueue/kueue:v0.16.2 of Deployment kueue-system/kueue-controller-manager), older than v0.17.0",
			"supports Kueue v0.17.0 to v0.19.x", "upgrade Kueue to v0.19.2"}},
		"newer manager image": {func(s *Snapshot) {
			s.KueueDeployments = []appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "kueue-controller-manager"},
				Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: "registry.k8s.io/kueue/kueue:v0.20.1"}}}}}}}
		}, "DOC002", "Kueue v0.20.1", SeverityWarning, []string{"runs v0.20.1", "newer than this provider supports (Kueue v0.17.0 to v0.19.x)", "no longer serves v1beta1"}},
		"old release on Kueue's ConfigMap": {func(s *Snapshot) {
			s.KueueConfig = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: KueueConfigMap, Namespace: KueueNamespace, Labels: map[string]string{versionLabel: "v0.16.0"}}}
		}, "DOC002", "Kueue v0.16.0", SeverityError, []string{"runs v0.16.0 (from the app.kubernetes.io/version label of ConfigMap kueue-system/kueue-manager-config), older than v0.17.0"}},
		"v1beta1 still stored": {func(s *Snapshot) { s.CRDs[1].Status.StoredVersions = []string{"v1beta1", "v1beta2"} }, "DOC015", "CRD clusterqueues.kueue.x-k8s.io", SeverityWarning,
			[]string{"still lists v1beta1 in status.storedVersions (v1beta1, v1beta2)", "Kueue v0.20.0 stops serving v1beta1",
				"before upgrading Kueue to v0.20.0 or later, run Kueue's migration step hack/migrate-to-v1beta2.sh",
				`kubectl patch crd clusterqueues.kueue.x-k8s.io --subresource=status --type=merge -p '{"status":{"storedVersions":["v1beta2"]}}'`}},
		"JobSets served, not managed": {func(s *Snapshot) {
			withConfig(s, kueue.NewestVersion, func(c *spec.KueueConfiguration) { c.Frameworks = []string{"batch/job"} })
		}, "DOC016", "CRD jobsets.jobset.x-k8s.io", SeverityError, []string{"the cluster serves JobSets (jobsets.jobset.x-k8s.io), but Kueue does not manage them",
			"lacks jobset.x-k8s.io/jobset", "runs at once without quota", `add "jobset.x-k8s.io/jobset" to frameworks`}},
		"JobSets managed, not installed": {func(s *Snapshot) {
			withConfig(s, kueue.NewestVersion, func(c *spec.KueueConfiguration) { c.Frameworks = []string{"batch/job", "jobset.x-k8s.io/jobset"} })
			s.CRDs = slices.DeleteFunc(s.CRDs, isFrameworkCRD)
		}, "DOC029", "Kueue configuration", SeverityError, []string{"Kueue manages JobSets (jobset.x-k8s.io/jobset in its integrations.frameworks), but the cluster does not serve them (no established CRD jobsets.jobset.x-k8s.io)",
			"no JobSet can be submitted", "install JobSet v0.12.0", "oci://registry.k8s.io/jobset/charts/jobset --version 0.12.0", "or, if the platform does not use JobSets, remove jobset.x-k8s.io/jobset from frameworks"}},
		"waitForPodsReady off by the v0.19 gate": {func(s *Snapshot) {
			withConfig(s, kueue.NewestVersion, func(c *spec.KueueConfiguration) { c.WaitForPodsReady = spec.WaitForPodsReady{} })
		}, "DOC017", "Kueue configuration", SeverityWarning, []string{"waitForPodsReady is off, and Kueue admits workloads of several pods (JobSets)",
			"keeps its quota half placed"}},
		"waitForPodsReady off before v0.19, a workload of 4 pods": {func(s *Snapshot) {
			withConfig(s, kueue.OldestVersion, func(c *spec.KueueConfiguration) {
				c.WaitForPodsReady, c.Frameworks = spec.WaitForPodsReady{}, []string{"batch/job"}
			})
			s.CRDs = slices.DeleteFunc(s.CRDs, isFrameworkCRD)
			w := workload("ddp", time.Hour)
			w.Spec.PodSets = []kueuev1beta2.PodSet{{Name: "workers", Count: 4}}
			s.Workloads = append(s.Workloads, w)
		}, "DOC017", "Kueue configuration", SeverityWarning, []string{"(workload team-nlp/ddp of 4 pods)"}},
		"team jobs without a queue run": {func(s *Snapshot) {
			withConfig(s, kueue.NewestVersion, func(c *spec.KueueConfiguration) {
				c.ManageJobsWithoutQueueName, c.ManagedJobsNamespaceSelector = false, nil
			})
		}, "DOC018", "Kueue configuration", SeverityError, []string{"in team namespace(s) team-nlp, a job without the kueue.x-k8s.io/queue-name label runs at once without quota (manageJobsWithoutQueueName is false)"}},
		"team namespaces not selected": {func(s *Snapshot) {
			withConfig(s, kueue.NewestVersion, func(c *spec.KueueConfiguration) {
				c.ManagedJobsNamespaceSelector = &spec.LabelSelector{MatchLabels: map[string]string{"kueue": "managed"}}
			})
		}, "DOC018", "Kueue configuration", SeverityError, []string{"does not select namespace(s) team-nlp, which are team namespaces or hold LocalQueues",
			"every job, with a queue-name label or not, runs at once without quota"}},
		"a LocalQueue outside the team namespaces": {func(s *Snapshot) {
			s.Namespaces = append(s.Namespaces, corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "research"}})
			s.LocalQueues = append(s.LocalQueues, kueuev1beta2.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "research"},
				Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "team-nlp"}, Status: kueuev1beta2.LocalQueueStatus{Conditions: active("Ready", true)}})
		}, "DOC018", "Kueue configuration", SeverityError, []string{"does not select namespace(s) research"}},
		"webhooks time out": {func(s *Snapshot) {
			s.Webhook.Err = &TimeoutError{What: "Kueue's webhooks", After: 5 * time.Second, Err: errors.New("context deadline exceeded")}
		}, "DOC003", "Kueue webhooks", SeverityError, []string{"did not answer within 5s", "frozen"}},
		"webhook call fails": {func(s *Snapshot) {
			s.Webhook.Err = apierrors.NewInternalError(errors.New(`Internal error occurred: failed calling webhook "mresourceflavor.kb.io": connection refused`))
		}, "DOC003", "Kueue webhooks", SeverityError, []string{"could not call Kueue's admission webhooks", "connection refused"}},
		"ProvisioningRequest API missing": {func(s *Snapshot) { s.CRDs = s.CRDs[:len(s.CRDs)-1] }, "DOC004", "AdmissionCheck dws", SeverityError,
			[]string{"does not serve the ProvisioningRequest API"}},
		"ProvisioningRequest API served, check inactive, Kueue's start unknown": {func(s *Snapshot) { s.AdmissionChecks[0].Status.Conditions = nil }, "DOC004",
			"AdmissionCheck dws", SeverityError, []string{"is not active although the ProvisioningRequest API is served: Kueue looks for that API only when it starts", "restart Kueue"}},
		"ProvisioningRequest API came after Kueue": {func(s *Snapshot) {
			s.CRDs[len(s.CRDs)-1].CreationTimestamp = metav1.NewTime(now.Add(-time.Hour))
			s.KueueDeployments = []appsv1.Deployment{{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{LastUpdateTime: metav1.NewTime(now.Add(-2 * time.Hour))}}}}}
			s.AdmissionChecks[0].Status.Conditions = nil
		}, "DOC004", "AdmissionCheck dws", SeverityError, []string{"after Kueue started", "restart Kueue"}},
		"admission check inactive": {func(s *Snapshot) {
			s.AdmissionChecks = append(s.AdmissionChecks, kueuev1beta2.AdmissionCheck{ObjectMeta: metav1.ObjectMeta{Name: "other"},
				Spec: kueuev1beta2.AdmissionCheckSpec{ControllerName: "example.com/x"}, Status: kueuev1beta2.AdmissionCheckStatus{Conditions: active("Inactive", false)}})
		}, "DOC005", "AdmissionCheck other", SeverityError, []string{"is not active (Kueue says Inactive"}},
		"queue stopped": {func(s *Snapshot) { s.ClusterQueues[0].Status.Conditions = active("Stopped", false) }, "DOC006", "ClusterQueue team-nlp", SeverityError,
			[]string{"is not active", "Stopped", "team-nlp/gpu wait"}},
		"flavor deleted": {func(s *Snapshot) {
			s.Flavors = s.Flavors[1:]
			s.ClusterQueues[0].Status.Conditions = active("FlavorNotFound", false)
		}, "DOC006", "ClusterQueue team-nlp", SeverityError, []string{`its ResourceFlavor "l4" does not exist (Kueue says FlavorNotFound`}},
		"flavor deleted, by the queue": {func(s *Snapshot) { s.Flavors = s.Flavors[1:] }, "MLP004", "ClusterQueue team-nlp", SeverityError,
			[]string{"ResourceFlavor l4 does not exist"}},
		"flavor terminating": {func(s *Snapshot) { d := metav1.NewTime(now); s.Flavors[0].DeletionTimestamp = &d }, "MLP004", "ClusterQueue team-nlp", SeverityWarning,
			[]string{"its deletion was asked for at 2026-12-01T12:00:00Z"}},
		"local queue inactive": {func(s *Snapshot) { s.LocalQueues[0].Status.Conditions = active("ClusterQueueDoesNotExist", false) }, "DOC007", "LocalQueue team-nlp/gpu",
			SeverityError, []string{`its ClusterQueue "team-nlp" does not exist`}},
		"no namespace selected": {func(s *Snapshot) { s.Namespaces[0].Labels = nil }, "MLP001", "ClusterQueue team-nlp", SeverityError,
			[]string{"selects namespaces labelled mlplatform.dev/team=nlp, and no team namespace has that label"}},
		"no namespace selector": {func(s *Snapshot) { s.ClusterQueues[0].Spec.NamespaceSelector = nil }, "MLP001", "ClusterQueue team-nlp", SeverityError,
			[]string{"has no namespace_selector, which Kueue reads as matching no namespace"}},
		"local queue's namespace not selected": {func(s *Snapshot) {
			s.Namespaces = append(s.Namespaces, corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-cv"}})
			s.LocalQueues = append(s.LocalQueues, s.LocalQueues[0])
			s.LocalQueues[1].Namespace = "team-cv"
		}, "MLP002", "LocalQueue team-cv/gpu", SeverityError, []string{"team-cv"}},
		"pool deleted": {func(s *Snapshot) { s.Pools = s.Pools[:2] }, "MLP005", "ResourceFlavor flex", SeverityError,
			[]string{"no GPU pool's nodes carry all of its node_labels (cloud.google.com/gke-nodepool=flex)"}},
		"flavor labels no pool carries": {func(s *Snapshot) {
			s.Flavors[0].Spec.NodeLabels["cloud.google.com/gke-accelerator"] = "nvidia-h100-80gb"
		}, "MLP005", "ResourceFlavor l4",
			SeverityError, []string{"cloud.google.com/gke-accelerator=nvidia-h100-80gb"}},
		"flavor without the pool label selects none": {func(s *Snapshot) { s.Flavors[0].Spec.NodeLabels = map[string]string{"team": "x"} }, "MLP005", "ResourceFlavor l4",
			SeverityError, []string{"no GPU pool's nodes carry all of its node_labels (team=x)"}},
		"pool in error": {func(s *Snapshot) {
			s.Pools[1].Status, s.Pools[1].StatusMessage = containerpb.NodePool_ERROR, "quota exceeded"
		}, "DOC011", "node pool l4",
			SeverityError, []string{"is ERROR, not RUNNING (GKE says: quota exceeded)"}},
		"pool reconciling": {func(s *Snapshot) { s.Pools[1].Status = containerpb.NodePool_RECONCILING }, "DOC011", "node pool l4", SeverityWarning, []string{"is RECONCILING"}},
		"taint not tolerated": {func(s *Snapshot) { s.Flavors[1].Spec.Tolerations = s.Flavors[1].Spec.Tolerations[:1] }, "MLP008", "ResourceFlavor flex", SeverityError,
			[]string{"cloud.google.com/gke-queued=true:NoSchedule, which none of its flavors tolerates"}},
		"allow everything in a team namespace": {func(s *Snapshot) {
			s.NetworkPolicies = append(s.NetworkPolicies, netpoltest.Widening("team-nlp")["allow-everything"])
		}, "MLP018", "NetworkPolicy team-nlp/allow-everything", SeverityError, []string{"widens the default deny of team namespace team-nlp",
			"opens egress to anywhere on every port, ingress from anywhere on every port, beyond the platform's holes",
			"kubectl -n team-nlp delete networkpolicy allow-everything", "extra_egress, ingress_from_namespaces"}},
		"network policies not read": {func(s *Snapshot) { s.NetworkPoliciesRead.Err = errors.New("boom") }, "DOC000", "NetworkPolicies", SeverityError,
			[]string{"could not read NetworkPolicies: boom, so MLP011 workload-identity-blocked-by-network-policy, MLP018 default-deny-widened, MLP020 workload-identity-cannot-reach-google could not run"}},
		"pending for quota": {func(s *Snapshot) {
			s.Workloads = []kueuev1beta2.Workload{workload("big", 2*time.Hour, cond("QuotaReserved", "False", "Pending",
				"couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor l4, request > maximum capacity (16 > 8)"))}
		}, "DOC013", "Workload team-nlp/big", SeverityWarning, []string{"has waited 2h0m0s for want of quota: not enough quota: couldn't assign flavors", "(queue gpu)"}},
		"pending on the provisioning check": {func(s *Snapshot) {
			w := workload("flexjob", time.Hour, cond("QuotaReserved", "True", "QuotaReserved", ""), cond("Admitted", "False", "", ""))
			w.Status.AdmissionChecks = []kueuev1beta2.AdmissionCheckState{{Name: "dws", State: kueuev1beta2.CheckStatePending, Message: "Waiting for resources"}}
			s.Workloads = []kueuev1beta2.Workload{w}
		}, "DOC013", "Workload team-nlp/flexjob", SeverityWarning, []string{"for want of capacity", "admission check dws (Pending: Waiting for resources)"}},
		"admitted, pods not ready": {func(s *Snapshot) {
			s.Workloads = []kueuev1beta2.Workload{workload("stuck", 3*time.Hour, cond("QuotaReserved", "True", "QuotaReserved", ""),
				cond("Admitted", "True", "Admitted", ""), cond("PodsReady", "False", "PodsReady", "Not all pods are ready or succeeded"))}
		}, "DOC013", "Workload team-nlp/stuck", SeverityWarning, []string{"admitted, but its pods are not ready"}},
		"never seen by Kueue": {func(s *Snapshot) { s.Workloads = []kueuev1beta2.Workload{workload("lost", time.Hour)} }, "DOC013", "Workload team-nlp/lost",
			SeverityWarning, []string{"Kueue has not looked at it"}},
		"MultiKueue worker not Active": {func(s *Snapshot) {
			s.MultiKueueClusters[0].Status.Conditions = active("ClientConnectionFailed", false)
		}, "DOC019", "MultiKueueCluster worker-1", SeverityError, []string{"MultiKueue worker worker-1 is not Active (ClientConnectionFailed: ClientConnectionFailed message): " +
			"the manager dispatches nothing to it", "worker_access"}},
		"MultiKueue worker refuses JobSets to the manager": {func(s *Snapshot) {
			s.Workers = []WorkerAccess{{Cluster: "worker-1", Secret: "kueue-system/worker-1-kubeconfig",
				Denied: []string{"create, delete jobsets.jobset.x-k8s.io", "get jobsets/status.jobset.x-k8s.io"}, DeniedKinds: []string{"JobSets"}}}
		}, "DOC019", "MultiKueueCluster worker-1", SeverityError, []string{"in MultiKueue worker worker-1 the manager's credentials (Secret kueue-system/worker-1-kubeconfig) " +
			"may not create, delete jobsets.jobset.x-k8s.io; get jobsets/status.jobset.x-k8s.io: MultiKueue cannot dispatch JobSets to it", "apply the worker's mlplatform_multikueue_cluster"}},
		"a read failed": {func(s *Snapshot) {
			s.CQRead.What = "ClusterQueues"
			s.CQRead.Err = apierrors.NewForbidden(schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "clusterqueues"}, "", errors.New("no"))
		}, "DOC000", "ClusterQueues", SeverityError, []string{"could not read ClusterQueues", "DOC006 clusterqueue-inactive, MLP001 queue-selects-no-namespace", "MLP019 gpu-quota-fractional, MLP023 resource-group-mixes-topology could not run"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := healthy()
			tc.breakIt(s)
			res := Analyze(s, Options{PendingThreshold: 30 * time.Minute})
			var got *Finding
			for i, f := range res.Findings {
				if f.ID == tc.id && f.Object() == tc.object {
					got = &res.Findings[i]
				}
			}
			if got == nil {
				t.Fatalf("no %s finding on %s; findings: %+v", tc.id, tc.object, res.Findings)
			}
			if got.Severity != tc.sev {
				t.Errorf("severity %s, want %s", got.Severity, tc.sev)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Message+" fix: "+got.Fix, w) {
					t.Errorf("message lacks %q:\n%s\nfix: %s", w, got.Message, got.Fix)
				}
			}
			if got.Fix == "" {
				t.Error("no fix")
			}
		})
	}
}

func TestFindingsMostSevereFirst(t *testing.T) {
	t.Parallel()
	s := healthy()
	s.Workloads = []kueuev1beta2.Workload{workload("lost", time.Hour)}
	s.Pools = s.Pools[:2]
	s.Webhook.Err = &TimeoutError{What: "Kueue's webhooks", After: time.Second, Err: errors.New("deadline")}
	res := Analyze(s, Options{})
	var b strings.Builder
	if err := Render(&b, res, FormatText); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range regexp.MustCompile(`(?m)^(\S+) \S+ \((\w+)\): `).FindAllStringSubmatch(b.String(), -1) {
		ids = append(ids, m[2]+" "+m[1])
	}
	if got := strings.Join(ids, ", "); got != "error DOC003, error MLP005, warning DOC013" {
		t.Errorf("order: %s\n%s", got, b.String())
	}
	if !strings.Contains(b.String(), fmt.Sprintf("3 of %d checks found something: 2 errors, 1 warning", res.Checks)) {
		t.Errorf("summary:\n%s", b.String())
	}
}

func TestVersionLess(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b        string
		less, known bool
	}{{"v0.16.2", "v0.17.0", true, true}, {"v0.17.0", "v0.17.0", false, true}, {"v0.18.1-rc.1", "v0.17.0", false, true}, {"latest", "v0.17.0", false, false}} {
		if less, known := versionLess(c.a, c.b); less != c.less || known != c.known {
			t.Errorf("versionLess(%s, %s) = %v, %v", c.a, c.b, less, known)
		}
	}
}

// DOC002 names the release it found, and where, when it is in the range;
// with none found it says so.
func TestKueueVersionNamed(t *testing.T) {
	t.Parallel()
	image := func(img string) []appsv1.Deployment {
		return []appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "kueue-controller-manager"},
			Spec: appsv1.DeploymentSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: img}}}}}}}
	}
	label := func(v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: KueueConfigMap, Labels: map[string]string{versionLabel: v}}}
	}
	for name, tc := range map[string]struct {
		deployments []appsv1.Deployment
		config      *corev1.ConfigMap
		want        string
	}{
		"newest, in-cluster": {deployments: image("registry.k8s.io/kueue/kueue:v0.19.2"),
			want: "Kueue v0.19.2 (from the image registry.k8s.io/kueue/kueue:v0.19.2 of Deployment kueue-system/kueue-controller-manager): supported (Kueue v0.17.0 to v0.19.x)"},
		"oldest, by its ConfigMap": {config: label("v0.17.0"),
			want: "Kueue v0.17.0 (from the app.kubernetes.io/version label of ConfigMap kueue-system/kueue-manager-config): supported (Kueue v0.17.0 to v0.19.x)"},
		"a v0.18 patch, by digest": {deployments: image("registry.k8s.io/kueue/kueue:v0.18.6@sha256:abc"),
			want: "Kueue v0.18.6 (from the image registry.k8s.io/kueue/kueue:v0.18.6@sha256:abc of Deployment kueue-system/kueue-controller-manager): supported"},
		"the image wins over the label": {deployments: image("registry.k8s.io/kueue/kueue:v0.19.2"), config: label("v0.17.0"), want: "Kueue v0.19.2 (from the image"},
		"not a release":                 {deployments: image("example.com/kueue:main"), want: `Kueue's version "main" (from the image example.com/kueue:main`},
		"neither":                       {want: "no Kueue Deployment in kueue-system and no app.kubernetes.io/version label on ConfigMap kueue-system/kueue-manager-config: Kueue's version is not known"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := healthy()
			s.KueueDeployments, s.KueueConfig = tc.deployments, tc.config
			res := Analyze(s, Options{})
			if res.Failed() {
				t.Fatalf("findings: %+v", res.Findings)
			}
			if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, tc.want) }) {
				t.Errorf("no note with %q; notes:\n%s", tc.want, strings.Join(res.Notes, "\n"))
			}
		})
	}
}

// MLP008 matches tolerations to the pool's taints as Kubernetes does (an
// empty operator is Equal, an empty key with Exists tolerates everything, an
// effect must match when set), and a PreferNoSchedule taint needs none.
func TestPoolTaintTolerations(t *testing.T) {
	t.Parallel()
	gpu := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	const queued = "cloud.google.com/gke-queued" // the flex pool's second taint, queued=true:NoSchedule
	for _, c := range []struct {
		tols []corev1.Toleration
		want bool // tolerated
	}{
		{[]corev1.Toleration{gpu, {Key: queued, Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}, true},
		{[]corev1.Toleration{gpu, {Key: queued, Value: "true"}}, true}, // "" is Equal; any effect
		{[]corev1.Toleration{gpu, {Key: queued, Operator: corev1.TolerationOpExists}}, true},
		{[]corev1.Toleration{{Operator: corev1.TolerationOpExists}}, true}, // tolerates everything
		{[]corev1.Toleration{gpu, {Key: queued, Operator: corev1.TolerationOpEqual, Value: "false"}}, false},
		{[]corev1.Toleration{gpu, {Key: queued, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}, false},
		{[]corev1.Toleration{gpu}, false},
	} {
		s := healthy()
		s.Flavors[1].Spec.Tolerations = c.tols
		s.Pools[2].Config.Taints = append(s.Pools[2].Config.Taints, &containerpb.NodeTaint{Key: "soft", Value: "x", Effect: containerpb.NodeTaint_PREFER_NO_SCHEDULE})
		var got []string
		for _, f := range Analyze(s, Options{}).Findings {
			got = append(got, f.ID+" "+f.Message)
		}
		if tolerated := len(got) == 0; tolerated != c.want {
			t.Errorf("tolerations %+v: tolerated %v, want %v; findings %q", c.tols, tolerated, c.want, got)
		}
	}
}

// MLP018 reports each widening policy of the issue on its own, with what it
// opens, and nothing once they are gone; the namespace passes once.
func TestDefaultDenyWidened(t *testing.T) {
	t.Parallel()
	s := healthy()
	want := map[string]string{
		"NetworkPolicy team-nlp/allow-everything":             "opens egress to anywhere on every port, ingress from anywhere on every port,",
		"NetworkPolicy team-nlp/allow-https-anywhere":         "opens egress to 0.0.0.0/0 on TCP 443,",
		"NetworkPolicy team-nlp/allow-ingress-all-namespaces": "opens ingress from every namespace on every port,",
		"NetworkPolicy team-nlp/allow-rank0-egress":           "opens for pods rank=0: egress to 10.0.0.0/8 on every port,",
	}
	for _, p := range netpoltest.Widening("team-nlp") {
		s.NetworkPolicies = append(s.NetworkPolicies, p)
	}
	got := map[string]string{}
	for _, f := range Analyze(s, Options{}).Findings {
		if f.ID != "MLP018" {
			t.Errorf("finding %s %s: %s", f.ID, f.Object(), f.Message)
			continue
		}
		for obj, opens := range want {
			if f.Object() == obj && strings.Contains(f.Message, opens) {
				got[obj] = opens
			}
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("DOC014 findings that name the policy and what it opens (-want +got):\n%s", d)
	}
	s.NetworkPolicies = healthy().NetworkPolicies
	if res := Analyze(s, Options{}); res.Failed() {
		t.Errorf("findings once the policies are deleted: %+v", res.Findings)
	}
}

// A cluster that serves another policy kind that can widen a namespace
// (FQDNNetworkPolicy on GKE Dataplane V2) gets a note: doctor does not
// evaluate it.
func TestOtherPolicyKindsNoted(t *testing.T) {
	t.Parallel()
	s := healthy()
	s.CRDs = append(s.CRDs, crd("fqdnnetworkpolicies.networking.gke.io", "v1alpha1"))
	res := Analyze(s, Options{})
	if res.Failed() || !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "FQDNNetworkPolicy") && strings.Contains(n, "kubectl get fqdnnetworkpolicies.networking.gke.io -A")
	}) {
		t.Errorf("findings %+v, notes %q: want a note on FQDNNetworkPolicy and no finding", res.Findings, res.Notes)
	}
}

func ptr[T any](v T) *T { return &v }

// Doctor runs every rule that can be judged on a live platform: each case
// breaks the healthy platform so that one rule finds it, and together they
// cover every such rule.
func TestEveryLiveRule(t *testing.T) {
	t.Parallel()
	quota := func(s *Snapshot, flavor int, q string) {
		s.ClusterQueues[0].Spec.ResourceGroups[0].Flavors[flavor].Resources[1].NominalQuota = resource.MustParse(q)
	}
	strategy := func(s *Snapshot) *[]kueuev1beta2.AdmissionCheckStrategyRule {
		return &s.ClusterQueues[0].Spec.AdmissionChecksStrategy.AdmissionChecks
	}
	policy := func(s *Snapshot, edit func(p *spec.TrainingNetworkPolicy)) {
		p := spec.DefaultTrainingNetworkPolicy("team-nlp")
		edit(&p)
		s.NetworkPolicies = netpol.Render(p)
	}
	metadata := func(s *Snapshot, mode containerpb.WorkloadMetadataConfig_Mode) {
		for _, np := range s.Pools {
			np.Config.WorkloadMetadataConfig = &containerpb.WorkloadMetadataConfig{Mode: mode}
		}
	}
	cases := map[string]struct {
		breakIt func(s *Snapshot)
		object  string
	}{
		"MLP001": {func(s *Snapshot) { s.Namespaces[0].Labels = nil }, "ClusterQueue team-nlp"},
		"MLP002": {func(s *Snapshot) {
			s.Namespaces = append(s.Namespaces, corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-cv"}})
			s.LocalQueues = append(s.LocalQueues, s.LocalQueues[0])
			s.LocalQueues[1].Namespace = "team-cv"
		}, "LocalQueue team-cv/gpu"},
		"MLP003": {func(s *Snapshot) { s.LocalQueues[0].Spec.ClusterQueue = "team-cv" }, "LocalQueue team-nlp/gpu"},
		"MLP004": {func(s *Snapshot) { s.Flavors = s.Flavors[1:] }, "ClusterQueue team-nlp"},
		"MLP005": {func(s *Snapshot) { s.Flavors[0].Spec.NodeLabels["team"] = "vision" }, "ResourceFlavor l4"},
		"MLP006": {func(s *Snapshot) { s.Flavors[0].Spec.NodeLabels = nil }, "ResourceFlavor l4"},
		"MLP007": {func(s *Snapshot) {
			s.Flavors = append(s.Flavors, kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "l4-untolerated"},
				Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": "l4"}}})
		}, "ResourceFlavor l4-untolerated"},
		"MLP008": {func(s *Snapshot) { s.Flavors[1].Spec.Tolerations = s.Flavors[1].Spec.Tolerations[:1] }, "ResourceFlavor flex"},
		"MLP009": {func(s *Snapshot) { s.ClusterQueues[0].Spec.AdmissionChecksStrategy = nil }, "ClusterQueue team-nlp"},
		"MLP010": {func(s *Snapshot) { (*strategy(s))[0].OnFlavors = append((*strategy(s))[0].OnFlavors, "l4") }, "ClusterQueue team-nlp"},
		"MLP011": {func(s *Snapshot) { policy(s, func(p *spec.TrainingNetworkPolicy) { p.MetadataServer = false }) }, "ServiceAccount team-nlp/trainer"},
		"MLP012": {func(s *Snapshot) { metadata(s, containerpb.WorkloadMetadataConfig_GCE_METADATA) }, "ServiceAccount team-nlp/trainer"},
		"MLP013": {func(s *Snapshot) { quota(s, 0, "100") }, "ClusterQueue team-nlp"},
		"MLP014": {func(s *Snapshot) {
			s.Pools = append(s.Pools, &containerpb.NodePool{Name: "a100-mig", Status: containerpb.NodePool_RUNNING,
				Autoscaling: &containerpb.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 4},
				Config: &containerpb.NodeConfig{MachineType: "a2-highgpu-1g", WorkloadMetadataConfig: s.Pools[1].Config.WorkloadMetadataConfig,
					Taints:       s.Pools[1].Config.Taints,
					Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-tesla-a100", AcceleratorCount: 1, GpuPartitionSize: "1g.5gb"}}}})
			s.Flavors = append(s.Flavors, kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "mig"},
				Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": "a100-mig"}, Tolerations: s.Flavors[0].Spec.Tolerations}})
			g := &s.ClusterQueues[0].Spec.ResourceGroups[0]
			mig := *g.Flavors[0].DeepCopy()
			mig.Name = "mig"
			g.Flavors = append([]kueuev1beta2.FlavorQuotas{mig}, g.Flavors...)
		}, "ClusterQueue team-nlp"},
		"MLP017": {func(s *Snapshot) {
			s.AdmissionChecks = append(s.AdmissionChecks, kueuev1beta2.AdmissionCheck{ObjectMeta: metav1.ObjectMeta{Name: "mk"},
				Spec:   kueuev1beta2.AdmissionCheckSpec{ControllerName: kueuev1beta2.MultiKueueControllerName, Parameters: &kueuev1beta2.AdmissionCheckParametersReference{Name: "mk"}},
				Status: kueuev1beta2.AdmissionCheckStatus{Conditions: active("Active", true)}})
			*strategy(s) = append(*strategy(s), kueuev1beta2.AdmissionCheckStrategyRule{Name: "mk"})
		}, "ClusterQueue team-nlp"},
		"MLP018": {func(s *Snapshot) {
			s.NetworkPolicies = append(s.NetworkPolicies, netpoltest.Widening("team-nlp")["allow-everything"])
		}, "NetworkPolicy team-nlp/allow-everything"},
		"MLP019": {func(s *Snapshot) { quota(s, 0, "500m") }, "ClusterQueue team-nlp"},
		"MLP020": {func(s *Snapshot) { policy(s, func(p *spec.TrainingNetworkPolicy) { p.GoogleAPIs = "none" }) }, "ServiceAccount team-nlp/trainer"},
		"MLP021": {func(s *Snapshot) {
			s.Flavors[0].Spec.TopologyName = ptr(kueuev1beta2.TopologyReference("gke-default"))
		}, "ResourceFlavor l4"},
		"MLP022": {func(s *Snapshot) {
			s.Flavors[0].Spec.TopologyName = ptr(kueuev1beta2.TopologyReference("gke-default"))
			s.Topologies = append(s.Topologies, kueuev1beta2.Topology{ObjectMeta: metav1.ObjectMeta{Name: "gke-default"},
				Spec: kueuev1beta2.TopologySpec{Levels: []kueuev1beta2.TopologyLevel{{NodeLabel: "cloud.google.com/gce-topology-block"}, {NodeLabel: "kubernetes.io/hostname"}}}})
		}, "ResourceFlavor l4"},
		"MLP023": {func(s *Snapshot) {
			s.Flavors[0].Spec.TopologyName = ptr(kueuev1beta2.TopologyReference("gke-default"))
			s.Topologies = append(s.Topologies, kueuev1beta2.Topology{ObjectMeta: metav1.ObjectMeta{Name: "gke-default"},
				Spec: kueuev1beta2.TopologySpec{Levels: []kueuev1beta2.TopologyLevel{{NodeLabel: "kubernetes.io/hostname"}}}})
		}, "ClusterQueue team-nlp"},
	}
	for _, r := range rules.Rules {
		if _, ok := cases[r.ID]; !ok && r.In() != rules.PlanOnly {
			t.Errorf("rule %s runs live and has no case here", r.ID)
		}
	}
	for id, tc := range cases {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			s := healthy()
			tc.breakIt(s)
			var got []string
			for _, f := range Analyze(s, Options{}).Findings {
				got = append(got, f.ID+" "+f.Object())
				if f.Severity == rules.SevUndecided {
					t.Errorf("undecided on a live platform: %s", f.Sentence())
				}
			}
			if !slices.Contains(got, id+" "+tc.object) {
				t.Errorf("no %s on %s; findings %q", id, tc.object, got)
			}
		})
	}
}
