package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
)

// Multi is a MultiKueue set-up: one manager environment and N worker
// environments, each a full Env with its own etcd, kube-apiserver,
// kube-controller-manager, JobSet controller and Kueue manager on free ports,
// as Kueue's own MultiKueue integration tests run one API server per cluster,
// and one GKE/IAM fake holding every cluster, as one Google project would.
// The Kueue managers all run the environment's configuration (KueueConfig),
// in which MultiKueue (beta, on by default since v0.9) and the batch/job and
// jobset integrations are on. Every cluster runs the JobSet controller: a
// manager's JobSets are managed by MultiKueue (Kueue's webhook sets their
// spec.managedBy, so the manager's JobSet controller leaves them alone) and
// dispatched to a worker, whose JobSet controller creates their Jobs.
//
// Manager.GCP and every Workers[i].GCP are the same *fakegcp.Server. Each
// cluster in it has its environment's real endpoint (127.0.0.1:PORT of its
// kube-apiserver) and CA, and every kube-apiserver accepts the same
// GoogleAccessToken, so gke.RESTForCluster on a cluster read from the fake
// reaches that environment.
type Multi struct {
	Manager *Env
	Workers []*Env

	gcp *fakegcp.Server // owned: stopped by Stop, after the environments
}

// WorkerLocations are the GKE locations of the workers' clusters, in order:
// worker-1 is in europe-west4, worker-2 in us-east4, and so on. The manager
// keeps DefaultLocation. StartMulti starts at most len(WorkerLocations)
// workers.
var WorkerLocations = []string{"europe-west4", "us-east4", "asia-southeast1", "australia-southeast1", "southamerica-east1"}

// WorkerName is the cluster (and subdirectory) name of worker i, counting
// from 1: "worker-1", ...
func WorkerName(i int) string { return fmt.Sprintf("worker-%d", i) }

// StartMulti starts the manager and workers environments concurrently, with
// one GKE/IAM fake for all (listening on opts.GCPAddr) and one
// GoogleAccessToken for all (opts.GoogleAccessToken, or a random one). opts
// applies to each; when opts.Dir is set, each environment gets its own
// subdirectory (manager, worker-1, ...), and opts.AuditLog applies to the
// manager only. The manager's cluster is DefaultProject/DefaultLocation/
// DefaultCluster; worker i's is DefaultProject/WorkerLocations[i-1]/
// WorkerName(i). On error everything started so far is stopped again. Start
// alone is unchanged, so the single-cluster tests and sandbox pay nothing for
// this.
func StartMulti(ctx context.Context, opts Options, workers int) (_ *Multi, err error) {
	if workers < 1 {
		return nil, fmt.Errorf("StartMulti needs at least one worker, got %d", workers)
	}
	if workers > len(WorkerLocations) {
		return nil, fmt.Errorf("StartMulti starts at most %d workers (one per location in testenv.WorkerLocations), got %d",
			len(WorkerLocations), workers)
	}
	if err := checkBins(withBinDir(opts)); err != nil {
		return nil, err
	}
	if opts.GoogleAccessToken == "" {
		opts.GoogleAccessToken = randomToken()
	}
	opts.JobWebhooks = true // MultiKueue dispatches Jobs whose managedBy the manager's webhook sets
	addr := opts.GCPAddr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	gcp := fakegcp.New()
	if err := gcp.Start(addr); err != nil {
		return nil, fmt.Errorf("start the GKE/IAM fake on %s: %w", addr, err)
	}
	m := &Multi{gcp: gcp}
	defer func() {
		if err != nil {
			m.Stop()
		}
	}()
	names := []string{"manager"}
	for i := 1; i <= workers; i++ {
		names = append(names, WorkerName(i))
	}
	envs := make([]*Env, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	var logMu sync.Mutex // the environments start concurrently and share opts.Log
	for i, name := range names {
		o := opts
		o.gcp = gcp
		if o.Dir != "" {
			o.Dir = filepath.Join(opts.Dir, name)
		}
		if i > 0 {
			o.AuditLog = ""
			o.location, o.cluster = WorkerLocations[i-1], name
		}
		if o.Log != nil {
			o.Log = prefixWriter{w: o.Log, prefix: name + ": ", mu: &logMu}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			env, err := Start(ctx, o)
			envs[i] = env
			if err != nil {
				errs[i] = fmt.Errorf("start the %s environment: %w", name, err)
			}
		}()
	}
	wg.Wait()
	m.Manager, m.Workers = envs[0], envs[1:]
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// withBinDir is opts with BinDir and KueueBinDir defaulted as Start does.
func withBinDir(opts Options) Options {
	if opts.BinDir == "" {
		opts.BinDir = os.Getenv(EnvBins)
	}
	if opts.KueueBinDir == "" {
		opts.KueueBinDir = opts.BinDir
	}
	return opts
}

// Stop stops every environment (concurrently; nil entries are skipped),
// then the shared GKE/IAM fake, once.
func (m *Multi) Stop() {
	var wg sync.WaitGroup
	for _, e := range append([]*Env{m.Manager}, m.Workers...) {
		if e == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.Stop()
		}()
	}
	wg.Wait()
	if m.gcp != nil {
		m.gcp.Stop()
	}
}

// Envs returns the manager followed by the workers.
func (m *Multi) Envs() []*Env { return append([]*Env{m.Manager}, m.Workers...) }

// prefixWriter prefixes each write (a start-up step's line) with the
// environment's name; mu, shared by the environments, keeps their lines
// whole when the writer itself is not safe for concurrent use.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mu     *sync.Mutex
}

func (p prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.w.Write(append([]byte(p.prefix), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}
