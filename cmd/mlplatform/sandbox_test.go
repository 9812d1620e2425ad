package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/option"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/compute"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// The test binary doubles as the sandbox supervisor: `sandbox up` re-executes
// os.Executable() with "sandbox serve".
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "sandbox" && os.Args[2] == "serve" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseEnvFile(string(data))
}

// decodeSandboxJSON reads what --format json prints: one document of the
// documented shape, nothing else on stdout, no field it does not document.
func decodeSandboxJSON(t *testing.T, data []byte) SandboxJSON {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var got SandboxJSON
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("--format json printed no SandboxJSON (%v):\n%s", err, data)
	}
	if dec.More() {
		t.Fatalf("--format json printed more than one document:\n%s", data)
	}
	return got
}

func TestSandboxUpDown(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts the real control plane: run with TF_ACC=1 (make testacc)")
	}
	dir := filepath.Join(t.TempDir(), "sandbox")
	providerDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(providerDir, "terraform-provider-mlplatform"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// the project's GPU quotas in the sandbox's Compute Engine fake
	t.Setenv(SandboxQuotasEnv, "us-central1/PREEMPTIBLE_NVIDIA_H100_GPUS=16,global/GPUS_ALL_REGIONS=64")
	// --format json: the document alone on stdout, progress on stderr.
	var out, progress bytes.Buffer
	if code := run([]string{"sandbox", "up", "--dir", dir, "--provider-dir", providerDir, "--format", "json"}, &out, &progress); code != 0 {
		t.Fatalf("sandbox up exited %d:\n%s\n%s", code, progress.String(), out.String())
	}
	t.Log(progress.String(), out.String())
	supervisor, ok := readPid(filepath.Join(dir, pidFile))
	if !ok {
		t.Fatal("no supervisor pid file")
	}
	t.Cleanup(func() { _ = syscall.Kill(supervisor, syscall.SIGKILL) })

	env := readEnvFile(t, filepath.Join(dir, envFile))
	gke := SandboxGKEJSON{Project: testenv.DefaultProject, Location: testenv.DefaultLocation, Cluster: testenv.DefaultCluster,
		ContainerEndpoint: env["MLPLATFORM_CONTAINER_ENDPOINT"], IAMEndpoint: env["MLPLATFORM_IAM_ENDPOINT"]}
	want := SandboxJSON{FormatVersion: 1, Running: true, SupervisorPID: supervisor, Dir: dir, EnvFile: filepath.Join(dir, envFile),
		Clusters: []SandboxClusterJSON{{Name: "sandbox", Role: "single", Kubeconfig: env["KUBECONFIG"], GKE: gke}}}
	if diff := cmp.Diff(want, decodeSandboxJSON(t, out.Bytes())); diff != "" {
		t.Errorf("up --format json (-want +got):\n%s", diff)
	}
	if !strings.Contains(progress.String(), "sandbox ready") {
		t.Errorf("up --format json said nothing on stderr: %q", progress.String())
	}
	for _, k := range []string{"KUBECONFIG", "MLPLATFORM_CONTAINER_ENDPOINT", "MLPLATFORM_IAM_ENDPOINT", "MLPLATFORM_COMPUTE_ENDPOINT", "MLPLATFORM_PROJECT",
		"MLPLATFORM_LOCATION", "MLPLATFORM_CLUSTER", "TF_CLI_CONFIG_FILE", "MLPLATFORM_INSECURE_ENDPOINTS"} {
		if env[k] == "" {
			t.Errorf("env file lacks %s: %v", k, env)
		}
	}
	// Doctor's Compute Engine endpoint serves the quotas set above.
	cc, err := compute.New(context.Background(), option.WithEndpoint("http://"+env["MLPLATFORM_COMPUTE_ENDPOINT"]), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cc.Close() }()
	got := map[string]float64{}
	if r, err := cc.Region(context.Background(), env["MLPLATFORM_PROJECT"], "us-central1"); err != nil {
		t.Error(err)
	} else {
		for _, q := range r.GetQuotas() {
			if q.GetMetric() == "PREEMPTIBLE_NVIDIA_H100_GPUS" {
				got[q.GetMetric()] = q.GetLimit()
			}
		}
	}
	if pr, err := cc.Project(context.Background(), env["MLPLATFORM_PROJECT"]); err != nil {
		t.Error(err)
	} else {
		for _, q := range pr.GetQuotas() {
			if q.GetMetric() == "GPUS_ALL_REGIONS" {
				got[q.GetMetric()] = q.GetLimit()
			}
		}
	}
	if diff := cmp.Diff(map[string]float64{"PREEMPTIBLE_NVIDIA_H100_GPUS": 16, "GPUS_ALL_REGIONS": 64}, got); diff != "" {
		t.Errorf("%s in the sandbox's Compute Engine (-want +got):\n%s", SandboxQuotasEnv, diff)
	}
	rc, err := os.ReadFile(env["TF_CLI_CONFIG_FILE"])
	if err != nil || !strings.Contains(string(rc), `"registry.terraform.io/mlplatform/mlplatform" = "`+providerDir+`"`) {
		t.Errorf("terraformrc has no dev_overrides for %s: %s (%v)", providerDir, rc, err)
	}
	// The kubeconfig it wrote reaches a working apiserver.
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().Get(context.Background(), "kueue-system", metav1.GetOptions{}); err != nil {
		t.Errorf("sandbox apiserver: %v", err)
	}
	// A second up is a no-op that points at the running sandbox.
	out.Reset()
	if code := run([]string{"sandbox", "up", "--dir", dir, "--provider-dir", providerDir}, &out, &out); code != 0 || !strings.Contains(out.String(), "already running") {
		t.Errorf("second up: exit %d, %s", code, out.String())
	}

	children := map[string]int{}
	data, _ := os.ReadFile(filepath.Join(dir, childrenFile))
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, pid, _ := strings.Cut(line, " ")
		children[name], _ = strconv.Atoi(pid)
	}
	names := slices.Sorted(maps.Keys(children))
	if diff := cmp.Diff([]string{"etcd", "jobset", "kube-apiserver", "kube-controller-manager", "kueue"}, names); diff != "" {
		t.Errorf("children recorded %v (-want +got names):\n%s", children, diff)
	}

	out.Reset()
	if code := run([]string{"sandbox", "down", "--dir", dir}, &out, &out); code != 0 {
		t.Fatalf("sandbox down exited %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), "no process left running") {
		t.Errorf("down: %s", out.String())
	}
	for name, pid := range children {
		if alive(pid) {
			t.Errorf("%s (pid %d) still running after down", name, pid)
		}
	}
	if alive(supervisor) {
		t.Errorf("supervisor %d still running after down", supervisor)
	}
}

func TestParseSandboxFlags(t *testing.T) {
	t.Parallel()
	f, err := parseSandboxFlags([]string{"up"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.workers != 0 || f.timeout != 5*time.Minute || !filepath.IsAbs(f.dir) || filepath.Base(f.dir) != ".sandbox" ||
		!filepath.IsAbs(f.providerDir) || filepath.Base(f.providerDir) != "bin" {
		t.Errorf("defaults: %+v", f)
	}
	f, err = parseSandboxFlags([]string{"up", "--workers", "2", "--dir", "/tmp/sb", "--timeout", "1m"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if f.workers != 2 || f.dir != "/tmp/sb" || f.timeout != time.Minute {
		t.Errorf("--workers 2 --dir /tmp/sb --timeout 1m: %+v", f)
	}
	if f, err := parseSandboxFlags([]string{"serve", "--workers=3"}, io.Discard); err != nil || f.workers != 3 {
		t.Errorf("serve --workers=3: %+v, %v", f, err)
	}
	for _, bad := range []string{"-1", strconv.Itoa(len(testenv.WorkerLocations) + 1)} {
		if _, err := parseSandboxFlags([]string{"up", "--workers", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "--workers must be between 0 and") {
			t.Errorf("--workers %s: want a range error, got %v", bad, err)
		}
	}
	if _, err := parseSandboxFlags([]string{"up", "--workers", "two"}, io.Discard); err == nil {
		t.Error("--workers two accepted")
	}
	// Each subcommand takes its own flags; --format is text or json.
	for _, c := range []struct {
		args    []string
		wantErr string // "" accepted
		format  string
	}{
		{args: []string{"up"}, format: "text"},
		{args: []string{"up", "--format", "json"}, format: "json"},
		{args: []string{"status", "--format=json"}, format: "json"},
		{args: []string{"up", "--format", "yaml"}, wantErr: `--format must be text or json, got "yaml"`},
		{args: []string{"down", "--format", "json"}, wantErr: "flag provided but not defined: -format"},
		{args: []string{"down", "--workers", "1"}, wantErr: "flag provided but not defined: -workers"},
		{args: []string{"status", "--provider-dir", "bin"}, wantErr: "flag provided but not defined: -provider-dir"},
		{args: []string{"up", "now"}, wantErr: `sandbox up takes no arguments, got ["now"]`},
	} {
		f, err := parseSandboxFlags(c.args, io.Discard)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff(c.wantErr, got); diff != "" || (err == nil && f.format != c.format) {
			t.Errorf("%v: format %q, error (-want +got):\n%s", c.args, f.format, diff)
		}
	}
}

func TestClustersFile(t *testing.T) {
	t.Parallel()
	cs := []sandboxCluster{
		{"manager", "/s b/data/manager/kubeconfig", testenv.DefaultProject, testenv.DefaultLocation, testenv.DefaultCluster},
		{"worker-1", "/s b/data/worker-1/kubeconfig", testenv.DefaultProject, "europe-west4", "worker-1"},
	}
	if got := parseClusters(formatClusters(cs)); !reflect.DeepEqual(got, cs) {
		t.Errorf("round trip: %+v, want %+v", got, cs)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	printClusters(&out, dir)
	if out.Len() != 0 {
		t.Errorf("no clusters file (single cluster): printed %q", out.String())
	}
	if err := os.WriteFile(filepath.Join(dir, clustersFile), []byte(formatClusters(cs)), 0o600); err != nil {
		t.Fatal(err)
	}
	printClusters(&out, dir)
	for _, want := range []string{"manager", "/s b/data/manager/kubeconfig", "location us-central1 cluster training",
		"worker-1", "/s b/data/worker-1/kubeconfig", "location europe-west4 cluster worker-1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("printed clusters lack %q:\n%s", want, out.String())
		}
	}
}

// TestSandboxJSON: what up and status print with --format json, for a
// sandbox that is not running, a single cluster and one with workers, read
// back as the documented SandboxJSON.
func TestSandboxJSON(t *testing.T) {
	t.Parallel()
	env := func(kubeconfig, project, location, cluster string) string {
		return "# Written by `mlplatform sandbox up`\n" +
			"export KUBECONFIG=" + strconv.Quote(kubeconfig) + "\nexport MLPLATFORM_KUBECONFIG=" + strconv.Quote(kubeconfig) + "\n" +
			"export MLPLATFORM_PROJECT=" + strconv.Quote(project) + "\nexport MLPLATFORM_LOCATION=" + strconv.Quote(location) + "\n" +
			"export MLPLATFORM_CLUSTER=" + strconv.Quote(cluster) + "\n" +
			"export MLPLATFORM_CONTAINER_ENDPOINT=\"127.0.0.1:4711\"\nexport MLPLATFORM_IAM_ENDPOINT=\"127.0.0.1:4711\"\n"
	}
	fake := func(project, location, cluster string) SandboxGKEJSON {
		return SandboxGKEJSON{Project: project, Location: location, Cluster: cluster, ContainerEndpoint: "127.0.0.1:4711", IAMEndpoint: "127.0.0.1:4711"}
	}
	me := os.Getpid() // a live process stands for the supervisor
	for name, tc := range map[string]struct {
		files map[string]string // in the sandbox directory; DIR is replaced by it
		want  func(dir string) SandboxJSON
	}{
		"not running": {
			want: func(dir string) SandboxJSON {
				return SandboxJSON{FormatVersion: 1, Dir: dir, EnvFile: filepath.Join(dir, "env"), Clusters: []SandboxClusterJSON{}}
			},
		},
		"a stale pid file and no env file: not running": {
			files: map[string]string{pidFile: "999999999\n"},
			want: func(dir string) SandboxJSON {
				return SandboxJSON{FormatVersion: 1, Dir: dir, EnvFile: filepath.Join(dir, "env"), Clusters: []SandboxClusterJSON{}}
			},
		},
		"single cluster": {
			files: map[string]string{pidFile: strconv.Itoa(me), envFile: env("DIR/data/kubeconfig", "mlplatform-sandbox", "us-central1", "training")},
			want: func(dir string) SandboxJSON {
				return SandboxJSON{FormatVersion: 1, Running: true, SupervisorPID: me, Dir: dir, EnvFile: filepath.Join(dir, "env"),
					Clusters: []SandboxClusterJSON{{Name: "sandbox", Role: "single", Kubeconfig: dir + "/data/kubeconfig", GKE: fake("mlplatform-sandbox", "us-central1", "training")}}}
			},
		},
		"manager and two workers": {
			files: map[string]string{
				pidFile: strconv.Itoa(me),
				envFile: env("DIR/data/manager/kubeconfig", "mlplatform-sandbox", "us-central1", "training"),
				clustersFile: formatClusters([]sandboxCluster{
					{"manager", "DIR/data/manager/kubeconfig", "mlplatform-sandbox", "us-central1", "training"},
					{"worker-1", "DIR/data/worker-1/kubeconfig", "mlplatform-sandbox", "europe-west4", "worker-1"},
					{"worker-2", "DIR/data/worker-2/kubeconfig", "mlplatform-sandbox", "us-east4", "worker-2"},
				}),
			},
			want: func(dir string) SandboxJSON {
				return SandboxJSON{FormatVersion: 1, Running: true, SupervisorPID: me, Dir: dir, EnvFile: filepath.Join(dir, "env"),
					Clusters: []SandboxClusterJSON{
						{Name: "manager", Role: "manager", Kubeconfig: dir + "/data/manager/kubeconfig", GKE: fake("mlplatform-sandbox", "us-central1", "training")},
						{Name: "worker-1", Role: "worker", Kubeconfig: dir + "/data/worker-1/kubeconfig", GKE: fake("mlplatform-sandbox", "europe-west4", "worker-1")},
						{Name: "worker-2", Role: "worker", Kubeconfig: dir + "/data/worker-2/kubeconfig", GKE: fake("mlplatform-sandbox", "us-east4", "worker-2")},
					}}
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for f, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(strings.ReplaceAll(content, "DIR", dir)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			// Through the command, as a script runs it.
			var out, errOut bytes.Buffer
			if code := run([]string{"sandbox", "status", "--dir", dir, "--format", "json"}, &out, &errOut); code != 0 || errOut.Len() != 0 {
				t.Fatalf("status --format json: exit %d, stderr %q", code, errOut.String())
			}
			if diff := cmp.Diff(tc.want(dir), decodeSandboxJSON(t, out.Bytes())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSandboxJSONDocumented: the README's example of sandbox --format json
// is a SandboxJSON with every field, as the command writes it.
func TestSandboxJSONDocumented(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "`sandbox up --format json`")
	_, block, ok2 := strings.Cut(after, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("the README has no ```json example after `sandbox up --format json`")
	}
	doc := decodeSandboxJSON(t, []byte(block))
	again, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(block, string(again)+"\n"); diff != "" {
		t.Errorf("the README's example is not what sandbox --format json writes (a field missing, or out of order) (-README +written):\n%s", diff)
	}
	if len(doc.Clusters) < 2 || doc.Clusters[0].Role != "manager" || doc.Clusters[1].Role != "worker" {
		t.Errorf("the README's example should show a manager and a worker: %+v", doc.Clusters)
	}
}

func TestEnvFileToken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := &testenv.Env{Kubeconfig: "/k", Project: "p", Location: "l", Cluster: "c", GCP: fakegcp.New(), GoogleAccessToken: "tok"}
	for _, withWorkers := range []bool{false, true} {
		path := filepath.Join(dir, "env-"+strconv.FormatBool(withWorkers))
		if err := writeEnvFile(path, env, "/rc", withWorkers); err != nil {
			t.Fatal(err)
		}
		got, ok := readEnvFile(t, path)["GOOGLE_OAUTH_ACCESS_TOKEN"]
		if withWorkers != ok || (ok && got != "tok") {
			t.Errorf("withWorkers=%v: GOOGLE_OAUTH_ACCESS_TOKEN = %q (set %v)", withWorkers, got, ok)
		}
	}
}

// TestSandboxUpDownWorkers: `up --workers 1` starts a manager and a worker,
// prints both clusters, and `down` stops every process.
func TestSandboxUpDownWorkers(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts two real control planes: run with TF_ACC=1 (make testacc)")
	}
	dir := filepath.Join(t.TempDir(), "sandbox")
	providerDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(providerDir, "terraform-provider-mlplatform"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"sandbox", "up", "--dir", dir, "--provider-dir", providerDir, "--workers", "1"}, &out, &out); code != 0 {
		t.Fatalf("sandbox up --workers 1 exited %d:\n%s", code, out.String())
	}
	t.Log(out.String())
	supervisor, ok := readPid(filepath.Join(dir, pidFile))
	if !ok {
		t.Fatal("no supervisor pid file")
	}
	t.Cleanup(func() { _ = syscall.Kill(supervisor, syscall.SIGKILL) })
	for _, want := range []string{"manager", "location us-central1 cluster training", "worker-1", "location europe-west4 cluster worker-1",
		filepath.Join(dir, "data", "worker-1", "kubeconfig")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("up output lacks %q", want)
		}
	}
	env := readEnvFile(t, filepath.Join(dir, envFile))
	if env["KUBECONFIG"] != filepath.Join(dir, "data", "manager", "kubeconfig") || env["GOOGLE_OAUTH_ACCESS_TOKEN"] == "" {
		t.Errorf("env file: KUBECONFIG %q, GOOGLE_OAUTH_ACCESS_TOKEN set %v", env["KUBECONFIG"], env["GOOGLE_OAUTH_ACCESS_TOKEN"] != "")
	}
	data, _ := os.ReadFile(filepath.Join(dir, clustersFile))
	cs := parseClusters(string(data))
	if len(cs) != 2 {
		t.Fatalf("clusters file: %q", data)
	}
	for _, c := range cs {
		cfg, err := clientcmd.BuildConfigFromFlags("", c.kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().Get(context.Background(), "kueue-system", metav1.GetOptions{}); err != nil {
			t.Errorf("%s apiserver: %v", c.name, err)
		}
	}
	out.Reset()
	if code := run([]string{"sandbox", "status", "--dir", dir}, &out, &out); code != 0 || !strings.Contains(out.String(), "worker-1") {
		t.Errorf("status: exit %d, %s", code, out.String())
	}
	// What a script reads: status --format json, parsed.
	out.Reset()
	var errOut bytes.Buffer
	if code := run([]string{"sandbox", "status", "--dir", dir, "--format", "json"}, &out, &errOut); code != 0 {
		t.Fatalf("status --format json: exit %d, %s", code, errOut.String())
	}
	gke := func(location, cluster string) SandboxGKEJSON {
		return SandboxGKEJSON{Project: testenv.DefaultProject, Location: location, Cluster: cluster,
			ContainerEndpoint: env["MLPLATFORM_CONTAINER_ENDPOINT"], IAMEndpoint: env["MLPLATFORM_IAM_ENDPOINT"]}
	}
	want := SandboxJSON{FormatVersion: 1, Running: true, SupervisorPID: supervisor, Dir: dir, EnvFile: filepath.Join(dir, envFile),
		Clusters: []SandboxClusterJSON{
			{Name: "manager", Role: "manager", Kubeconfig: filepath.Join(dir, "data", "manager", "kubeconfig"), GKE: gke(testenv.DefaultLocation, testenv.DefaultCluster)},
			{Name: "worker-1", Role: "worker", Kubeconfig: filepath.Join(dir, "data", "worker-1", "kubeconfig"), GKE: gke("europe-west4", "worker-1")},
		}}
	if diff := cmp.Diff(want, decodeSandboxJSON(t, out.Bytes())); diff != "" {
		t.Errorf("status --format json (-want +got):\n%s", diff)
	}

	var pids []int
	data, _ = os.ReadFile(filepath.Join(dir, childrenFile))
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		_, pid, _ := strings.Cut(line, " ")
		n, _ := strconv.Atoi(pid)
		pids = append(pids, n)
	}
	if len(pids) != 10 {
		t.Errorf("want 10 children recorded (5 per cluster: etcd, kube-apiserver, kube-controller-manager, jobset, kueue), got %d: %s", len(pids), data)
	}
	out.Reset()
	if code := run([]string{"sandbox", "down", "--dir", dir}, &out, &out); code != 0 || !strings.Contains(out.String(), "no process left running") {
		t.Fatalf("sandbox down: exit %d, %s", code, out.String())
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d still running after down", pid)
		}
	}
	if alive(supervisor) {
		t.Errorf("supervisor %d still running after down", supervisor)
	}
}
