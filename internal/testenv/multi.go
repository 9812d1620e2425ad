package testenv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
)

// Multi is a MultiKueue set-up: one manager environment and N worker
// environments, each a full Env with its own etcd, kube-apiserver,
// kube-controller-manager, Kueue manager and GKE/IAM fake on free ports, as
// Kueue's own MultiKueue integration tests run one API server per cluster.
// The Kueue managers all run the default configuration, in which MultiKueue
// (beta, on by default since v0.9) and the batch/job integration are on.
type Multi struct {
	Manager *Env
	Workers []*Env
}

// StartMulti starts the manager and workers environments concurrently. opts
// applies to each; when opts.Dir is set, each environment gets its own
// subdirectory (manager, worker-1, ...), and opts.AuditLog and opts.GCPAddr
// apply to the manager only (the workers' fakes listen on free ports). On
// error everything started so far is stopped again. Start alone is
// unchanged, so the single-cluster tests and sandbox pay nothing for this.
func StartMulti(ctx context.Context, opts Options, workers int) (*Multi, error) {
	if workers < 1 {
		return nil, fmt.Errorf("StartMulti needs at least one worker, got %d", workers)
	}
	names := []string{"manager"}
	for i := 1; i <= workers; i++ {
		names = append(names, fmt.Sprintf("worker-%d", i))
	}
	envs := make([]*Env, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	var logMu sync.Mutex // the environments start concurrently and share opts.Log
	for i, name := range names {
		o := opts
		if o.Dir != "" {
			o.Dir = filepath.Join(opts.Dir, name)
		}
		if i > 0 {
			o.AuditLog, o.GCPAddr = "", ""
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
	m := &Multi{Manager: envs[0], Workers: envs[1:]}
	if err := errors.Join(errs...); err != nil {
		m.Stop()
		return nil, err
	}
	return m, nil
}

// Stop stops every environment (concurrently); nil entries are skipped.
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
