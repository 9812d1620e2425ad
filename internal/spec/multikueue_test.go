package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The worker's ClusterRole grants each dispatched kind and its status, then
// Workloads; kinds without a MultiKueue adapter grant nothing.
func TestWorkerRBAC(t *testing.T) {
	t.Parallel()
	objects := []string{"create", "delete", "get", "list", "watch"}
	workloads := []PolicyRule{
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads"}, Verbs: objects},
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads/status"}, Verbs: []string{"get", "patch", "update"}},
	}
	kind := func(group, resource string) []PolicyRule {
		return []PolicyRule{
			{APIGroups: []string{group}, Resources: []string{resource}, Verbs: objects},
			{APIGroups: []string{group}, Resources: []string{resource + "/status"}, Verbs: []string{"get"}},
		}
	}
	cat := func(rs ...[]PolicyRule) []PolicyRule {
		var out []PolicyRule
		for _, r := range rs {
			out = append(out, r...)
		}
		return out
	}
	for name, tc := range map[string]struct {
		frameworks []string
		want       []PolicyRule
	}{
		"default: Jobs and JobSets": {nil, cat(kind("batch", "jobs"), kind("jobset.x-k8s.io", "jobsets"), workloads)},
		"the previous release":      {[]string{"batch/job"}, cat(kind("batch", "jobs"), workloads)},
		"Kubeflow Trainer and Ray": {[]string{"trainer.kubeflow.org/trainjob", "ray.io/rayjob"},
			cat(kind("trainer.kubeflow.org", "trainjobs"), kind("ray.io", "rayjobs"), workloads)},
		"no adapter, no grant": {[]string{"deployment", "sparkoperator.k8s.io/sparkapplication", "batch/job"}, cat(kind("batch", "jobs"), workloads)},
		"pods":                 {[]string{"pod"}, cat(kind("", "pods"), workloads)},
		"nothing dispatched":   {[]string{}, workloads},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if d := cmp.Diff(tc.want, WorkerRBAC(tc.frameworks)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
