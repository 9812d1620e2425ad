package doctortest

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	configapi "sigs.k8s.io/kueue/apis/config/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
)

// TestAccDoctorKueueConfiguration breaks the small platform's Kueue
// configuration one way at a time, as an operator editing Kueue's Helm
// values would: ConfigMap kueue-system/kueue-manager-config (key
// controller_manager_config.yaml), which the environment writes with the
// configuration its Kueue runs (data "mlplatform_kueue_configuration"'s
// defaults), is rewritten. Each break is found with a plain message, its fix
// and exit 6, and nothing else is; with the ConfigMap restored, doctor
// passes again (exit 0):
//   - DOC016: frameworks without JobSet while the JobSet CRD is served;
//   - DOC017: waitForPodsReady off (v0.19's DisableWaitForPodsReady gate)
//     while Kueue manages JobSets;
//   - DOC018: manageJobsWithoutQueueName false, and a
//     managedJobsNamespaceSelector that misses the team namespaces;
//   - DOC029: a kind in frameworks (TrainJob) whose CRD the cluster does not
//     serve: its controller is not installed.
func TestAccDoctorKueueConfiguration(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	p.teams(0, 3)
	cms := p.core.CoreV1().ConfigMaps(doctor.KueueNamespace)
	cm, err := cms.Get(p.ctx, doctor.KueueConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	original := cm.Data[doctor.KueueConfigMapKey]
	if _, err := kueueconfig.Parse(original); err != nil {
		t.Fatalf("the environment's Kueue configuration: %v", err)
	}
	write := func(text string) {
		t.Helper()
		cm, err := cms.Get(p.ctx, doctor.KueueConfigMap, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data[doctor.KueueConfigMapKey] = text
		if _, err := cms.Update(p.ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { write(original) }) // after a failed step; each step restores it itself
	p.until("a clean platform", clean)

	for _, tc := range []struct {
		name     string
		breakIt  func(*configapi.Configuration)
		id       string
		severity doctor.Severity
		object   string
		message  []string // each in the finding's message
		fix      string
	}{
		{
			name:     "JobSet served but not managed",
			breakIt:  func(c *configapi.Configuration) { c.Integrations.Frameworks = []string{"batch/job"} },
			id:       doctor.CheckKindUnmanaged.ID,
			severity: doctor.SeverityError,
			object:   "CRD jobsets.jobset.x-k8s.io",
			message: []string{"the cluster serves JobSets (jobsets.jobset.x-k8s.io), but Kueue does not manage them (its integrations.frameworks, " +
				"batch/job, lacks jobset.x-k8s.io/jobset): a JobSet runs at once without quota, whatever its queue-name label says"},
			fix: `add "jobset.x-k8s.io/jobset" to frameworks`,
		},
		{
			name: "waitForPodsReady off while JobSets are managed",
			breakIt: func(c *configapi.Configuration) {
				if c.FeatureGates == nil {
					c.FeatureGates = map[string]bool{}
				}
				c.FeatureGates["DisableWaitForPodsReady"] = true
			},
			id:       doctor.CheckWaitForPodsReady.ID,
			severity: doctor.SeverityWarning,
			object:   "Kueue configuration",
			message:  []string{"waitForPodsReady is off, and Kueue admits workloads of several pods (JobSets", "keeps its quota half placed"},
			fix:      "turn waitForPodsReady on",
		},
		{
			name:     "jobs without a queue name run in team namespaces",
			breakIt:  func(c *configapi.Configuration) { c.ManageJobsWithoutQueueName = false },
			id:       doctor.CheckJobsBypassQuota.ID,
			severity: doctor.SeverityError,
			object:   "Kueue configuration",
			message: []string{"in team namespace(s) ", nsName(0), nsName(2),
				"a job without the kueue.x-k8s.io/queue-name label runs at once without quota (manageJobsWithoutQueueName is false)"},
			fix: "set manage_jobs_without_queue_name = true",
		},
		{
			name: "a managed kind not installed",
			breakIt: func(c *configapi.Configuration) {
				c.Integrations.Frameworks = append(c.Integrations.Frameworks, "trainer.kubeflow.org/trainjob")
			},
			id:       doctor.CheckKindNotInstalled.ID,
			severity: doctor.SeverityError,
			object:   "Kueue configuration",
			message: []string{"Kueue manages TrainJobs (trainer.kubeflow.org/trainjob in its integrations.frameworks), " +
				"but the cluster does not serve them (no established CRD trainjobs.trainer.kubeflow.org): TrainJob is not installed"},
			fix: "install TrainJob's controller (it brings the CRD); or, if the platform does not use TrainJobs, remove trainer.kubeflow.org/trainjob from frameworks",
		},
		{
			name: "team namespaces not selected",
			breakIt: func(c *configapi.Configuration) {
				c.ManagedJobsNamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"queued": "true"}}
			},
			id:       doctor.CheckJobsBypassQuota.ID,
			severity: doctor.SeverityError,
			object:   "Kueue configuration",
			message: []string{"Kueue's managedJobsNamespaceSelector does not select namespace(s) ", nsName(0), nsName(2),
				"Kueue manages no job there, so every job, with a queue-name label or not, runs at once without quota"},
			fix: "keep LocalQueues in team namespaces",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := kueueconfig.Parse(original)
			if err != nil {
				t.Fatal(err)
			}
			tc.breakIt(cfg)
			broken, err := kueueconfig.YAML(cfg)
			if err != nil {
				t.Fatal(err)
			}
			write(broken)
			code, out, res := p.until(tc.id+" found", func(_ int, _ string, res jsonResult) bool { return has(res, tc.id, tc.object) != nil })
			t.Logf("exit %d:\n%s", code, out)
			f := has(res, tc.id, tc.object)
			if code != doctor.ExitFindings || len(res.Findings) != 1 || f.Severity != tc.severity {
				t.Errorf("want exit 6 and one %s %s on %s; got exit %d:\n%s", tc.severity, tc.id, tc.object, code, out)
			}
			for _, want := range tc.message {
				if !strings.Contains(f.Message, want) {
					t.Errorf("the message does not say %q: %s", want, f.Message)
				}
			}
			if !strings.Contains(f.Fix, tc.fix) || !strings.Contains(f.Fix, `data "mlplatform_kueue_configuration"`) {
				t.Errorf("the fix does not say %q and name the data source: %s", tc.fix, f.Fix)
			}
			write(original)
			code, out, res = p.until("mended", clean)
			if has(res, tc.id, "") != nil || code != doctor.ExitOK {
				t.Errorf("with the configuration restored: exit %d:\n%s", code, out)
			}
		})
	}
}
