package testenv

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"golang.org/x/oauth2"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
)

// TestTokenFileLine reads the record the way kube-apiserver's
// --token-auth-file reader does (encoding/csv, at least 3 columns, the 4th
// split on commas into groups).
func TestTokenFileLine(t *testing.T) {
	t.Parallel()
	tok := randomToken()
	if tok == randomToken() || strings.ContainsAny(tok, ",\" \n") {
		t.Fatalf("randomToken %q: not fresh or not CSV-safe", tok)
	}
	r := csv.NewReader(strings.NewReader(tokenFileLine(tok)))
	r.FieldsPerRecord = -1
	records, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != 1 || len(records[0]) != 4 {
		t.Fatalf("records %q, want one with 4 columns", records)
	}
	rec := records[0]
	if rec[0] != tok || rec[1] != GoogleUser || rec[2] == "" {
		t.Errorf("token, user, uid = %q, %q, %q", rec[0], rec[1], rec[2])
	}
	if groups := strings.Split(rec[3], ","); len(groups) != 1 || groups[0] != "system:masters" {
		t.Errorf("groups %q, want [system:masters]", groups)
	}
}

func TestStartRefusesAnUnsafeToken(t *testing.T) {
	t.Parallel()
	for _, tok := range []string{"a,b", `a"b`, "a b", "a\nb"} {
		_, err := Start(context.Background(), Options{BinDir: t.TempDir(), GoogleAccessToken: tok})
		if err == nil || !strings.Contains(err.Error(), "GoogleAccessToken") {
			t.Errorf("token %q: want an error about GoogleAccessToken, got %v", tok, err)
		}
	}
}

func TestStartMultiTooManyWorkers(t *testing.T) {
	t.Parallel()
	_, err := StartMulti(context.Background(), Options{BinDir: t.TempDir()}, len(WorkerLocations)+1)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("at most %d workers", len(WorkerLocations))) {
		t.Fatalf("want an error naming the worker limit, got %v", err)
	}
}

// TestStartMultiNeedsBinaries: a missing binary is reported before any
// environment or the fake starts.
func TestStartMultiNeedsBinaries(t *testing.T) {
	t.Parallel()
	_, err := StartMulti(context.Background(), Options{BinDir: t.TempDir()}, 2)
	if err == nil || !strings.Contains(err.Error(), "kube-apiserver is missing") {
		t.Fatalf("want an error naming the missing binaries, got %v", err)
	}
}

func TestWorkerLocationsDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{DefaultLocation: true}
	for i, l := range WorkerLocations {
		if seen[l] {
			t.Errorf("location %s used twice", l)
		}
		seen[l] = true
		if WorkerName(i+1) != fmt.Sprintf("worker-%d", i+1) {
			t.Errorf("WorkerName(%d) = %s", i+1, WorkerName(i+1))
		}
	}
	if WorkerLocations[0] != "europe-west4" || WorkerLocations[1] != "us-east4" {
		t.Errorf("worker-1 and worker-2 must be in europe-west4 and us-east4, got %v", WorkerLocations[:2])
	}
}

// TestEnvStopLeavesASharedFake: an Env that does not own its fake (a
// Multi's) leaves it serving; Multi.Stop stops it.
func TestEnvStopLeavesASharedFake(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	srv.Container.AddCluster(DefaultProject, DefaultLocation, DefaultCluster, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cm, err := container.NewClusterManagerClient(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cm.Close() }()
	name := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", DefaultProject, DefaultLocation, DefaultCluster)
	shared := &Env{GCP: srv}
	m := &Multi{Manager: shared, Workers: []*Env{{GCP: srv}, nil}, gcp: srv}
	shared.Stop()
	m.Workers[0].Stop()
	if _, err := cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: name}); err != nil {
		t.Fatalf("the shared fake stopped with an Env: %v", err)
	}
	m.Stop() // stops the fake once; the Envs' Stop already ran
	if srv.Addr() == "" {
		t.Fatal("no address")
	}
	if err := srv.Start("127.0.0.1:0"); err == nil {
		t.Error("the fake could start again: Multi.Stop did not stop it")
	}
}

func TestStopProcessUnknown(t *testing.T) {
	t.Parallel()
	e := &Env{}
	if err := e.StopProcess("kube-apiserver"); err == nil || !strings.Contains(err.Error(), `no process "kube-apiserver"`) {
		t.Errorf("want an error naming the process, got %v", err)
	}
}

// TestMultiGKEAccess checks the one GKE fake of a Multi the way the
// provider's GKE path uses it: read each cluster through the official
// client, build its rest.Config with gke.RESTForCluster and a Google access
// token, and reach that environment's kube-apiserver as a cluster admin; a
// wrong token is refused. Then one worker's kube-apiserver is stopped: that
// worker is unreachable, the others and the fake still answer, and Stop
// cleans up.
func TestMultiGKEAccess(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts three real control planes: run with TF_ACC=1 (make testacc)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t0 := time.Now()
	m, err := StartMulti(ctx, Options{Log: logWriter{t}, WithoutKueue: true, WithoutJobSet: true, WithoutControllerManager: true}, 2)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			m.Stop()
		}
	}()
	t.Logf("manager and %d workers started in %.1fs", len(m.Workers), time.Since(t0).Seconds())

	want := []struct{ location, cluster string }{
		{DefaultLocation, DefaultCluster}, {"europe-west4", "worker-1"}, {"us-east4", "worker-2"},
	}
	cm, err := container.NewClusterManagerClient(ctx, m.Manager.GCP.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cm.Close() }()
	list, err := cm.ListClusters(ctx, &containerpb.ListClustersRequest{Parent: "projects/" + DefaultProject + "/locations/-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Clusters) != 3 {
		t.Errorf("the fake holds %d clusters, want 3: %v", len(list.Clusters), list.Clusters)
	}
	clusterOf := func(e *Env) *containerpb.Cluster {
		t.Helper()
		cl, err := cm.GetCluster(ctx, &containerpb.GetClusterRequest{
			Name: fmt.Sprintf("projects/%s/locations/%s/clusters/%s", e.Project, e.Location, e.Cluster),
		})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	clientFor := func(cl *containerpb.Cluster, token string) *kubernetes.Clientset {
		t.Helper()
		cfg, err := gke.RESTForCluster(cl, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: token}))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Timeout = 10 * time.Second
		return kubernetes.NewForConfigOrDie(cfg)
	}
	for i, e := range m.Envs() {
		if e.GCP != m.Manager.GCP {
			t.Errorf("%s: its own GKE fake; want the manager's", e.Cluster)
		}
		if e.GoogleAccessToken != m.Manager.GoogleAccessToken || e.GoogleAccessToken == "" {
			t.Errorf("%s: access token %q differs from the manager's", e.Cluster, e.GoogleAccessToken)
		}
		if e.Project != DefaultProject || e.Location != want[i].location || e.Cluster != want[i].cluster {
			t.Errorf("env %d is %s/%s/%s, want %s/%s/%s", i, e.Project, e.Location, e.Cluster, DefaultProject, want[i].location, want[i].cluster)
		}
		cl := clusterOf(e)
		if "https://"+cl.Endpoint != e.REST.Host {
			t.Errorf("%s: endpoint %q, want the kube-apiserver's %s", e.Cluster, cl.Endpoint, e.REST.Host)
		}
		core := clientFor(cl, e.GoogleAccessToken)
		ns, err := core.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Errorf("%s: list namespaces with the Google token: %v", e.Cluster, err)
			continue
		}
		review, err := core.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			t.Errorf("%s: SelfSubjectReview: %v", e.Cluster, err)
		} else if u := review.Status.UserInfo; u.Username != GoogleUser || !strings.Contains(strings.Join(u.Groups, ","), "system:masters") {
			t.Errorf("%s: the token authenticates as %q in %v, want %s in system:masters", e.Cluster, u.Username, u.Groups, GoogleUser)
		}
		t.Logf("%s (%s): %d namespaces through gke.RESTForCluster at %s", e.Cluster, e.Location, len(ns.Items), cl.Endpoint)
		_, err = clientFor(cl, "ya29.not-the-token").CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if !apierrors.IsUnauthorized(err) {
			t.Errorf("%s: a wrong token: got %v, want 401 Unauthorized", e.Cluster, err)
		}
	}

	// An unreachable worker: only its kube-apiserver stops.
	w2 := m.Workers[1]
	pids := map[string]int{}
	for _, e := range m.Envs() {
		for name, pid := range e.Processes() {
			pids[e.Cluster+"/"+name] = pid
		}
	}
	if err := w2.StopAPIServer(); err != nil {
		t.Fatal(err)
	}
	if syscall.Kill(pids["worker-2/etcd"], 0) != nil {
		t.Error("worker-2's etcd stopped with its kube-apiserver")
	}
	_, err = clientFor(clusterOf(w2), w2.GoogleAccessToken).CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("worker-2 after StopAPIServer: got %v, want connection refused", err)
	}
	if _, err := clientFor(clusterOf(m.Workers[0]), m.Workers[0].GoogleAccessToken).CoreV1().Namespaces().List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("worker-1 after stopping worker-2's kube-apiserver: %v", err)
	}

	t1 := time.Now()
	m.Stop()
	stopped = true
	t.Logf("stopped in %.1fs", time.Since(t1).Seconds())
	for name, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("%s (pid %d) still running after Stop", name, pid)
		}
	}
	if err := m.Manager.GCP.Start("127.0.0.1:0"); err == nil {
		t.Error("the shared GKE fake was not stopped")
	}
}
