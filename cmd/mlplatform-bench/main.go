// Command mlplatform-bench is `make bench`: for each number of teams it starts
// a local control plane (internal/testenv, with kube-apiserver's audit log on)
// and applies the generated platform (internal/bench.Config) to it, then runs
// `terraform plan` on each in turn, repeatedly, each followed by a plan of
// Terraform alone (internal/bench.Baseline), and measures wall time, CPU, the
// provider's CPU and peak RSS (through internal/bench/rsswrap, registered with
// dev_overrides) and the provider's requests as the servers count them. It
// prints one Markdown table and the provider's CPU per resource instance
// against Terraform alone's wall time per instance, writes them to
// bench/results/<date>-<commit>.md and bench/LATEST.md, and exits non-zero
// when a post-apply plan is not empty or an exit criterion (request budget, no
// discovery, peak RSS) fails. See bench/README.md.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/bench"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// userAgent is how the provider's requests are told from Kueue's and the
// controller manager's in the audit log (provider.Configure sets it).
const userAgent = "terraform-provider-mlplatform/"

func main() {
	teams := flag.String("teams", "10,50,100", "numbers of teams, ascending; the ratios compare the last with the first")
	runs := flag.Int("runs", 5, "measured plans per number of teams (after one warm-up plan)")
	out := flag.String("out", "bench", "directory for results/<date>-<commit>.md and LATEST.md (\"\" to write nothing)")
	provider := flag.String("provider", "bin/terraform-provider-mlplatform", "the provider binary to measure (e.g. one built at another commit, to compare)")
	printConfig := flag.Int("print-config", 0, "only print the generated configuration of this many teams (e.g. to apply it to the sandbox)")
	flag.Parse()
	if *printConfig > 0 {
		files, err := exampleAt(*printConfig)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mlplatform-bench:", err)
			os.Exit(1)
		}
		for _, name := range slices.Sorted(maps.Keys(files)) {
			fmt.Printf("# ---- %s\n%s\n", name, files[name])
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := run(ctx, *teams, *runs, *provider)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	md := res.Markdown()
	fmt.Println()
	fmt.Print(md)
	if *out != "" {
		name := filepath.Join(*out, "results", res.Date+"-"+res.Commit+".md")
		werr := os.MkdirAll(filepath.Dir(name), 0o755)
		if werr == nil {
			werr = errors.Join(os.WriteFile(name, []byte(md), 0o644), os.WriteFile(filepath.Join(*out, "LATEST.md"), []byte(md), 0o644))
		}
		if werr != nil {
			fmt.Fprintln(os.Stderr, "bench: write results:", werr)
			os.Exit(1)
		}
		fmt.Printf("\nwritten to %s and %s\n", name, filepath.Join(*out, "LATEST.md"))
	}
	if !res.Pass() {
		fmt.Fprintln(os.Stderr, "bench: FAIL")
		os.Exit(1)
	}
}

type bencher struct {
	env  *testenv.Env
	tf   string
	work string
	// baseline is the working directory of bench.Baseline, Terraform alone.
	baseline string
	tfEnv    []string
	rusage   string
	audit    string
	kube     kubernetes.Interface
	kueue    kueueclient.Interface
	logf     func(format string, args ...any)
}

func run(ctx context.Context, teamList string, runs int, provider string) (bench.Result, error) {
	t0 := time.Now()
	var ns []int
	for _, f := range strings.Split(teamList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return bench.Result{}, fmt.Errorf("-teams: %q is not a positive number", f)
		}
		ns = append(ns, n)
	}
	realProvider, err := filepath.Abs(provider)
	if err != nil {
		return bench.Result{}, err
	}
	if _, err := os.Stat(realProvider); err != nil {
		return bench.Result{}, fmt.Errorf("no provider at %s: run make build", realProvider)
	}
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		if tf, err = exec.LookPath("terraform"); err != nil {
			return bench.Result{}, errors.New("no terraform: run scripts/tools.sh and source tools.env")
		}
	}
	tmp, err := os.MkdirTemp("", "mlplatform-bench-")
	if err != nil {
		return bench.Result{}, err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // best effort: a leftover temp dir fails nothing
	logf := func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "[bench %6.1fs] %s\n", time.Since(t0).Seconds(), fmt.Sprintf(format, args...))
	}

	wrapDir := filepath.Join(tmp, "provider")
	logf("building the rusage wrapper")
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(wrapDir, "terraform-provider-mlplatform"), "./internal/bench/rsswrap")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return bench.Result{}, fmt.Errorf("build internal/bench/rsswrap: %w", err)
	}

	tfrc := filepath.Join(tmp, "terraformrc")
	if err := os.WriteFile(tfrc, []byte(testenv.TerraformRC(wrapDir)), 0o600); err != nil {
		return bench.Result{}, err
	}

	res := bench.Result{
		Date: time.Now().UTC().Format("2006-01-02"), Commit: commit(), Terraform: tfVersion(tf),
		Machine:      fmt.Sprintf("%d CPUs (%s/%s)", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH),
		Provider:     providerBuild(provider, realProvider),
		RunsPerScale: runs,
	}
	// One control plane per N, each holding its platform, so the measured
	// plans can take turns: this machine's speed drifts by a fifth over
	// minutes, and measuring N=10 a minute before N=100 made their ratio
	// swing by as much.
	benchers := make([]*bencher, len(ns))
	for i, n := range ns {
		dir := filepath.Join(tmp, fmt.Sprint("n", n))
		logf("N=%d: starting a control plane (etcd, kube-apiserver with audit log, kube-controller-manager, Kueue, GKE/IAM fake)", n)
		b, err := newBencher(ctx, dir, tf, tfrc, realProvider, logf)
		if err != nil {
			return res, fmt.Errorf("at N=%d: %w", n, err)
		}
		defer b.env.Stop()
		benchers[i] = b
		s, err := b.setup(ctx, n)
		if err != nil {
			return res, fmt.Errorf("at N=%d: %w", n, err)
		}
		res.Scales = append(res.Scales, s)
	}
	for run := range runs {
		for i, b := range benchers {
			r, err := b.plan(ctx)
			if err != nil {
				return res, fmt.Errorf("at N=%d: %w", ns[i], err)
			}
			logf("N=%d plan %d/%d: %.2fs wall, %.2fs CPU, provider %.2fs CPU and %.1f MiB, %d kube + %d GKE/IAM requests, changes=%v",
				ns[i], run+1, runs, r.Wall.Seconds(), r.CPU.Seconds(), r.ProviderCPU.Seconds(), float64(r.ProviderMaxRSS)/(1<<20), r.Kube.Total(), r.GCP.Total(), r.Changes)
			res.Scales[i].Runs = append(res.Scales[i].Runs, r)
			wall, err := b.planBaseline(ctx)
			if err != nil {
				return res, fmt.Errorf("at N=%d, Terraform alone: %w", ns[i], err)
			}
			logf("N=%d plan %d/%d of Terraform alone: %.2fs wall", ns[i], run+1, runs, wall.Seconds())
			res.Scales[i].Baseline = append(res.Scales[i].Baseline, wall)
		}
	}
	res.Elapsed = time.Since(t0)
	return res, nil
}

// newBencher starts a control plane under dir and prepares a Terraform
// working directory against it.
func newBencher(ctx context.Context, dir, tf, tfrc, realProvider string, logf func(string, ...any)) (*bencher, error) {
	audit := filepath.Join(dir, "audit.log")
	env, err := testenv.Start(ctx, testenv.Options{Dir: filepath.Join(dir, "env"), AuditLog: audit, Log: os.Stderr})
	if err != nil {
		return nil, err
	}
	b := &bencher{env: env, tf: tf, work: filepath.Join(dir, "work"), baseline: filepath.Join(dir, "baseline"),
		rusage: filepath.Join(dir, "rusage"), audit: audit, logf: logf}
	fail := func(err error) (*bencher, error) {
		env.Stop()
		return nil, err
	}
	if err := os.MkdirAll(b.work, 0o700); err != nil {
		return fail(err)
	}
	b.tfEnv = append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+tfrc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1",
		"MLPLATFORM_KUBECONFIG="+env.Kubeconfig, "KUBECONFIG="+env.Kubeconfig,
		"MLPLATFORM_PROJECT="+env.Project, "MLPLATFORM_LOCATION="+env.Location, "MLPLATFORM_CLUSTER="+env.Cluster,
		"MLPLATFORM_CONTAINER_ENDPOINT="+env.GCP.Addr(), "MLPLATFORM_IAM_ENDPOINT="+env.GCP.Addr(),
		"MLPLATFORM_INSECURE_ENDPOINTS=true",
		"MLPLATFORM_BENCH_PROVIDER="+realProvider, "MLPLATFORM_BENCH_RUSAGE="+b.rusage)
	if b.kube, err = kubernetes.NewForConfig(env.REST); err != nil {
		return fail(err)
	}
	if b.kueue, err = kueueclient.NewForConfig(env.REST); err != nil {
		return fail(err)
	}
	return b, nil
}

// exampleAt is examples/training-cluster grown to n teams.
func exampleAt(n int) (map[string]string, error) {
	example, err := bench.LoadExample(bench.Example)
	if err != nil {
		return nil, err
	}
	return bench.Config(example, n)
}

// checkResources fails when the working directory's state does not hold
// want resource instances, so the table never reports a count the example
// does not have (bench.Resources counts resource blocks).
func (b *bencher) checkResources(ctx context.Context, dir string, want int) error {
	out, err := b.terraformIn(ctx, dir, "state", "list")
	if err != nil {
		return fmt.Errorf("terraform state list: %w\n%s", err, tail(out, 20))
	}
	if got := len(strings.Fields(string(out))); got != want {
		return fmt.Errorf("the state in %s holds %d resource instances, not the %d bench.Resources counts in %s: "+
			"if a resource there now uses count or for_each, teach bench.Resources; if the example changed shape, change bench.Baseline to match",
			dir, got, want, bench.Example)
	}
	return nil
}

// setup applies the platform of n teams and warms its plans up; the
// measured plans come later, taking turns with the other N.
func (b *bencher) setup(ctx context.Context, n int) (bench.Scale, error) {
	s := bench.Scale{Teams: n}
	example, err := bench.LoadExample(bench.Example)
	if err != nil {
		return s, err
	}
	s.Resources = bench.Resources(example, n)
	files, err := bench.Config(example, n)
	if err != nil {
		return s, err
	}
	if err := bench.WriteExample(b.work, files); err != nil {
		return s, err
	}
	if out, err := b.terraform(ctx, "get", "-no-color"); err != nil { // installs modules/team, offline
		return s, fmt.Errorf("terraform get: %w\n%s", err, tail(out, 20))
	}
	b.logf("N=%d: terraform apply (%d resources)", n, s.Resources)
	t := time.Now()
	if out, err := b.terraform(ctx, "apply", "-auto-approve", "-input=false", "-no-color", "-parallelism=20"); err != nil {
		return s, fmt.Errorf("terraform apply: %w\n%s", err, tail(out, 40))
	}
	s.Apply = time.Since(t)
	if err := b.checkResources(ctx, b.work, s.Resources); err != nil {
		return s, err
	}
	if s.KubeObjects, err = b.kubeObjects(ctx); err != nil {
		return s, err
	}
	if s.GCPObjects, err = b.gcpObjects(ctx); err != nil {
		return s, err
	}
	b.logf("N=%d: applied in %s; %d Kubernetes objects, %d GKE/IAM objects managed", n, s.Apply.Round(time.Second), s.KubeObjects, s.GCPObjects)
	if err := bench.WriteExample(b.baseline, bench.Baseline(n)); err != nil {
		return s, err
	}
	for _, args := range [][]string{{"init", "-input=false", "-no-color"}, {"apply", "-auto-approve", "-input=false", "-no-color"}} {
		if out, err := b.terraformIn(ctx, b.baseline, args...); err != nil { // terraform_data is built in: init is offline
			return s, fmt.Errorf("plan of Terraform alone: terraform %s: %w\n%s", args[0], err, tail(out, 20))
		}
	}
	if err := b.checkResources(ctx, b.baseline, s.Resources); err != nil {
		return s, err
	}
	for range 2 { // the first plans warm the page cache, Terraform's and the API server's caches
		if _, err := b.plan(ctx); err != nil {
			return s, err
		}
		if _, err := b.planBaseline(ctx); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (b *bencher) terraform(ctx context.Context, args ...string) ([]byte, error) {
	return b.terraformIn(ctx, b.work, args...)
}

func (b *bencher) terraformIn(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, b.tf, args...)
	cmd.Dir, cmd.Env = dir, b.tfEnv
	return cmd.CombinedOutput()
}

// planBaseline runs one `terraform plan` of Terraform alone (bench.Baseline)
// and returns its wall time; the plan must be empty.
func (b *bencher) planBaseline(ctx context.Context) (time.Duration, error) {
	t := time.Now()
	out, err := b.terraformIn(ctx, b.baseline, "plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode")
	wall := time.Since(t)
	if err != nil {
		return wall, fmt.Errorf("terraform plan (exit 2 is a non-empty plan): %w\n%s", err, tail(out, 40))
	}
	return wall, nil
}

// plan runs one measured `terraform plan -detailed-exitcode`.
func (b *bencher) plan(ctx context.Context) (bench.Run, error) {
	var r bench.Run
	_ = os.Remove(b.rusage)
	off, err := fileSize(b.audit)
	if err != nil {
		return r, err
	}
	b.env.GCP.ResetRequests()
	cmd := exec.CommandContext(ctx, b.tf, "plan", "-input=false", "-no-color", "-lock=false", "-detailed-exitcode")
	cmd.Dir, cmd.Env = b.work, b.tfEnv
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t := time.Now()
	err = cmd.Run()
	r.Wall = time.Since(t)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		r.Changes = true
		b.logf("plan is NOT empty:\n%s", tail(out.Bytes(), 60))
	case err != nil:
		return r, fmt.Errorf("terraform plan: %w\n%s", err, tail(out.Bytes(), 40))
	}
	r.GCP = bench.CountRPCs(b.env.GCP.Requests())
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		// wait4's rusage of terraform includes the descendants it waited for
		// (the wrapper, and through it the provider).
		r.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if r.ProviderMaxRSS, r.ProviderCPU, err = readRusage(b.rusage); err != nil {
		return r, err
	}
	if r.CPU < r.ProviderCPU { // descendants not reaped through terraform: add them
		r.CPU += r.ProviderCPU
	}
	time.Sleep(300 * time.Millisecond) // the last ResponseComplete events reach the log
	f, err := os.Open(b.audit)
	if err != nil {
		return r, err
	}
	defer func() { _ = f.Close() }() // read only
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return r, err
	}
	r.Kube, err = bench.CountAudit(f, userAgent)
	return r, err
}
