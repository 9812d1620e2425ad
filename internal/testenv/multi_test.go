package testenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

func TestStartMultiNeedsAWorker(t *testing.T) {
	t.Parallel()
	if _, err := StartMulti(context.Background(), Options{BinDir: t.TempDir()}, 0); err == nil ||
		!strings.Contains(err.Error(), "at least one worker") {
		t.Fatalf("want an error about the worker count, got %v", err)
	}
}

// TestPrefixWriterShared writes from the environments' prefix writers at once
// into one bytes.Buffer (not safe for concurrent use): every line arrives
// whole, with its prefix. Run with -race to see the shared lock matters.
func TestPrefixWriterShared(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 8 {
		w := prefixWriter{w: &buf, prefix: fmt.Sprintf("worker-%d: ", i), mu: &mu}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				fmt.Fprintf(w, "step\n")
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 8*200 {
		t.Fatalf("%d lines, want %d", len(lines), 8*200)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "worker-") || !strings.HasSuffix(l, ": step") {
			t.Fatalf("line %q is not one whole prefixed step", l)
		}
	}
}

// managerAccess is what the manager needs in one worker: a service account,
// the RBAC MultiKueue documents for workers, and a bounded token for it.
func managerAccess(ctx context.Context, t *testing.T, worker *Env) string {
	t.Helper()
	core := kubernetes.NewForConfigOrDie(worker.REST)
	const ns, name = "kueue-system", "multikueue-manager"
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := core.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: all},
			{APIGroups: []string{"batch"}, Resources: []string{"jobs/status"}, Verbs: []string{"get"}},
			// The manager's Kueue manages JobSets, so it watches them in every
			// worker, and counts a worker it cannot watch them in inactive.
			{APIGroups: []string{"jobset.x-k8s.io"}, Resources: []string{"jobsets"}, Verbs: all},
			{APIGroups: []string{"jobset.x-k8s.io"}, Resources: []string{"jobsets/status"}, Verbs: []string{"get"}},
			{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads"}, Verbs: all},
			{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads/status"}, Verbs: []string{"get", "patch", "update"}},
		},
	}
	if _, err := core.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: ns}},
	}
	if _, err := core.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := core.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// workerKubeconfig is what Kueue accepts: inline CA data and a bearer token.
func workerKubeconfig(t *testing.T, worker *Env, token string) []byte {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["worker"] = &clientcmdapi.Cluster{Server: worker.REST.Host, CertificateAuthorityData: worker.REST.CAData}
	kc.AuthInfos["manager"] = &clientcmdapi.AuthInfo{Token: token}
	kc.Contexts["worker"] = &clientcmdapi.Context{Cluster: "worker", AuthInfo: "manager"}
	kc.CurrentContext = "worker"
	data, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// waitCondition waits until get reports condition typ with status.
func waitCondition(ctx context.Context, timeout time.Duration, get func(context.Context) ([]metav1.Condition, error), typ string, status metav1.ConditionStatus) (*metav1.Condition, error) {
	return waitCond(ctx, timeout, get, typ, "become "+string(status), func(c *metav1.Condition) bool { return c.Status == status })
}

// waitReason waits until get reports condition typ with reason.
func waitReason(ctx context.Context, get func(context.Context) ([]metav1.Condition, error), typ, reason string) (*metav1.Condition, error) {
	return waitCond(ctx, 60*time.Second, get, typ, "have reason "+reason, func(c *metav1.Condition) bool { return c.Reason == reason })
}

// waitCond polls get until condition typ is there and ok; want says what ok
// waits for, in the error.
func waitCond(ctx context.Context, timeout time.Duration, get func(context.Context) ([]metav1.Condition, error), typ, want string, ok func(*metav1.Condition) bool) (*metav1.Condition, error) {
	var last *metav1.Condition
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		conds, err := get(ctx)
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		last = meta.FindStatusCondition(conds, typ)
		return last != nil && ok(last), nil
	})
	if err != nil {
		return last, fmt.Errorf("condition %s did not %s (last %+v): %w", typ, want, last, err)
	}
	return last, nil
}

// TestMultiKueueWorkerActive starts a manager and two workers and wires the
// workers to the manager's MultiKueue the way a platform would: a service
// account, RBAC and token in each worker, a kubeconfig Secret, a
// MultiKueueCluster per worker, a MultiKueueConfig and an AdmissionCheck in
// the manager. Kueue must report all of it Active, and a wrong token must not.
func TestMultiKueueWorkerActive(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts three real control planes: run with TF_ACC=1 (make testacc)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	t0 := time.Now()
	m, err := StartMulti(ctx, Options{Log: logWriter{t}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Stop()
	defer func() {
		if t.Failed() {
			logMultiKueue(t, m.Manager)
		}
	}()
	t.Logf("manager and %d workers started in %.1fs", len(m.Workers), time.Since(t0).Seconds())
	t1 := time.Now()

	mgr := kubernetes.NewForConfigOrDie(m.Manager.REST)
	mq := kueueclient.NewForConfigOrDie(m.Manager.REST).KueueV1beta2()
	var clusters []string
	tokens := map[string]string{}
	for i, w := range m.Workers {
		name := fmt.Sprintf("worker-%d", i+1)
		clusters = append(clusters, name)
		tokens[name] = managerAccess(ctx, t, w)
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: kueueNamespace},
			Data:       map[string][]byte{kueuev1beta2.MultiKueueConfigSecretKey: workerKubeconfig(t, w, tokens[name])},
		}
		if _, err := mgr.CoreV1().Secrets(kueueNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		mkc := &kueuev1beta2.MultiKueueCluster{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: kueuev1beta2.MultiKueueClusterSpec{ClusterSource: kueuev1beta2.ClusterSource{
				KubeConfig: &kueuev1beta2.KubeConfig{Location: secret.Name, LocationType: kueuev1beta2.SecretLocationType},
			}},
		}
		if _, err := mq.MultiKueueClusters().Create(ctx, mkc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &kueuev1beta2.MultiKueueConfig{
		ObjectMeta: metav1.ObjectMeta{Name: "regions"},
		Spec:       kueuev1beta2.MultiKueueConfigSpec{Clusters: clusters},
	}
	if _, err := mq.MultiKueueConfigs().Create(ctx, cfg, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ac := &kueuev1beta2.AdmissionCheck{
		ObjectMeta: metav1.ObjectMeta{Name: "multikueue"},
		Spec: kueuev1beta2.AdmissionCheckSpec{
			ControllerName: kueuev1beta2.MultiKueueControllerName,
			Parameters: &kueuev1beta2.AdmissionCheckParametersReference{
				APIGroup: kueuev1beta2.SchemeGroupVersion.Group, Kind: "MultiKueueConfig", Name: cfg.Name,
			},
		},
	}
	if _, err := mq.AdmissionChecks().Create(ctx, ac, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	clusterConds := func(name string) func(context.Context) ([]metav1.Condition, error) {
		return func(ctx context.Context) ([]metav1.Condition, error) {
			c, err := mq.MultiKueueClusters().Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return c.Status.Conditions, nil
		}
	}
	checkConds := func(ctx context.Context) ([]metav1.Condition, error) {
		c, err := mq.AdmissionChecks().Get(ctx, ac.Name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return c.Status.Conditions, nil
	}
	active := func(when string) {
		t.Helper()
		for _, name := range clusters {
			c, err := waitCondition(ctx, 60*time.Second, clusterConds(name), kueuev1beta2.MultiKueueClusterActive, metav1.ConditionTrue)
			if err != nil {
				t.Fatalf("%s: MultiKueueCluster %s: %v", when, name, err)
			}
			t.Logf("%s: MultiKueueCluster %s Active=True reason=%s message=%q", when, name, c.Reason, c.Message)
		}
		c, err := waitCondition(ctx, 60*time.Second, checkConds, kueuev1beta2.AdmissionCheckActive, metav1.ConditionTrue)
		if err != nil {
			t.Fatalf("%s: AdmissionCheck: %v", when, err)
		}
		if c.Reason != "Active" {
			// SomeActiveClusters is also Active=True; wait for all of them.
			c, err = waitReason(ctx, checkConds, kueuev1beta2.AdmissionCheckActive, "Active")
			if err != nil {
				t.Fatalf("%s: AdmissionCheck: %v", when, err)
			}
		}
		t.Logf("%s: AdmissionCheck Active=True reason=%s message=%q", when, c.Reason, c.Message)
	}
	active("wired")
	t.Logf("wired and Active in %.1fs", time.Since(t1).Seconds())

	// A wrong token: the worker rejects it, so a MultiKueueCluster using it
	// must not become Active and must say why; the check stays partially
	// active with the good workers. Then the right token restores it.
	bad := "worker-2-bad"
	badSecret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: bad + "-kubeconfig", Namespace: kueueNamespace},
		Data:       map[string][]byte{kueuev1beta2.MultiKueueConfigSecretKey: workerKubeconfig(t, m.Workers[1], "not-a-token")},
	}
	if _, err := mgr.CoreV1().Secrets(kueueNamespace).Create(ctx, badSecret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	badCluster := &kueuev1beta2.MultiKueueCluster{
		ObjectMeta: metav1.ObjectMeta{Name: bad},
		Spec: kueuev1beta2.MultiKueueClusterSpec{ClusterSource: kueuev1beta2.ClusterSource{
			KubeConfig: &kueuev1beta2.KubeConfig{Location: badSecret.Name, LocationType: kueuev1beta2.SecretLocationType},
		}},
	}
	if _, err := mq.MultiKueueClusters().Create(ctx, badCluster, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := mq.MultiKueueConfigs().Get(ctx, cfg.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got.Spec.Clusters = append(got.Spec.Clusters, bad)
	if _, err := mq.MultiKueueConfigs().Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t2 := time.Now()
	c, err := waitCondition(ctx, 60*time.Second, clusterConds(bad), kueuev1beta2.MultiKueueClusterActive, metav1.ConditionFalse)
	if err != nil {
		t.Fatalf("wrong token: MultiKueueCluster %s: %v", bad, err)
	}
	t.Logf("wrong token: MultiKueueCluster %s Active=False reason=%s message=%q (after %.1fs)", bad, c.Reason, c.Message, time.Since(t2).Seconds())
	if c.Reason != "ClientConnectionFailed" || !strings.Contains(c.Message, "provide credentials") {
		t.Errorf("wrong token: want reason ClientConnectionFailed and a message about credentials, got %s %q", c.Reason, c.Message)
	}
	if c, err := waitReason(ctx, checkConds, kueuev1beta2.AdmissionCheckActive, "SomeActiveClusters"); err != nil {
		t.Errorf("wrong token: AdmissionCheck: %v", err)
	} else {
		t.Logf("wrong token: AdmissionCheck Active=%s reason=%s message=%q", c.Status, c.Reason, c.Message)
	}
	// It stays inactive across Kueue's reconnect attempts (5 s, 10 s, ...).
	time.Sleep(12 * time.Second)
	if conds, err := clusterConds(bad)(ctx); err != nil || meta.IsStatusConditionTrue(conds, kueuev1beta2.MultiKueueClusterActive) {
		t.Errorf("wrong token: MultiKueueCluster %s became Active after retries (err %v): %+v", bad, err, conds)
	}

	t3 := time.Now()
	s, err := mgr.CoreV1().Secrets(kueueNamespace).Get(ctx, badSecret.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data[kueuev1beta2.MultiKueueConfigSecretKey] = workerKubeconfig(t, m.Workers[1], tokens["worker-2"])
	if _, err := mgr.CoreV1().Secrets(kueueNamespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	clusters = append(clusters, bad)
	active("restored")
	t.Logf("restored to Active in %.1fs; test body %.1fs", time.Since(t3).Seconds(), time.Since(t1).Seconds())

	// Observed in Kueue v0.17: editing an Active cluster's Secret to a wrong
	// token is not reported. Kueue logs "failed to set kubeConfig in the
	// remote client" (the worker answers Unauthorized) yet the condition stays
	// Active=True "Connected". Likely cause: a failed setConfig keeps the new
	// config but does not mark the client as reconnecting, so the retry finds
	// the config unchanged and reports Connected. Recorded here, not
	// asserted, so a Kueue fix shows in the log.
	s, err = mgr.CoreV1().Secrets(kueueNamespace).Get(ctx, badSecret.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Data[kueuev1beta2.MultiKueueConfigSecretKey] = workerKubeconfig(t, m.Workers[1], "not-a-token-either")
	if _, err := mgr.CoreV1().Secrets(kueueNamespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	var seenFalse *metav1.Condition
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if conds, err := clusterConds(bad)(ctx); err == nil {
			if c := meta.FindStatusCondition(conds, kueuev1beta2.MultiKueueClusterActive); c != nil && c.Status == metav1.ConditionFalse && seenFalse == nil {
				seenFalse = c.DeepCopy()
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	conds, _ := clusterConds(bad)(ctx)
	t.Logf("token edited to a wrong one on an Active cluster: Active=False seen: %+v; after 15 s: %+v",
		seenFalse, meta.FindStatusCondition(conds, kueuev1beta2.MultiKueueClusterActive))
}

// logMultiKueue logs the manager's Kueue log lines about MultiKueue clusters.
func logMultiKueue(t *testing.T, manager *Env) {
	data, err := os.ReadFile(filepath.Join(manager.Dir, "logs", "kueue.log"))
	if err != nil {
		t.Log(err)
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "worker-2") || strings.Contains(line, "Reconciler error") {
			t.Log(line)
		}
	}
}
