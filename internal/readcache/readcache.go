// Package readcache remembers what a provider process read from an API and
// coalesces concurrent reads of the same thing into one request.
//
// A plan reads every managed object once, many of them through the same
// cloud object (every GPU pool of a cluster, every binding on one Google
// service account). A Cache lets those share one request. It never serves a
// value older than the last write: every write of the kind calls Invalidate
// (before and after it), which drops every entry and starts a new
// generation; a read that was in flight across a write is neither stored nor
// shared with readers that came after the write. Failed reads are not
// remembered.
//
// A Cache belongs to one API client, which platform.Clients builds once per
// provider process; it is never a package global.
package readcache

import (
	"context"
	"errors"
	"sync"
)

// Cache maps keys to values read through a load function. The zero value is
// ready to use and keeps every successful read.
type Cache[K comparable, V any] struct {
	// Keep, when set, decides whether a freshly read value may be served to
	// later readers (e.g. not while an object is changing, so a poll sees
	// each new state). It is still returned to the readers of its request.
	Keep func(V) bool
	// Bypass, when set, makes Get call load every time: the cache is off.
	Bypass bool

	mu      sync.Mutex
	gen     uint64
	entries map[K]V
	flights map[K]*flight[V]
}

type flight[V any] struct {
	gen  uint64
	done chan struct{}
	v    V
	err  error
}

// Get returns the value for key: remembered, or being read by another
// caller, or read now with load.
func (c *Cache[K, V]) Get(ctx context.Context, key K, load func(context.Context) (V, error)) (V, error) {
	if c.Bypass {
		return load(ctx)
	}
	for {
		c.mu.Lock()
		if v, ok := c.entries[key]; ok {
			c.mu.Unlock()
			return v, nil
		}
		f, ok := c.flights[key]
		if !ok || f.gen != c.gen { // none, or started before the last write: read anew
			f = &flight[V]{gen: c.gen, done: make(chan struct{})}
			if c.flights == nil {
				c.flights = map[K]*flight[V]{}
			}
			c.flights[key] = f
			c.mu.Unlock()
			return c.lead(ctx, key, f, load)
		}
		c.mu.Unlock()
		select {
		case <-f.done:
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
		if isContextErr(f.err) && ctx.Err() == nil {
			continue // the reader we waited for gave up; read for ourselves
		}
		return f.v, f.err
	}
}

func (c *Cache[K, V]) lead(ctx context.Context, key K, f *flight[V], load func(context.Context) (V, error)) (V, error) {
	defer close(f.done)
	f.v, f.err = load(ctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flights[key] == f {
		delete(c.flights, key)
	}
	if f.err == nil && f.gen == c.gen && (c.Keep == nil || c.Keep(f.v)) {
		if c.entries == nil {
			c.entries = map[K]V{}
		}
		c.entries[key] = f.v
	}
	return f.v, f.err
}

// Invalidate forgets every value and every read in flight. Writers call it
// before and after each write of the kind the cache holds.
func (c *Cache[K, V]) Invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.entries)
}

// Around runs write between two Invalidates.
func Around[T any, K comparable, V any](c *Cache[K, V], write func() (T, error)) (T, error) {
	c.Invalidate()
	defer c.Invalidate()
	return write()
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
