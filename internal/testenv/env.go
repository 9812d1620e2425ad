// Package testenv starts the real parts the provider is tested against: etcd,
// kube-apiserver, kube-controller-manager, the JobSet controller (out of
// cluster, with its webhooks) and the Kueue manager (out of cluster, with its
// webhooks and conversion webhooks; it manages Jobs and JobSets), plus the
// in-process GKE/IAM fake. The same environment backs acceptance tests (one per package,
// through TestMain) and the local sandbox (`mlplatform sandbox up`).
//
// The binaries are built from Go modules by scripts/tools.sh into a
// version-keyed cache; MLPLATFORM_TEST_BINS names that directory.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
)

// EnvBins names the directory with the test binaries (written by scripts/tools.sh).
const EnvBins = "MLPLATFORM_TEST_BINS"

// EnvBinsOldest names the directory with the same Kubernetes and etcd and the
// oldest supported Kueue (scripts/tools.sh writes it too): the upgrade test
// starts on it, as Options.KueueBinDir.
const EnvBinsOldest = "MLPLATFORM_TEST_BINS_OLDEST"

// Defaults for the fake GKE cluster the platform lives on.
const (
	DefaultProject  = "mlplatform-sandbox"
	DefaultLocation = "us-central1"
	DefaultCluster  = "training"
)

// Options configures Start. The zero value starts everything.
type Options struct {
	// BinDir holds etcd, kube-apiserver, kube-controller-manager, jobset,
	// jobset-manifests/, kueue and kueue-manifests/. Default:
	// $MLPLATFORM_TEST_BINS.
	BinDir string
	// KueueBinDir holds the kueue binary and kueue-manifests/ of the Kueue
	// to run (e.g. $MLPLATFORM_TEST_BINS_OLDEST for the oldest supported
	// release). Default: BinDir.
	KueueBinDir string
	// Dir is where certificates, data and logs go. Default: a new temp dir,
	// removed by Stop.
	Dir string
	// WithoutKueue skips the Kueue manager (the CRDs are still installed, with
	// conversion strategy None, so objects can be stored without webhooks).
	WithoutKueue bool
	// WithoutControllerManager skips kube-controller-manager (namespaces then
	// never finish terminating).
	WithoutControllerManager bool
	// WithoutJobSet skips the JobSet controller and its CRD and webhooks
	// (Kueue's jobset integration then waits for a CRD that never comes).
	WithoutJobSet bool
	// JobWebhooks installs Kueue's batch/v1 Job webhooks as well as those of
	// its own kinds, as a real installation has them: a queued Job is
	// suspended on create and, in a MultiKueue manager, gets
	// spec.managedBy=kueue.x-k8s.io/multikueue. StartMulti sets it.
	JobWebhooks bool
	// GCPAddr is where the GKE/IAM fake listens. Default "127.0.0.1:0".
	GCPAddr string
	// Log receives one line per start-up step. Default: discarded.
	Log io.Writer
	// AuditLog, when set, is the file kube-apiserver writes its audit log to
	// (JSON lines, one event per request at Metadata level, stage
	// ResponseComplete; leases and events are left out). `make bench` counts
	// the provider's requests in it.
	AuditLog string
	// GoogleAccessToken is the bearer token every kube-apiserver accepts as
	// a cluster admin (see Env.GoogleAccessToken). Default: a random one per
	// Start. It must not contain commas, quotes, spaces or newlines.
	GoogleAccessToken string

	// Set by StartMulti: the GKE/IAM fake shared by the environments (not
	// owned, so not stopped, by the Env) and this environment's cluster in
	// it; the cluster's endpoint and CA are then those of this environment's
	// kube-apiserver.
	gcp               *fakegcp.Server
	location, cluster string
}

// Env is a running environment.
type Env struct {
	Dir        string
	Kubeconfig string // admin kubeconfig file
	REST       *rest.Config
	GCP        *fakegcp.Server
	Project    string
	Location   string
	Cluster    string
	// GoogleAccessToken stands in for GKE's IAM-authenticated access: the
	// kube-apiserver accepts it (--token-auth-file) as a Google identity in
	// group system:masters, so a client that reads the cluster from the
	// GKE fake and sends "Authorization: Bearer <token>", as the provider's
	// GKE path does (gke.RESTForCluster with an oauth2 token source), is a
	// cluster admin. In a Multi every environment accepts the same token,
	// as one Google identity works on all of a project's clusters.
	GoogleAccessToken string

	opts     Options
	ownsDir  bool
	ownsGCP  bool       // false when StartMulti shares one fake between environments
	procs    []*process // in start order
	stopOnce sync.Once
	// restartAPI starts kube-apiserver again as Start did (RestartAPIServer).
	restartAPI func(context.Context) error
	kueue      *kueueSetup
	jobset     *jobsetSetup
}

// Processes returns the pids of the child processes, by name.
func (e *Env) Processes() map[string]int {
	out := map[string]int{}
	for _, p := range e.procs {
		out[p.name] = p.Pid()
	}
	return out
}

// Start brings the environment up. On error everything started so far is
// stopped again.
func Start(ctx context.Context, opts Options) (_ *Env, err error) {
	if opts.BinDir == "" {
		opts.BinDir = os.Getenv(EnvBins)
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.KueueBinDir == "" {
		opts.KueueBinDir = opts.BinDir
	}
	if opts.GCPAddr == "" {
		opts.GCPAddr = "127.0.0.1:0"
	}
	if opts.GoogleAccessToken == "" {
		opts.GoogleAccessToken = randomToken()
	} else if strings.ContainsAny(opts.GoogleAccessToken, ",\"' \t\r\n") {
		return nil, errors.New("testenv: Options.GoogleAccessToken must not contain commas, quotes, spaces or newlines (it goes into a CSV token file)")
	}
	if err := checkBins(opts); err != nil {
		return nil, err
	}
	e := &Env{
		opts: opts, Dir: opts.Dir, Project: DefaultProject, Location: DefaultLocation, Cluster: DefaultCluster,
		GoogleAccessToken: opts.GoogleAccessToken,
	}
	if opts.location != "" {
		e.Location, e.Cluster = opts.location, opts.cluster
	}
	if e.Dir == "" {
		if e.Dir, err = os.MkdirTemp("", "mlplatform-env-"); err != nil {
			return nil, err
		}
		e.ownsDir = true
	}
	defer func() {
		if err != nil {
			e.Stop()
		}
	}()
	for _, sub := range []string{"logs", "etcd"} {
		if err := os.MkdirAll(filepath.Join(e.Dir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	step := func(format string, args ...any) {
		fmt.Fprintf(opts.Log, "[%5.1fs] %s\n", time.Since(t0).Seconds(), fmt.Sprintf(format, args...))
	}

	p, err := newPKI(filepath.Join(e.Dir, "pki"))
	if err != nil {
		return nil, fmt.Errorf("create certificates: %w", err)
	}
	ports, err := freePorts(7)
	if err != nil {
		return nil, err
	}
	etcdPort, etcdPeer, apiPort, webhookPort, healthPort := ports[0], ports[1], ports[2], ports[3], ports[4]
	jobsetWebhookPort, jobsetHealthPort := ports[5], ports[6]

	if err := e.startEtcd(ctx, etcdPort, etcdPeer); err != nil {
		return nil, err
	}
	step("etcd ready on 127.0.0.1:%d", etcdPort)
	if err := e.startAPIServer(ctx, p, apiPort, etcdPort); err != nil {
		return nil, err
	}
	e.restartAPI = func(ctx context.Context) error { return e.startAPIServer(ctx, p, apiPort, etcdPort) }
	step("kube-apiserver ready on https://127.0.0.1:%d", apiPort)
	if !opts.WithoutControllerManager {
		if err := e.startControllerManager(); err != nil {
			return nil, err
		}
		step("kube-controller-manager started (namespace, garbage collector, PVC protection)")
	}
	k := &kueueSetup{env: e, pki: p, webhookPort: webhookPort, healthPort: healthPort, dir: opts.KueueBinDir}
	if !opts.WithoutKueue {
		if k.version, err = kueueVersionOf(filepath.Join(k.dir, "kueue")); err != nil {
			return nil, err
		}
		e.kueue = k
	}
	if err := k.installCRDs(ctx, !opts.WithoutKueue); err != nil {
		return nil, err
	}
	step("Kueue CRDs installed")
	// JobSet before Kueue: Kueue's jobset integration needs the CRD when it
	// starts (and Kueue's JobSet webhooks are installed with Kueue's).
	if !opts.WithoutJobSet {
		j := &jobsetSetup{env: e, pki: p, webhookPort: jobsetWebhookPort, healthPort: jobsetHealthPort}
		if j.version, err = jobsetVersionOf(e.bin("jobset")); err != nil {
			return nil, err
		}
		if err := j.install(ctx); err != nil {
			return nil, err
		}
		step("JobSet CRD and webhooks installed")
		if err := j.start(ctx); err != nil {
			return nil, err
		}
		e.jobset = j
		step("JobSet controller %s ready (webhooks on https://127.0.0.1:%d)", j.version, jobsetWebhookPort)
	}
	if !opts.WithoutKueue {
		if err := k.start(ctx); err != nil {
			return nil, err
		}
		step("Kueue manager %s ready (webhooks on https://127.0.0.1:%d)", k.version, webhookPort)
	}

	if opts.gcp != nil {
		e.GCP = opts.gcp
		e.GCP.Container.AddCluster(e.Project, e.Location, e.Cluster, true)
		endpoint := "127.0.0.1:" + strconv.Itoa(apiPort)
		if err := e.GCP.Container.SetClusterEndpoint(e.Project, e.Location, e.Cluster, endpoint, p.clusterCA.CertPEM); err != nil {
			return nil, err
		}
		step("cluster projects/%s/locations/%s/clusters/%s in the shared GKE/IAM fake on %s, endpoint %s",
			e.Project, e.Location, e.Cluster, e.GCP.Addr(), endpoint)
		return e, nil
	}
	e.GCP, e.ownsGCP = fakegcp.New(), true
	if err := e.GCP.Start(opts.GCPAddr); err != nil {
		return nil, fmt.Errorf("start the GKE/IAM fake on %s: %w", opts.GCPAddr, err)
	}
	e.GCP.Container.AddCluster(e.Project, e.Location, e.Cluster, true)
	step("GKE/IAM fake on %s with cluster projects/%s/locations/%s/clusters/%s (workload pool %s.svc.id.goog)",
		e.GCP.Addr(), e.Project, e.Location, e.Cluster, e.Project)
	return e, nil
}

func checkBins(opts Options) error {
	if opts.BinDir == "" {
		return fmt.Errorf("%s is not set: run scripts/tools.sh (or `make tools`) to build etcd, kube-apiserver, "+
			"kube-controller-manager, the JobSet controller and the Kueue manager, then source the tools.env it writes", EnvBins)
	}
	need := []string{"etcd", "kube-apiserver"}
	if !opts.WithoutControllerManager {
		need = append(need, "kube-controller-manager")
	}
	if !opts.WithoutJobSet {
		need = append(need, "jobset", filepath.Join("jobset-manifests", "crd"), filepath.Join("jobset-manifests", "webhooks.yaml"))
	}
	needKueue := []string{filepath.Join("kueue-manifests", "crd")}
	if !opts.WithoutKueue {
		needKueue = append(needKueue, "kueue", filepath.Join("kueue-manifests", "webhooks.yaml"),
			filepath.Join("kueue-manifests", "gke", "autoscaling.x-k8s.io_provisioningrequests.yaml"))
	}
	var missing []error
	for _, in := range []struct {
		dir   string
		names []string
	}{{opts.BinDir, need}, {opts.KueueBinDir, needKueue}} {
		for _, n := range in.names {
			if _, err := os.Stat(filepath.Join(in.dir, n)); err != nil {
				missing = append(missing, fmt.Errorf("%s is missing from %s", n, in.dir))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w; run scripts/tools.sh (or `make tools`) to build it", errors.Join(missing...))
	}
	return nil
}

func (e *Env) bin(name string) string { return filepath.Join(e.opts.BinDir, name) }

func (e *Env) startEtcd(ctx context.Context, port, peer int) error {
	client := "http://127.0.0.1:" + strconv.Itoa(port)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	p, err := startProcess("etcd", filepath.Join(e.Dir, "logs"), 10*time.Second, nil, e.bin("etcd"),
		"--name=default",
		"--data-dir="+filepath.Join(e.Dir, "etcd"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync", "--log-level=warn")
	if err != nil {
		return err
	}
	e.procs = append(e.procs, p)
	return p.waitFor(ctx, 30*time.Second, "healthy", func(ctx context.Context) error {
		return httpOK(ctx, nil, client+"/health")
	})
}

func (e *Env) startAPIServer(ctx context.Context, p *pki, port, etcdPort int) error {
	audit, err := e.auditFlags()
	if err != nil {
		return err
	}
	tokens := p.path("google-tokens.csv")
	if err := os.WriteFile(tokens, []byte(tokenFileLine(e.GoogleAccessToken)), 0o600); err != nil {
		return err
	}
	proc, err := startProcess("kube-apiserver", filepath.Join(e.Dir, "logs"), 15*time.Second, nil, e.bin("kube-apiserver"), append(audit,
		"--etcd-servers=http://127.0.0.1:"+strconv.Itoa(etcdPort),
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--tls-cert-file="+p.path("apiserver.crt"), "--tls-private-key-file="+p.path("apiserver.key"),
		"--client-ca-file="+p.path("ca.crt"),
		"--token-auth-file="+tokens,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+p.path("sa.pub"),
		"--service-account-signing-key-file="+p.path("sa.key"),
		"--service-cluster-ip-range=10.0.0.0/24",
		"--authorization-mode=RBAC",
		"--allow-privileged=true",
		"--cert-dir="+filepath.Join(e.Dir, "pki", "apiserver"),
		"--v=0")...)
	if err != nil {
		return err
	}
	e.procs = append(e.procs, proc)

	server := "https://127.0.0.1:" + strconv.Itoa(port)
	kc := clientcmdapi.NewConfig()
	kc.Clusters["sandbox"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: p.clusterCA.CertPEM}
	kc.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: p.admin.CertPEM, ClientKeyData: p.admin.KeyPEM}
	kc.Contexts["sandbox"] = &clientcmdapi.Context{Cluster: "sandbox", AuthInfo: "admin"}
	kc.CurrentContext = "sandbox"
	e.Kubeconfig = filepath.Join(e.Dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, e.Kubeconfig); err != nil {
		return err
	}
	if e.REST, err = clientcmd.NewDefaultClientConfig(*kc, nil).ClientConfig(); err != nil {
		return err
	}
	e.REST.QPS, e.REST.Burst = 200, 400
	return proc.waitFor(ctx, 90*time.Second, "ready", func(ctx context.Context) error {
		return httpOK(ctx, e.REST, server+"/readyz")
	})
}

// GoogleUser is the user name kube-apiserver gives the holder of
// Env.GoogleAccessToken (in group system:masters).
const GoogleUser = "sandbox-admin@mlplatform-sandbox.iam.gserviceaccount.com"

// tokenFileLine is the --token-auth-file CSV record (token, user name, uid,
// then the groups as one comma-separated, quoted column) for token.
func tokenFileLine(token string) string {
	return token + "," + GoogleUser + ",google-sandbox-admin,\"system:masters\"\n"
}

// randomToken returns a fresh access token, shaped like none in particular.
func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "ya29.sandbox-" + hex.EncodeToString(b)
}

// auditPolicy logs every request once (when its response is complete) at
// Metadata level, except the lease renewals and events controllers send.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived", "ResponseStarted"]
rules:
- level: None
  resources:
  - group: coordination.k8s.io
    resources: ["leases"]
  - group: ""
    resources: ["events"]
  - group: events.k8s.io
    resources: ["events"]
- level: Metadata
`

// auditFlags returns the kube-apiserver flags for Options.AuditLog.
func (e *Env) auditFlags() ([]string, error) {
	if e.opts.AuditLog == "" {
		return nil, nil
	}
	policy := filepath.Join(e.Dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
		return nil, err
	}
	return []string{
		"--audit-policy-file=" + policy,
		"--audit-log-path=" + e.opts.AuditLog,
		"--audit-log-format=json",
		"--audit-log-mode=blocking",
		"--audit-log-maxsize=0",
	}, nil
}

func (e *Env) startControllerManager() error {
	p, err := startProcess("kube-controller-manager", filepath.Join(e.Dir, "logs"), 10*time.Second, nil, e.bin("kube-controller-manager"),
		"--kubeconfig="+e.Kubeconfig,
		"--controllers=namespace,garbagecollector,persistentvolumeclaim-protection-controller",
		"--leader-elect=false", "--secure-port=0", "--v=0")
	if err != nil {
		return err
	}
	e.procs = append(e.procs, p)
	// It has no health endpoint without a secure port; give it a moment to fail
	// on bad flags so the error names it, instead of a later namespace hang.
	select {
	case <-p.done:
		return p.failure("right after start")
	case <-time.After(300 * time.Millisecond):
		return nil
	}
}

// StopProcess stops only the named child process (SIGTERM, then SIGKILL
// after its grace period), e.g. "kube-apiserver" to make a cluster
// unreachable; the rest keeps running, and Stop still cleans up.
func (e *Env) StopProcess(name string) error {
	for _, p := range e.procs {
		if p.name == name {
			p.Stop()
			return nil
		}
	}
	names := make([]string, 0, len(e.procs))
	for _, p := range e.procs {
		names = append(names, p.name)
	}
	return fmt.Errorf("no process %q in this environment (it runs %s)", name, strings.Join(names, ", "))
}

// StopAPIServer stops only this environment's kube-apiserver, so the cluster
// is unreachable while its other processes (and the GKE fake) keep running.
func (e *Env) StopAPIServer() error { return e.StopProcess("kube-apiserver") }

// RestartAPIServer starts the kube-apiserver StopAPIServer stopped again, on
// the same port with the same etcd and certificates, and waits until it is
// ready; the controllers connected to it reconnect on their own.
func (e *Env) RestartAPIServer(ctx context.Context) error {
	for _, p := range e.procs {
		if p.name == "kube-apiserver" && !p.exited() {
			return errors.New("kube-apiserver is still running")
		}
	}
	return e.restartAPI(ctx)
}

// Stop stops every process (SIGTERM, then SIGKILL after a grace period), in
// reverse start order, and removes the directory if Start created it. A GKE
// fake shared by a Multi is left to Multi.Stop.
func (e *Env) Stop() {
	e.stopOnce.Do(func() {
		if e.GCP != nil && e.ownsGCP {
			e.GCP.Stop()
		}
		for i := len(e.procs) - 1; i >= 0; i-- {
			e.procs[i].Stop()
		}
		if e.ownsDir {
			_ = os.RemoveAll(e.Dir)
		}
	})
}
