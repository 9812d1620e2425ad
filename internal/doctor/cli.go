package doctor

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

// Exit codes of `mlplatform doctor`, the same as `mlplatform report`'s for
// the same outcomes: 0 ok, 1 could not run, 2 usage, and 6, the report's
// `--fail-on checks` code, when a check found an error or a warning. (3 to 5
// are the report's over-commit and drift; doctor does not use them.)
const (
	ExitOK       = 0 // every check passed
	ExitError    = 1 // doctor could not run: bad settings, or the Kubernetes API server did not answer
	ExitUsage    = 2 // bad flags or arguments
	ExitFindings = 6 // a check found an error or a warning; the findings are written
)

// Setting is a provider setting doctor takes as a flag, with the provider's
// environment fallbacks, in order of precedence (the provider's envFallback;
// a test keeps them equal).
type Setting struct {
	Attr string   // the provider attribute
	Flag string   // the doctor flag
	Env  []string // environment variables, first set wins
}

// Settings are the provider settings doctor uses.
var Settings = []Setting{
	{"project", "project", []string{"MLPLATFORM_PROJECT", "GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT"}},
	{"location", "location", []string{"MLPLATFORM_LOCATION"}},
	{"cluster", "cluster", []string{"MLPLATFORM_CLUSTER"}},
	{"container_endpoint", "container-endpoint", []string{"MLPLATFORM_CONTAINER_ENDPOINT"}},
	{"insecure_endpoints", "insecure-endpoints", []string{"MLPLATFORM_INSECURE_ENDPOINTS"}},
	{"kubeconfig", "kubeconfig", []string{"MLPLATFORM_KUBECONFIG", "KUBECONFIG"}},
	{"kube_context", "kube-context", []string{"MLPLATFORM_KUBE_CONTEXT"}},
}

const usage = `usage: mlplatform doctor [flags]

Checks the live platform, with the provider's settings (flags, else the same
environment variables the provider reads): Kueue's CRDs, version and webhooks;
the ProvisioningRequest API when a provisioning check exists; every AdmissionCheck,
ClusterQueue, LocalQueue and MultiKueue worker Active; Kueue's configuration
against the kinds the cluster serves; every GKE node pool RUNNING; the project's
GPU quota against what the pools (and --plan's) may scale to; the cluster's
Workload Identity pool, NetworkPolicy enforcement, Private Google Access and
GKE version; workloads
waiting longer than --pending-threshold, and why; and every rule of the platform
that mlplatform report runs on a plan (MLP001...), on what the cluster and GKE
hold, with NetworkPolicies that widen a team namespace's default deny. One
request per kind; read-only (--rbac prints the access it needs).

  --project, --location, --cluster   the GKE cluster (MLPLATFORM_PROJECT or GOOGLE_PROJECT
                                     or GOOGLE_CLOUD_PROJECT, MLPLATFORM_LOCATION, MLPLATFORM_CLUSTER)
  --container-endpoint HOST:PORT     GKE API endpoint (MLPLATFORM_CONTAINER_ENDPOINT)
  --insecure-endpoints               plaintext gRPC to a loopback endpoint (MLPLATFORM_INSECURE_ENDPOINTS)
  --compute-endpoint HOST:PORT       Compute Engine REST endpoint for the GPU quota and subnetwork reads
                                     (MLPLATFORM_COMPUTE_ENDPOINT; plain HTTP with --insecure-endpoints)
  --plan PLAN_JSON                   a saved plan (terraform show -json): its GPU pools count against the
                                     project's GPU quota with the cluster's, before apply
  --kubeconfig PATH, --kube-context  (MLPLATFORM_KUBECONFIG or KUBECONFIG, MLPLATFORM_KUBE_CONTEXT);
                                     without a kubeconfig, the GKE cluster's endpoint with Google credentials
                                     (GOOGLE_OAUTH_ACCESS_TOKEN, else Application Default Credentials)
  --check-timeout DURATION           bound of each request and of the webhook probe (default 10s)
  --timeout DURATION                 bound of the whole run (default 2m)
  --pending-threshold DURATION       a workload waiting longer is a finding (default 30m)
  --idle-threshold DURATION          a GPU node no pod has requested GPUs of for longer is a finding
                                     (default 30m: the cluster autoscaler removes an unneeded node
                                     after 10m, and waits 10m after a scale-up)
  --flex-deadline-warning DURATION   warn of a workload on a flex-start node this close to its
                                     max_run_duration (default 1h)
  --prices FILE                      JSON price file overriding the default price table, as
                                     mlplatform report --prices (MLPLATFORM_PRICES_FILE)
  --fail-on-idle-usd-per-hour USD    idle GPU capacity (idle nodes, holder pods, pool floors) is a
                                     finding only when it costs more than USD per hour together;
                                     at or below, a note (default 0: any idle capacity)
  --multikueue-workers               on a MultiKueue manager, ask each worker (one SelfSubjectAccessReview
                                     per verb) whether the manager's credentials may do what it dispatches
                                     there: reads their kubeconfig Secrets in kueue-system, never prints them
  --format text|json                 default text
  --list                             list the checks and rules, and exit
  --rbac                             print the read-only ClusterRole (and Role in kueue-system)
                                     doctor needs, with bindings to edit, and exit

With --format json, "idle" holds what idle GPU capacity costs (usd_per_hour,
usd_per_day) and "gpu_pools" each GPU pool's nodes, GPUs allocatable and requested.

Exit codes: 0 all checks passed; 1 doctor could not run (settings, or the Kubernetes
API server did not answer); 2 usage error; 6 a check found an error or a warning
(the findings are written to stdout), as mlplatform report --fail-on checks.
`

// Command runs `mlplatform doctor` with args and returns its exit code.
// getenv reads the environment fallbacks.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	return CommandAt(ctx, args, stdout, stderr, getenv, time.Now)
}

// CommandAt is Command with the clock the checks measure ages against (how
// long a node has been idle, how close a flex-start node is to its
// deadline): a test moves it forward, since the API server sets every
// object's creationTimestamp itself.
func CommandAt(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string, now func() time.Time) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	vals := map[string]*string{}
	for _, s := range Settings {
		if s.Flag == "insecure-endpoints" {
			continue
		}
		vals[s.Attr] = fs.String(s.Flag, "", s.Attr)
	}
	insecure := &optBool{}
	fs.Var(insecure, "insecure-endpoints", "insecure_endpoints")
	format := fs.String("format", "text", "text or json")
	checkTimeout := fs.Duration("check-timeout", 10*time.Second, "per request")
	timeout := fs.Duration("timeout", 2*time.Minute, "whole run")
	threshold := fs.Duration("pending-threshold", 30*time.Minute, "pending workloads")
	idleThreshold := fs.Duration("idle-threshold", DefaultIdleThreshold, "idle GPU nodes")
	flexWarning := fs.Duration("flex-deadline-warning", DefaultFlexDeadlineWarning, "flex-start deadline")
	pricesFile := fs.String("prices", "", "JSON price file")
	idleUSD := fs.Float64("fail-on-idle-usd-per-hour", 0, "idle GPU capacity limit")
	list := fs.Bool("list", false, "list the checks")
	printRBAC := fs.Bool("rbac", false, "print the RBAC doctor needs")
	workers := fs.Bool("multikueue-workers", false, "ask each MultiKueue worker what the manager may do there")
	planFile := fs.String("plan", "", "saved plan JSON")
	computeEndpoint := fs.String("compute-endpoint", "", "Compute Engine endpoint")
	usageErr := func(err error) int {
		fmt.Fprintf(stderr, "mlplatform doctor: %v\n\n%s", err, usage)
		return ExitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return ExitOK
		}
		return usageErr(err)
	}
	if fs.NArg() > 0 {
		return usageErr(fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " ")))
	}
	f, err := ParseFormat(*format)
	if err != nil {
		return usageErr(err)
	}
	if *checkTimeout <= 0 || *timeout <= 0 || *threshold <= 0 || *idleThreshold <= 0 || *flexWarning <= 0 {
		return usageErr(errors.New("--check-timeout, --timeout, --pending-threshold, --idle-threshold and --flex-deadline-warning must be positive durations"))
	}
	if *idleUSD < 0 {
		return usageErr(errors.New("--fail-on-idle-usd-per-hour must be 0 or more"))
	}
	if *printRBAC {
		_, _ = io.WriteString(stdout, RBAC)
		return ExitOK
	}
	if *list {
		listChecks(stdout)
		return ExitOK
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "mlplatform doctor:", err)
		return ExitError
	}
	cfg, err := ResolveConfig(vals, insecure, getenv)
	if err != nil {
		return fail(err)
	}
	cfg.ComputeEndpoint = cmp.Or(*computeEndpoint, getenv("MLPLATFORM_COMPUTE_ENDPOINT"))
	var plan *tfplan.Plan
	if *planFile != "" {
		p, err := readPlan(*planFile)
		if err != nil {
			return fail(err)
		}
		plan = &p
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if *pricesFile == "" {
		*pricesFile = getenv("MLPLATFORM_PRICES_FILE") // the provider's prices_file, as the report should be given it
	}
	prices, err := loadPrices(*pricesFile)
	if err != nil {
		return fail(err)
	}
	opts := Options{CheckTimeout: *checkTimeout, PendingThreshold: *threshold, MultiKueueWorkers: *workers, Now: now,
		IdleThreshold: *idleThreshold, FlexDeadlineWarning: *flexWarning, Prices: prices, IdleUSDPerHour: *idleUSD, Plan: plan}
	res, err := RunConfig(ctx, cfg, opts)
	if err != nil {
		return fail(err)
	}
	if err := Render(stdout, res, f); err != nil {
		return fail(err)
	}
	if res.Failed() {
		fmt.Fprintf(stderr, "mlplatform doctor: %s (exit %d)\n", plural(len(res.Findings), "finding"), ExitFindings)
		return ExitFindings
	}
	return ExitOK
}

// readPlan reads a saved plan as terraform show -json writes it.
func readPlan(file string) (tfplan.Plan, error) {
	f, err := os.Open(file)
	if err != nil {
		return tfplan.Plan{}, err
	}
	defer func() { _ = f.Close() }() // read-only
	p, err := tfplan.ReadPlan(f)
	if err != nil {
		return p, fmt.Errorf("%s: %w (write it with terraform show -json PLANFILE)", file, err)
	}
	return p, nil
}

// loadPrices is the default price table with the file's cells over it, as
// mlplatform report reads --prices.
func loadPrices(file string) (pricing.Table, error) {
	prices := pricing.Default()
	if file == "" {
		return prices, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return prices, err
	}
	defer func() { _ = f.Close() }() // read-only
	o, err := pricing.Load(f)
	if err != nil {
		return prices, fmt.Errorf("%s: %w", file, err)
	}
	return prices.Override(o), nil
}

// optBool is a bool flag that remembers whether it was set.
type optBool struct{ set, v bool }

func (b *optBool) String() string   { return strconv.FormatBool(b.v) }
func (b *optBool) IsBoolFlag() bool { return true }
func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.set, b.v = true, v
	return nil
}

// ResolveConfig is the provider's Configure for doctor's settings: a flag
// wins over its environment variables, the first of which set wins.
func ResolveConfig(vals map[string]*string, insecure *optBool, getenv func(string) string) (platform.Config, error) {
	get := func(attr string) string {
		if p := vals[attr]; p != nil && *p != "" {
			return *p
		}
		for _, s := range Settings {
			if s.Attr == attr {
				for _, e := range s.Env {
					if v := getenv(e); v != "" {
						return v
					}
				}
			}
		}
		return ""
	}
	cfg := platform.Config{
		Project: get("project"), Location: get("location"), Cluster: get("cluster"),
		ContainerEndpoint: get("container_endpoint"),
		Kubeconfig:        get("kubeconfig"), KubeContext: get("kube_context"),
		UserAgent: "mlplatform-doctor",
		// The provider's access_token, from its environment variable only: a
		// flag would put the token in the process list.
		AccessToken: getenv("GOOGLE_OAUTH_ACCESS_TOKEN"),
		// Retry stays zero: doctor reports a webhook that does not answer,
		// within its own timeout, instead of waiting it out.
	}
	if flagSet := func(a string) bool { return vals[a] != nil && *vals[a] != "" }; flagSet("cluster") && !flagSet("kubeconfig") {
		// As the provider: a cluster named here is reached through GKE, never
		// the one the environment's kubeconfig points at.
		cfg.Kubeconfig = ""
		if !flagSet("kube_context") {
			cfg.KubeContext = ""
		}
	}
	switch {
	case insecure != nil && insecure.set:
		cfg.InsecureEndpoints = insecure.v
	case get("insecure_endpoints") != "":
		v, err := strconv.ParseBool(get("insecure_endpoints"))
		if err != nil {
			return cfg, fmt.Errorf("MLPLATFORM_INSECURE_ENDPOINTS is %q; use true or false", get("insecure_endpoints"))
		}
		cfg.InsecureEndpoints = v
	}
	if cfg.InsecureEndpoints && cfg.ContainerEndpoint != "" && !platform.IsLoopback(cfg.ContainerEndpoint) {
		return cfg, fmt.Errorf("--insecure-endpoints is only allowed with a loopback --container-endpoint (the local sandbox), not %q", cfg.ContainerEndpoint)
	}
	if cfg.InsecureEndpoints && cfg.ContainerEndpoint == "" {
		return cfg, errors.New("--insecure-endpoints needs --container-endpoint set to a loopback address (such as the sandbox's 127.0.0.1:PORT)")
	}
	return cfg, nil
}

// RunConfig builds the clients as the provider does (platform.Clients) and
// runs every check.
func RunConfig(ctx context.Context, cfg platform.Config, opts Options) (*Result, error) {
	clients := platform.NewClients(cfg)
	defer func() { _ = clients.Close() }() // read-only connections: nothing to flush, and the result is already built
	kc, err := clients.Kube(ctx)
	if err != nil {
		return nil, err
	}
	src := Sources{Kube: kc}
	if cfg.Project != "" && cfg.Location != "" && cfg.Cluster != "" {
		g, err := clients.GKE(ctx)
		if err != nil {
			return nil, err
		}
		src.GKE, src.Cluster = g, cfg.ClusterName()
		// Compute Engine: Google's, or the one --compute-endpoint names. With
		// --insecure-endpoints (the local sandbox) and no Compute endpoint,
		// nothing is read (a note says what did not run): the sandbox's
		// quotas are its fake's, never Google's.
		if cfg.ComputeEndpoint != "" || !cfg.InsecureEndpoints {
			c, err := clients.Compute(ctx)
			if err != nil {
				return nil, err
			}
			src.Compute = c
		}
	}
	return Run(ctx, src, opts)
}

// Run gathers and analyzes.
func Run(ctx context.Context, src Sources, opts Options) (*Result, error) {
	s, err := Gather(ctx, src, opts)
	if err != nil {
		return nil, err
	}
	return Analyze(s, opts), nil
}

// listChecks writes doctor's own checks, then the rules it runs, each with
// the identifiers that name it too.
func listChecks(w io.Writer) {
	for _, c := range Checks {
		fmt.Fprintf(w, "%s  %-43s %s\n", c.ID, c.Slug, c.Title)
	}
	for _, r := range rules.Rules {
		if r.In() == rules.PlanOnly {
			continue
		}
		title := r.Title
		if len(r.Aliases) > 0 {
			title += " (was " + strings.Join(r.Aliases, ", ") + ")"
		}
		fmt.Fprintf(w, "%s  %-43s %s\n", r.ID, r.Slug, title)
	}
}
