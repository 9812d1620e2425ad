package testenv

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueueconfig"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestStartNamesTheMissingPiece(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/etcd", nil, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Options{BinDir: dir})
	if err == nil {
		t.Fatal("Start succeeded without binaries")
	}
	for _, want := range []string{"kube-apiserver is missing from " + dir, "kueue is missing", "scripts/tools.sh"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "etcd is missing") {
		t.Errorf("error blames etcd, which is present: %v", err)
	}
}

func TestStartWithoutBinDir(t *testing.T) {
	t.Setenv(EnvBins, "")
	_, err := Start(context.Background(), Options{})
	if err == nil || !strings.Contains(err.Error(), EnvBins+" is not set") {
		t.Fatalf("want an error naming %s, got %v", EnvBins, err)
	}
}

// testJobSet is a JobSet of two replicated jobs (one pod of one GPU each),
// labelled for the LocalQueue queue.
func testJobSet(name, queue string) *unstructured.Unstructured {
	rjob := func(name string) map[string]any {
		return map[string]any{"name": name, "replicas": int64(1), "template": map[string]any{"spec": map[string]any{
			"template": map[string]any{"spec": map[string]any{
				"restartPolicy": "Never",
				"containers": []any{map[string]any{"name": "train", "image": "trainer:1",
					"resources": map[string]any{"requests": map[string]any{"nvidia.com/gpu": "1"}, "limits": map[string]any{"nvidia.com/gpu": "1"}}}},
			}},
		}}}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"kueue.x-k8s.io/queue-name": queue}},
		"spec":     map[string]any{"replicatedJobs": []any{rjob("leader"), rjob("workers")}},
	}}
}

func jobNames(l *batchv1.JobList) []string {
	if l == nil {
		return nil
	}
	var names []string
	for _, j := range l.Items {
		names = append(names, j.Name)
	}
	return names
}

type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// TestEnvironment starts every real part and checks each does its job: the
// namespace controller finishes deletions, Kueue's webhooks default and
// convert, Kueue's manager reconciles status and admits a JobSet, the JobSet
// controller creates and resumes its Jobs, and Stop leaves no process.
func TestEnvironment(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts the real control plane: run with TF_ACC=1 (make testacc)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	env, err := Start(ctx, Options{Log: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			env.Stop()
		}
	}()
	core := kubernetes.NewForConfigOrDie(env.REST)
	kq := kueueclient.NewForConfigOrDie(env.REST)

	// The API server and Kueue are the releases scripts/tools.sh built: their
	// directory is named after them (k8s-1.36.2-etcd-3.6.8-kueue-0.19.2).
	v, err := core.Discovery().ServerVersion()
	if m := regexp.MustCompile(`^k8s-([0-9.]+)-etcd-[0-9.]+-kueue-([0-9.]+)$`).FindStringSubmatch(filepath.Base(os.Getenv(EnvBins))); m == nil {
		t.Logf("%s=%s is not named after its releases; server version %v, Kueue %s", EnvBins, os.Getenv(EnvBins), v, env.KueueVersion())
	} else {
		if err != nil || v.GitVersion != "v"+m[1] {
			t.Errorf("server version %v (err %v), want v%s", v, err, m[1])
		}
		if env.KueueVersion() != "v"+m[2] {
			t.Errorf("the environment runs Kueue %s, want v%s", env.KueueVersion(), m[2])
		}
	}

	// Kueue: a flavor and a queue; the mutating webhook fills defaults and
	// the manager marks the queue Active once its flavor exists.
	rf := &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: "l4"}}
	if _, err := kq.KueueV1beta2().ResourceFlavors().Create(ctx, rf, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cq := &kueuev1beta2.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: "team-a"},
		Spec: kueuev1beta2.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueuev1beta2.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
				Flavors: []kueuev1beta2.FlavorQuotas{{Name: "l4", Resources: []kueuev1beta2.ResourceQuota{
					{Name: "nvidia.com/gpu", NominalQuota: resource.MustParse("8")},
				}}},
			}},
		},
	}
	created, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.QueueingStrategy != kueuev1beta2.BestEffortFIFO {
		t.Errorf("mutating webhook did not default queueingStrategy: %q", created.Spec.QueueingStrategy)
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "team-a", metav1.GetOptions{})
		return err == nil && meta.IsStatusConditionTrue(got.Status.Conditions, kueuev1beta2.ClusterQueueActive), nil
	})
	if err != nil {
		t.Errorf("ClusterQueue never became Active (is the Kueue manager reconciling?): %v", err)
	}
	// The v1beta1 view goes through Kueue's conversion webhook.
	dyn := dynamic.NewForConfigOrDie(env.REST)
	old, err := dyn.Resource(schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta1", Resource: "clusterqueues"}).
		Get(ctx, "team-a", metav1.GetOptions{})
	if err != nil {
		t.Errorf("v1beta1 read through the conversion webhook: %v", err)
	} else if old.GetAPIVersion() != "kueue.x-k8s.io/v1beta1" {
		t.Errorf("conversion returned %s", old.GetAPIVersion())
	}

	// JobSet: a JobSet labelled for a LocalQueue is suspended on create by
	// Kueue's JobSet webhook, admitted by Kueue as one Workload of both its
	// replicated jobs, then resumed; the JobSet controller creates its Jobs
	// and resumes them with it.
	if env.JobSetVersion() == "" {
		t.Error("the environment runs no JobSet controller")
	}
	// A team namespace: Kueue manages jobs only in the namespaces its
	// managedJobsNamespaceSelector selects (always, from v0.15), the
	// platform's teams by default.
	train := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "train", Labels: map[string]string{spec.TeamLabel: "train"}}}
	if _, err := core.CoreV1().Namespaces().Create(ctx, train, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	lq := &kueuev1beta2.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "train"},
		Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "team-a"}}
	if _, err := kq.KueueV1beta2().LocalQueues("train").Create(ctx, lq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	jobSets := dyn.Resource(jobSetsResource).Namespace("train")
	js, err := jobSets.Create(ctx, testJobSet("gang", "gpu"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if suspended, _, _ := unstructured.NestedBool(js.Object, "spec", "suspend"); !suspended {
		t.Errorf("a queued JobSet was created unsuspended: Kueue's JobSet webhook did not suspend it")
	}
	var jobs *batchv1.JobList
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		js, err := jobSets.Get(ctx, "gang", metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		if suspended, _, _ := unstructured.NestedBool(js.Object, "spec", "suspend"); suspended {
			return false, nil
		}
		if jobs, err = core.BatchV1().Jobs("train").List(ctx, metav1.ListOptions{}); err != nil || len(jobs.Items) != 2 {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		for _, j := range jobs.Items {
			if j.Spec.Suspend == nil || *j.Spec.Suspend {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		t.Errorf("the JobSet was not admitted and its 2 Jobs created and resumed within 60s (jobs %v): %v", jobNames(jobs), err)
	}
	wls, err := kq.KueueV1beta2().Workloads("train").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(wls.Items) != 1 || len(wls.Items[0].Spec.PodSets) != 2 {
		t.Errorf("want one Workload of the JobSet's 2 replicated jobs, got %+v", wls.Items)
	}

	// Kueue runs with data "mlplatform_kueue_configuration"'s defaults,
	// written to its ConfigMap as an in-cluster install keeps them, and they
	// take effect: a Job without a queue name in a team namespace is held
	// (suspended, its Workload not admitted: it names no queue), one in
	// another namespace runs.
	cm, err := core.CoreV1().ConfigMaps(kueueNamespace).Get(ctx, KueueConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	running, err := kueueconfig.Parse(cm.Data[KueueConfigMapKey])
	if err != nil {
		t.Fatal(err)
	}
	def := spec.DefaultKueueConfiguration()
	if !slices.Equal(running.Integrations.Frameworks, def.Frameworks) || !running.ManageJobsWithoutQueueName ||
		running.ManagedJobsNamespaceSelector == nil || running.ManagedJobsNamespaceSelector.MatchExpressions[0].Key != spec.TeamLabel {
		t.Errorf("Kueue's ConfigMap does not hold the data source's defaults:\n%s", cm.Data[KueueConfigMapKey])
	}
	if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "tools"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	unqueued := func(ns string) *batchv1.Job {
		return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "no-queue", Namespace: ns}, Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
				Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}
	}
	for _, ns := range []string{"train", "tools"} {
		if _, err := core.BatchV1().Jobs(ns).Create(ctx, unqueued(ns), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		j, err := core.BatchV1().Jobs("train").Get(ctx, "no-queue", metav1.GetOptions{})
		if err != nil || j.Spec.Suspend == nil || !*j.Spec.Suspend {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		wl, err := kq.KueueV1beta2().Workloads("train").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		for _, w := range wl.Items {
			if len(w.OwnerReferences) > 0 && w.OwnerReferences[0].Name == "no-queue" {
				return !meta.IsStatusConditionTrue(w.Status.Conditions, kueuev1beta2.WorkloadAdmitted), nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Errorf("a Job without a queue name in a team namespace was not held by Kueue (suspended, with a Workload not admitted): %v", err)
	}
	if j, err := core.BatchV1().Jobs("tools").Get(ctx, "no-queue", metav1.GetOptions{}); err != nil || (j.Spec.Suspend != nil && *j.Spec.Suspend) {
		t.Errorf("a Job without a queue name outside the team namespaces was suspended (err %v): Kueue's namespace selector took it", err)
	}

	// The namespace controller (kube-controller-manager) finishes deletions.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}
	if _, err := core.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := core.CoreV1().ConfigMaps("doomed").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := core.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 90*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := core.CoreV1().Namespaces().Get(ctx, "doomed", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Errorf("namespace with content never finished terminating: %v", err)
	}

	// The GKE fake serves the cluster with a workload pool.
	if !env.GCP.Container.HasWorkloadPool(env.Project + ".svc.id.goog") {
		t.Error("fake cluster has no workload pool")
	}

	pids := env.Processes()
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "jobset", "kueue"} {
		if pids[name] == 0 {
			t.Errorf("no %s process recorded: %v", name, pids)
		}
	}
	dir := env.Dir
	env.Stop()
	stopped = true
	for name, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("%s (pid %d) still running after Stop", name, pid)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Stop left %s behind", dir)
	}
}
