package doctor

import (
	"fmt"
	"slices"
	"strings"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Doctor's checks of the configuration Kueue runs with (its ConfigMap)
// against the cluster.
var (
	CheckKindUnmanaged     = Check{"DOC016", "kueue-kind-unmanaged", "every workload kind the cluster serves (JobSet, TrainJob, RayJob, …) is managed by Kueue"}
	CheckWaitForPodsReady  = Check{"DOC017", "wait-for-pods-ready-off", "waitForPodsReady is on when Kueue admits workloads of several pods (gangs)"}
	CheckJobsBypassQuota   = Check{"DOC018", "jobs-bypass-quota", "jobs without a queue name in team namespaces are held by Kueue, not run without quota"}
	CheckKindNotInstalled  = Check{"DOC029", "kueue-kind-not-installed", "every workload kind Kueue manages (JobSet, TrainJob, RayJob, …) is served by the cluster: its controller is installed"}
	configurationFix       = "set it in data \"mlplatform_kueue_configuration\" and give its helm_values to Kueue's Helm release (or edit ConfigMap " + KueueNamespace + "/" + KueueConfigMap + " and restart Kueue's manager)"
	configurationChecksIDs = []string{CheckKindUnmanaged.ID, CheckWaitForPodsReady.ID, CheckJobsBypassQuota.ID, CheckKindNotInstalled.ID}
)

// isFrameworkCRD says whether c is the CRD of a kind a Kueue integration
// manages (JobSet, TrainJob, RayJob, …): doctor reads those with Kueue's.
func isFrameworkCRD(c apiextv1.CustomResourceDefinition) bool {
	_, ok := frameworkOf(c)
	return ok
}

func frameworkOf(c apiextv1.CustomResourceDefinition) (spec.KueueFramework, bool) {
	for _, f := range spec.KueueFrameworks {
		if f.Installed && f.Group == c.Spec.Group && f.Resource == c.Spec.Names.Plural {
			return f, true
		}
	}
	return spec.KueueFramework{}, false
}

// configuration runs DOC016–DOC018 and DOC029 on the configuration in Kueue's
// ConfigMap. Where it cannot be read (no ConfigMap: Kueue installed
// another way or elsewhere; no RBAC; not Kueue's format) a note says so and
// no verdict is given.
func (a analysis) configuration() {
	s := a.s
	if !a.needs(s.KueueConfigRead, CheckKindUnmanaged, CheckWaitForPodsReady, CheckJobsBypassQuota, CheckKindNotInstalled) {
		return
	}
	text := s.KueueConfiguration()
	if text == "" {
		a.f.note(fmt.Sprintf("no Kueue configuration in ConfigMap %s/%s (key %s): Kueue is configured another way, so its configuration was not "+
			"checked (%s)", KueueNamespace, KueueConfigMap, KueueConfigMapKey, strings.Join(configurationChecksIDs, ", ")))
		return
	}
	cfg, err := kueueconfig.Parse(text)
	if err != nil {
		a.f.note(fmt.Sprintf("Kueue's configuration in ConfigMap %s/%s could not be read (%v), so it was not checked (%s)",
			KueueNamespace, KueueConfigMap, err, strings.Join(configurationChecksIDs, ", ")))
		return
	}
	managed := managedFrameworks(cfg)
	if a.needs(s.CRDsRead, CheckKindUnmanaged) {
		a.kindsUnmanaged(managed, cfg)
	}
	if a.needs(s.CRDsRead, CheckKindNotInstalled) {
		a.kindsNotInstalled(managed)
	}
	if a.needs(s.WorkloadsRead, CheckWaitForPodsReady) {
		a.waitForPodsReady(cfg, managed)
	}
	if a.needs(s.NamespacesRead, CheckJobsBypassQuota) && a.needs(s.LQRead, CheckJobsBypassQuota) {
		a.jobsBypassQuota(cfg)
	}
}

// managedFrameworks are the integrations Kueue runs with (its default,
// batch/job, when the configuration lists none).
func managedFrameworks(cfg *configapi.Configuration) []string {
	if cfg.Integrations == nil || len(cfg.Integrations.Frameworks) == 0 {
		return []string{"batch/job"}
	}
	return cfg.Integrations.Frameworks
}

// kindsUnmanaged is DOC016: a kind the cluster serves whose jobs Kueue
// does not manage runs without quota, with or without a queue name.
func (a analysis) kindsUnmanaged(managed []string, cfg *configapi.Configuration) {
	var external []string
	if cfg.Integrations != nil {
		external = cfg.Integrations.ExternalFrameworks
	}
	for _, c := range a.s.CRDs {
		f, ok := frameworkOf(c)
		if !ok || !established(c) {
			continue
		}
		if slices.Contains(managed, f.Name) || slices.ContainsFunc(external, func(e string) bool {
			return strings.HasPrefix(e, f.Kind+".") && strings.HasSuffix(e, "."+f.Group)
		}) {
			a.f.pass(1)
			continue
		}
		a.f.add(CheckKindUnmanaged, SeverityError, "CRD "+c.Name, fmt.Sprintf("the cluster serves %ss (%s), but Kueue does not manage them "+
			"(its integrations.frameworks, %s, lacks %s): a %s runs at once without quota, whatever its queue-name label says",
			f.Kind, c.Name, strings.Join(managed, ", "), f.Name, f.Kind),
			fmt.Sprintf("add %q to frameworks: %s", f.Name, configurationFix))
	}
}

// kindsNotInstalled is DOC029, DOC016's other side: a kind Kueue manages
// whose CRD the cluster does not serve has no controller installed (JobSet's
// comes with its CRD), so no job of that kind can be submitted; Kueue
// itself waits for the API (jobframework/setup.go: "No matching API in the
// server for job framework, deferring setting up controller").
func (a analysis) kindsNotInstalled(managed []string) {
	for _, name := range managed {
		i := slices.IndexFunc(spec.KueueFrameworks, func(f spec.KueueFramework) bool { return f.Name == name && f.Installed })
		if i < 0 {
			continue // a built-in kind (Job, Pod, ...), or one doctor does not know
		}
		f := spec.KueueFrameworks[i]
		crd := f.Resource + "." + f.Group
		if slices.ContainsFunc(a.s.CRDs, func(c apiextv1.CustomResourceDefinition) bool {
			return c.Spec.Group == f.Group && c.Spec.Names.Plural == f.Resource && established(c)
		}) {
			a.f.pass(1)
			continue
		}
		install := "install " + f.Kind + "'s controller (it brings the CRD)"
		if f.Kind == "JobSet" {
			install = "install JobSet " + kueue.JobSetVersion + " (the release Kueue " + kueue.NewestVersion + " is built against): " +
				"helm install jobset oci://registry.k8s.io/jobset/charts/jobset --version " + strings.TrimPrefix(kueue.JobSetVersion, "v") +
				" --namespace jobset-system --create-namespace"
		}
		a.f.add(CheckKindNotInstalled, SeverityError, "Kueue configuration", fmt.Sprintf("Kueue manages %ss (%s in its integrations.frameworks), "+
			"but the cluster does not serve them (no established CRD %s): %s is not installed, so no %s can be submitted, "+
			"and Kueue defers its %s integration until the API appears", f.Kind, f.Name, crd, f.Kind, f.Kind, f.Kind),
			install+"; or, if the platform does not use "+f.Kind+"s, remove "+f.Name+" from frameworks: "+configurationFix)
	}
}

// waitForPodsReadyOn says whether Kueue runs with waitForPodsReady: from
// v0.19 unless the DisableWaitForPodsReady gate is set, before v0.19 when
// the block is there. known is false when the release is not known and the
// two readings differ.
func (a analysis) waitForPodsReadyOn(cfg *configapi.Configuration) (on, known bool) {
	if cfg.FeatureGates["DisableWaitForPodsReady"] {
		return false, true
	}
	if cfg.WaitForPodsReady != nil {
		return true, true
	}
	version, _ := a.s.kueueVersionFound()
	if !kueue.ParseVersion(version) {
		return false, false
	}
	return !kueue.VersionLess(version, "v0.19.0"), true
}

// waitForPodsReady is DOC017: without waitForPodsReady a gang whose pods
// cannot all start keeps its quota, half placed, for as long as it waits.
func (a analysis) waitForPodsReady(cfg *configapi.Configuration, managed []string) {
	on, known := a.waitForPodsReadyOn(cfg)
	if on {
		a.f.pass(1)
		return
	}
	if !known {
		a.f.note("Kueue's configuration has no waitForPodsReady block and Kueue's release is not known (before v0.19 that means off, " +
			"from v0.19 on): " + CheckWaitForPodsReady.ID + " gives no verdict")
		return
	}
	var why []string
	for _, name := range managed {
		if f, ok := spec.LookupKueueFramework(name); ok && f.Installed {
			why = append(why, f.Kind+"s")
		}
	}
	for _, w := range a.s.Workloads {
		pods := int32(0)
		for _, ps := range w.Spec.PodSets {
			pods += ps.Count
		}
		if pods > 1 {
			why = append(why, fmt.Sprintf("workload %s/%s of %d pods", w.Namespace, w.Name, pods))
			break
		}
	}
	if len(why) == 0 {
		a.f.pass(1)
		return
	}
	a.f.add(CheckWaitForPodsReady, SeverityWarning, "Kueue configuration", fmt.Sprintf("waitForPodsReady is off, and Kueue admits workloads of "+
		"several pods (%s): a gang whose pods cannot all start (no node, a pod failing) keeps its quota half placed instead of being evicted "+
		"and requeued, and the GPUs it holds stay idle", strings.Join(why, ", ")),
		"turn waitForPodsReady on (wait_for_pods_ready.enabled = true, the default): "+configurationFix)
}

// jobsBypassQuota is DOC018: a namespace whose jobs Kueue does not manage
// runs them at once, outside every quota. Kueue manages jobs only in the
// namespaces managedJobsNamespaceSelector selects (always, from v0.15's
// ManagedJobsNamespaceSelectorAlwaysRespected): a LocalQueue in another
// namespace queues nothing. In the team namespaces, jobs without a queue
// name are managed only with manageJobsWithoutQueueName.
func (a analysis) jobsBypassQuota(cfg *configapi.Configuration) {
	sel, err := metav1.LabelSelectorAsSelector(namespaceSelector(cfg))
	if err != nil {
		a.f.note(fmt.Sprintf("Kueue's managedJobsNamespaceSelector cannot be read (%v): %s gives no verdict", err, CheckJobsBypassQuota.ID))
		return
	}
	queues := map[string]bool{}
	for _, lq := range a.s.LocalQueues {
		queues[lq.Namespace] = true
	}
	var unselected, unqueued []string
	for _, ns := range a.s.Namespaces {
		_, team := ns.Labels[spec.TeamLabel]
		switch selected := sel.Matches(labels.Set(ns.Labels)); {
		case (team || queues[ns.Name]) && !selected:
			unselected = append(unselected, ns.Name)
		case team && !cfg.ManageJobsWithoutQueueName:
			unqueued = append(unqueued, ns.Name)
		}
	}
	fix := "set manage_jobs_without_queue_name = true with a managed_jobs_namespace_selector that selects the team namespaces (the default: " +
		"label " + spec.TeamLabel + " exists), and keep LocalQueues in team namespaces: " + configurationFix
	if len(unselected) > 0 {
		a.f.add(CheckJobsBypassQuota, SeverityError, "Kueue configuration", fmt.Sprintf("Kueue's managedJobsNamespaceSelector does not select "+
			"namespace(s) %s, which are team namespaces or hold LocalQueues: Kueue manages no job there, so every job, with a queue-name label "+
			"or not, runs at once without quota", strings.Join(unselected, ", ")), fix)
	}
	if len(unqueued) > 0 {
		a.f.add(CheckJobsBypassQuota, SeverityError, "Kueue configuration", fmt.Sprintf("in team namespace(s) %s, a job without the "+
			"kueue.x-k8s.io/queue-name label runs at once without quota (manageJobsWithoutQueueName is false)", strings.Join(unqueued, ", ")), fix)
	}
	if len(unselected)+len(unqueued) == 0 {
		a.f.pass(1)
	}
}

// namespaceSelector is Kueue's managedJobsNamespaceSelector, defaulted as
// Kueue defaults it (every namespace but kube-system and Kueue's).
func namespaceSelector(cfg *configapi.Configuration) *metav1.LabelSelector {
	if cfg.ManagedJobsNamespaceSelector != nil {
		return cfg.ManagedJobsNamespaceSelector
	}
	ns := KueueNamespace
	if cfg.Namespace != nil && *cfg.Namespace != "" {
		ns = *cfg.Namespace
	}
	return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "kubernetes.io/metadata.name", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"kube-system", ns}},
	}}
}
