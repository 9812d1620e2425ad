package gke

import (
	"context"
	"sync"
)

// ClusterLocks serializes mutations per cluster within one provider process,
// like terraform-provider-google's lock on the cluster plus a lock on the
// node pool: GKE runs one mutating operation per cluster at a time, so
// queueing here instead of racing saves each request a FAILED_PRECONDITION
// and a backoff. The zero value is ready to use.
type ClusterLocks struct {
	mu    sync.Mutex
	slots map[string]chan struct{} // key: cluster or node pool resource name
}

func (l *ClusterLocks) sem(key string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.slots == nil {
		l.slots = map[string]chan struct{}{}
	}
	s, ok := l.slots[key]
	if !ok {
		s = make(chan struct{}, 1)
		l.slots[key] = s
	}
	return s
}

func acquire(ctx context.Context, s chan struct{}) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Lock takes the node pool's lock, then the cluster's, waiting at most until
// ctx ends. unlock releases both.
func (l *ClusterLocks) Lock(ctx context.Context, cluster, nodePool string) (unlock func(), err error) {
	pool, cl := l.sem(nodePool), l.sem(cluster)
	if err := acquire(ctx, pool); err != nil {
		return nil, err
	}
	if err := acquire(ctx, cl); err != nil {
		<-pool
		return nil, err
	}
	return func() { <-cl; <-pool }, nil
}

// NodePoolLocks returns the client's per-cluster mutation locks.
func (c *Client) NodePoolLocks() *ClusterLocks { return &c.locks }
