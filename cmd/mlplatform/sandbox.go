package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// The sandbox is one supervisor process (`mlplatform sandbox serve`, started
// detached by `up`) that owns the whole environment: the control-plane
// processes are its children with a parent-death signal, and the GKE/IAM fake
// runs inside it. `down` stops the supervisor, which stops the rest; any
// recorded child still alive afterwards is killed.
//
// Files in the sandbox directory:
//
//	env            shell exports for terraform and kubectl (written when ready)
//	clusters       with --workers: name, kubeconfig, project, location, cluster (tab-separated) per cluster
//	terraformrc    Terraform CLI config with dev_overrides for the built provider
//	supervisor.pid the supervisor's pid
//	children       "name pid" per child process
//	sandbox.log    the supervisor's log; data/logs/*.log the children's
const (
	envFile      = "env"
	tfrcFile     = "terraformrc"
	pidFile      = "supervisor.pid"
	childrenFile = "children"
	logFile      = "sandbox.log"
	clustersFile = "clusters"
	failedFile   = "failed"
)

// sandboxFlags are the flags of the sandbox subcommands; dir and
// providerDir are absolute.
type sandboxFlags struct {
	dir, providerDir string
	timeout          time.Duration
	workers          int    // 0: one cluster; N: a MultiKueue manager and N workers
	format           string // up and status: "text" or "json" (sandboxJSON)
}

// parseSandboxFlags parses a subcommand's flags: each subcommand defines only
// the flags it uses (its --help lists them; the top-level usage names them).
func parseSandboxFlags(args []string, stderr io.Writer) (sandboxFlags, error) {
	fs := flag.NewFlagSet("sandbox "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".sandbox", "directory for the sandbox's state, logs and env file")
	providerDir, timeout, workers, format := new("bin"), new(5*time.Minute), new(0), new("text")
	if args[0] == "up" || args[0] == "serve" {
		fs.StringVar(providerDir, "provider-dir", *providerDir, "directory holding terraform-provider-mlplatform (for dev_overrides)")
		fs.IntVar(workers, "workers", 0, fmt.Sprintf("also start this many MultiKueue worker clusters (at most %d), "+
			"each its own control plane and cluster in the one GKE fake; 0: the single cluster", len(testenv.WorkerLocations)))
	}
	if args[0] == "up" {
		fs.DurationVar(timeout, "timeout", *timeout, "how long to wait for the sandbox to be ready")
	}
	if args[0] == "up" || args[0] == "status" {
		fs.StringVar(format, "format", *format, "text, or json: one JSON document on stdout with each cluster's kubeconfig and GKE project, "+
			"location, cluster and endpoints (up's progress then goes to stderr)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return sandboxFlags{}, err
	}
	if fs.NArg() > 0 {
		return sandboxFlags{}, fmt.Errorf("sandbox %s takes no arguments, got %q", args[0], fs.Args())
	}
	if *workers < 0 || *workers > len(testenv.WorkerLocations) {
		return sandboxFlags{}, fmt.Errorf("--workers must be between 0 and %d, got %d", len(testenv.WorkerLocations), *workers)
	}
	if *format != "text" && *format != "json" {
		return sandboxFlags{}, fmt.Errorf("--format must be text or json, got %q", *format)
	}
	f := sandboxFlags{timeout: *timeout, workers: *workers, format: *format}
	var err error
	if f.dir, err = filepath.Abs(*dir); err != nil {
		return sandboxFlags{}, err
	}
	if f.providerDir, err = filepath.Abs(*providerDir); err != nil {
		return sandboxFlags{}, err
	}
	return f, nil
}

func sandboxCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("sandbox needs a subcommand: up, down or status")
	}
	f, err := parseSandboxFlags(args, stderr)
	if err != nil {
		return err
	}
	switch args[0] {
	case "up":
		if f.format == "json" {
			// stdout holds the JSON document alone; what up says on the
			// way goes to stderr.
			if err := sandboxUp(f, stderr); err != nil {
				return err
			}
			return printSandboxJSON(stdout, f.dir)
		}
		return sandboxUp(f, stdout)
	case "down":
		return sandboxDown(f.dir, stdout)
	case "status":
		if f.format == "json" {
			return printSandboxJSON(stdout, f.dir)
		}
		return sandboxStatus(f.dir, stdout)
	case "serve":
		return sandboxServe(f, stdout)
	}
	return fmt.Errorf("unknown sandbox subcommand %q: use up, down or status", args[0])
}

func readPid(path string) (int, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid, err == nil && pid > 0
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func sandboxStatus(dir string, stdout io.Writer) error {
	if pid, ok := readPid(filepath.Join(dir, pidFile)); ok && alive(pid) {
		fmt.Fprintf(stdout, "sandbox running (supervisor pid %d)\nenv file: %s\n", pid, filepath.Join(dir, envFile))
		printClusters(stdout, dir)
		return nil
	}
	fmt.Fprintf(stdout, "no sandbox running in %s\n", dir)
	return nil
}

func sandboxUp(f sandboxFlags, stdout io.Writer) error {
	dir, providerDir, timeout := f.dir, f.providerDir, f.timeout
	if pid, ok := readPid(filepath.Join(dir, pidFile)); ok && alive(pid) {
		fmt.Fprintf(stdout, "sandbox already running (supervisor pid %d)\nsource %s\n", pid, filepath.Join(dir, envFile))
		return nil
	}
	if _, err := os.Stat(filepath.Join(providerDir, "terraform-provider-mlplatform")); err != nil {
		return fmt.Errorf("no terraform-provider-mlplatform in %s: build it first (make build)", providerDir)
	}
	if os.Getenv(testenv.EnvBins) == "" {
		return fmt.Errorf("%s is not set: run scripts/tools.sh (make tools) and source the tools.env it writes", testenv.EnvBins)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(dir, logFile))
	if err != nil {
		return err
	}
	defer func() { _ = logf.Close() }() // the supervisor holds its own copy and writes the log
	cmd := exec.Command(self, "sandbox", "serve", "--dir", dir, "--provider-dir", providerDir, "--workers", strconv.Itoa(f.workers))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // outlives this command and its terminal
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the sandbox supervisor: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	fmt.Fprintf(stdout, "starting the sandbox (supervisor pid %d, log %s)...\n", cmd.Process.Pid, filepath.Join(dir, logFile))
	deadline := time.After(timeout)
	for {
		if _, err := os.Stat(filepath.Join(dir, envFile)); err == nil {
			fmt.Fprintf(stdout, "sandbox ready in %.1fs\n  kube-apiserver, etcd, kube-controller-manager, the JobSet controller, Kueue manager and the GKE/IAM fake are running\n"+
				"  to use it: source %s\n  to stop it: mlplatform sandbox down --dir %s\n",
				time.Since(t0).Seconds(), filepath.Join(dir, envFile), dir)
			printClusters(stdout, dir)
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("the sandbox failed to start (%v):\n%s", err, readTail(filepath.Join(dir, logFile), 30))
		case <-deadline:
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			werr := <-exited
			return fmt.Errorf("the sandbox was not ready after %v; stopped it (%v). Its log:\n%s", timeout, werr, readTail(filepath.Join(dir, logFile), 30))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func readTail(path string, n int) string {
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// sandboxCluster is one cluster of a sandbox with workers, as the clusters
// file records it.
type sandboxCluster struct {
	name, kubeconfig, project, location, cluster string
}

func clustersOf(m *testenv.Multi) []sandboxCluster {
	out := []sandboxCluster{}
	for i, e := range m.Envs() {
		name := "manager"
		if i > 0 {
			name = testenv.WorkerName(i)
		}
		out = append(out, sandboxCluster{name, e.Kubeconfig, e.Project, e.Location, e.Cluster})
	}
	return out
}

func formatClusters(cs []sandboxCluster) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\n", c.name, c.kubeconfig, c.project, c.location, c.cluster)
	}
	return b.String()
}

func parseClusters(data string) []sandboxCluster {
	var out []sandboxCluster
	for _, line := range strings.Split(strings.TrimSpace(data), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 5 {
			out = append(out, sandboxCluster{f[0], f[1], f[2], f[3], f[4]})
		}
	}
	return out
}

// printClusters lists the clusters of a sandbox with workers (nothing for a
// single-cluster one), so provider aliases can be pointed at each: by
// kubeconfig, or by project, location and cluster through the GKE fake.
func printClusters(stdout io.Writer, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, clustersFile))
	if err != nil {
		return
	}
	cs := parseClusters(string(data))
	if len(cs) == 0 {
		return
	}
	fmt.Fprintln(stdout, "  clusters (kubeconfig, or GKE project/location/cluster through the fake with GOOGLE_OAUTH_ACCESS_TOKEN from the env file):")
	for _, c := range cs {
		fmt.Fprintf(stdout, "    %-9s kubeconfig %s\n              GKE project %s location %s cluster %s\n",
			c.name, c.kubeconfig, c.project, c.location, c.cluster)
	}
}

// SandboxJSON is what `mlplatform sandbox up --format json` and `sandbox
// status --format json` print on stdout: one JSON document (the README's
// "The local sandbox" documents it). Fields are added, never changed or
// removed, within one format_version.
type SandboxJSON struct {
	FormatVersion int  `json:"format_version"` // 1
	Running       bool `json:"running"`
	// SupervisorPID is the process `sandbox down` stops; 0 when not running.
	SupervisorPID int `json:"supervisor_pid"`
	// Dir is the sandbox directory; EnvFile the shell exports to source
	// (the manager's cluster with workers, and GOOGLE_OAUTH_ACCESS_TOKEN).
	Dir     string `json:"dir"`
	EnvFile string `json:"env_file"`
	// Clusters: the single cluster, or the manager then each worker; empty
	// when not running.
	Clusters []SandboxClusterJSON `json:"clusters"`
}

// SandboxClusterJSON is one cluster of the sandbox: what a provider block
// needs to reach it, by kubeconfig or through the GKE fake.
type SandboxClusterJSON struct {
	// Name is "sandbox" for the single cluster, else "manager" or
	// "worker-N"; Role is "single", "manager" or "worker".
	Name       string         `json:"name"`
	Role       string         `json:"role"`
	Kubeconfig string         `json:"kubeconfig"`
	GKE        SandboxGKEJSON `json:"gke"`
}

// SandboxGKEJSON is the cluster in the GKE fake: a provider block's project,
// location and cluster, and container_endpoint and iam_endpoint (with
// insecure_endpoints = true; the fake serves every cluster).
type SandboxGKEJSON struct {
	Project           string `json:"project"`
	Location          string `json:"location"`
	Cluster           string `json:"cluster"`
	ContainerEndpoint string `json:"container_endpoint"`
	IAMEndpoint       string `json:"iam_endpoint"`
}

// sandboxJSONVersion is SandboxJSON's format_version.
const sandboxJSONVersion = 1

// sandboxState reads a sandbox directory: its env file (the single or
// manager cluster, the fake's endpoints) and clusters file (the workers).
func sandboxState(dir string) SandboxJSON {
	out := SandboxJSON{FormatVersion: sandboxJSONVersion, Dir: dir, EnvFile: filepath.Join(dir, envFile), Clusters: []SandboxClusterJSON{}}
	pid, ok := readPid(filepath.Join(dir, pidFile))
	data, err := os.ReadFile(out.EnvFile)
	if !ok || !alive(pid) || err != nil {
		return out
	}
	out.Running, out.SupervisorPID = true, pid
	env := parseEnvFile(string(data))
	gke := func(project, location, cluster string) SandboxGKEJSON {
		return SandboxGKEJSON{project, location, cluster, env["MLPLATFORM_CONTAINER_ENDPOINT"], env["MLPLATFORM_IAM_ENDPOINT"]}
	}
	clusters, _ := os.ReadFile(filepath.Join(dir, clustersFile))
	cs := parseClusters(string(clusters))
	if len(cs) == 0 {
		out.Clusters = append(out.Clusters, SandboxClusterJSON{Name: "sandbox", Role: "single", Kubeconfig: env["KUBECONFIG"],
			GKE: gke(env["MLPLATFORM_PROJECT"], env["MLPLATFORM_LOCATION"], env["MLPLATFORM_CLUSTER"])})
	}
	for _, c := range cs {
		role := "worker"
		if c.name == "manager" {
			role = "manager"
		}
		out.Clusters = append(out.Clusters, SandboxClusterJSON{Name: c.name, Role: role, Kubeconfig: c.kubeconfig, GKE: gke(c.project, c.location, c.cluster)})
	}
	return out
}

func printSandboxJSON(stdout io.Writer, dir string) error {
	b, err := json.MarshalIndent(sandboxState(dir), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// parseEnvFile reads the exports writeEnvFile writes.
func parseEnvFile(data string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(data, "\n") {
		line, ok := strings.CutPrefix(line, "export ")
		if !ok {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		out[k] = v
	}
	return out
}

// startSandbox starts the single environment, or a Multi with workers. It
// returns the environment the env file describes (the manager's with
// workers), every environment, and how to stop them all.
func startSandbox(ctx context.Context, dir string, workers int, stdout io.Writer) (*testenv.Env, []*testenv.Env, []sandboxCluster, func(), error) {
	opts := testenv.Options{Dir: filepath.Join(dir, "data"), Log: stdout}
	if workers == 0 {
		env, err := testenv.Start(ctx, opts)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		return env, []*testenv.Env{env}, nil, env.Stop, nil
	}
	m, err := testenv.StartMulti(ctx, opts, workers)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return m.Manager, m.Envs(), clustersOf(m), m.Stop, nil
}

// SandboxQuotasEnv sets the sandbox project's GPU quotas in the Compute
// Engine fake: REGION/METRIC=LIMIT, comma-separated, "global" for the
// project's own (GPUS_ALL_REGIONS).
const SandboxQuotasEnv = "MLPLATFORM_SANDBOX_GPU_QUOTAS"

// sandboxServe is the supervisor: start, publish the env file, wait for a
// signal, stop.
func sandboxServe(f sandboxFlags, stdout io.Writer) error {
	dir, providerDir := f.dir, f.providerDir
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	defer func() { _ = os.Remove(filepath.Join(dir, pidFile)) }() // gone already when `sandbox down` removed it
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-sig; cancel() }() // a signal during start-up aborts it
	env, envs, clusters, stop, err := startSandbox(ctx, dir, f.workers, stdout)
	if err != nil {
		return err
	}
	// The project's GPU quotas in the Compute Engine fake (doctor's DOC024):
	// its defaults fit the examples; MLPLATFORM_SANDBOX_GPU_QUOTAS sets
	// others, e.g. "us-central1/PREEMPTIBLE_NVIDIA_H100_GPUS=16,global/GPUS_ALL_REGIONS=64".
	if q := os.Getenv(SandboxQuotasEnv); q != "" {
		if err := env.GCP.Compute.SetQuotas(env.Project, q); err != nil {
			stop()
			return fmt.Errorf("%s: %w", SandboxQuotasEnv, err)
		}
	}
	defer func() {
		fmt.Fprintln(stdout, "stopping the sandbox")
		stop()
		for _, e := range envs {
			_ = os.RemoveAll(filepath.Join(e.Dir, "etcd"))
		}
		fmt.Fprintln(stdout, "sandbox stopped")
	}()
	var children strings.Builder
	for _, e := range envs {
		for name, pid := range e.Processes() {
			fmt.Fprintf(&children, "%s %d\n", name, pid)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, childrenFile), []byte(children.String()), 0o600); err != nil {
		return err
	}
	if clusters != nil {
		if err := os.WriteFile(filepath.Join(dir, clustersFile), []byte(formatClusters(clusters)), 0o600); err != nil {
			return err
		}
	}
	tfrc := filepath.Join(dir, tfrcFile)
	if err := os.WriteFile(tfrc, []byte(testenv.TerraformRC(providerDir)), 0o600); err != nil {
		return err
	}
	if err := writeEnvFile(filepath.Join(dir, envFile), env, tfrc, clusters != nil); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "sandbox ready")
	<-ctx.Done()
	return nil
}

// writeEnvFile writes the exports for env. With workers it also exports
// GOOGLE_OAUTH_ACCESS_TOKEN (the provider's access_token), the token every
// sandbox kube-apiserver accepts, so the provider reaches a worker through
// the GKE fake's endpoint and CA as it would a GKE cluster.
func writeEnvFile(path string, env *testenv.Env, tfrc string, withWorkers bool) error {
	vars := [][2]string{
		{"KUBECONFIG", env.Kubeconfig},
		{"MLPLATFORM_KUBECONFIG", env.Kubeconfig},
		{"MLPLATFORM_PROJECT", env.Project},
		{"MLPLATFORM_LOCATION", env.Location},
		{"MLPLATFORM_CLUSTER", env.Cluster},
		{"MLPLATFORM_CONTAINER_ENDPOINT", env.GCP.Addr()},
		{"MLPLATFORM_IAM_ENDPOINT", env.GCP.Addr()},
		{"MLPLATFORM_COMPUTE_ENDPOINT", env.GCP.ComputeAddr()}, // doctor's GPU quota and subnetwork reads
		{"MLPLATFORM_INSECURE_ENDPOINTS", "true"},
		{"TF_CLI_CONFIG_FILE", tfrc},
		{"CHECKPOINT_DISABLE", "1"},
	}
	if withWorkers {
		vars = append(vars, [2]string{"GOOGLE_OAUTH_ACCESS_TOKEN", env.GoogleAccessToken})
	}
	var b strings.Builder
	b.WriteString("# Written by `mlplatform sandbox up`; source it to point terraform and kubectl at the sandbox.\n")
	for _, v := range vars {
		fmt.Fprintf(&b, "export %s=%s\n", v[0], strconv.Quote(v[1]))
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path) // appears whole: `up` waits for it
}

func sandboxDown(dir string, stdout io.Writer) error {
	pid, ok := readPid(filepath.Join(dir, pidFile))
	if ok && alive(pid) {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		deadline := time.Now().Add(60 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if alive(pid) {
			fmt.Fprintf(stdout, "supervisor %d did not stop within 60s; killing it\n", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	// Belt and braces: kill any recorded child that is somehow still alive.
	killed := killStrays(filepath.Join(dir, childrenFile))
	_ = os.Remove(filepath.Join(dir, envFile))
	_ = os.Remove(filepath.Join(dir, childrenFile))
	_ = os.Remove(filepath.Join(dir, clustersFile))
	switch {
	case !ok && len(killed) == 0:
		fmt.Fprintf(stdout, "no sandbox running in %s\n", dir)
	case len(killed) > 0:
		fmt.Fprintf(stdout, "sandbox stopped; killed leftover processes: %s\n", strings.Join(killed, ", "))
	default:
		fmt.Fprintln(stdout, "sandbox stopped; no process left running")
	}
	return nil
}

func killStrays(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var killed []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, pidStr, found := strings.Cut(line, " ")
		pid, err := strconv.Atoi(pidStr)
		if !found || err != nil || !alive(pid) {
			continue
		}
		// Only if the pid still belongs to that program (pids are reused).
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil || filepath.Base(exe) != name {
			continue
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		killed = append(killed, fmt.Sprintf("%s (%d)", name, pid))
	}
	return killed
}
