package kube

import (
	"context"
	"fmt"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/readcache"
)

// ListCache serves the reads of one kind during a plan from one LIST of it.
//
// A plan reads every managed object once. One GET each made a 100-team plan
// 500 requests, and the API server spent 1.6 s of CPU and etcd 0.5 s on them
// (`make bench`); one LIST per kind is a handful of requests, served from the
// API server's watch cache. The list is a hint, not the truth about absence:
// an object it does not hold (deleted, not yet labelled, or the list is
// filtered by label) is read with a GET by the caller.
//
// Only the read path of a resource (Terraform's refresh) uses it. Every
// write of the kind calls Invalidate before and after it, so a read after a
// write lists again (readcache's generations); apply paths read with GETs of
// their own anyway, and waits poll with GETs.
type ListCache[O any] struct {
	list  func(context.Context) ([]O, error)
	name  func(O) string // namespace/name
	cache readcache.Cache[struct{}, map[string]O]
	// forbidden is set once the API server refused the list (RBAC may grant
	// get without list, e.g. roles bound per namespace): from then on the
	// process reads with GETs only, instead of trying a refused list before
	// each of them.
	forbidden atomic.Bool
}

// Lookup returns the object namespace/name ("" namespace for cluster-scoped
// kinds) as the kind's list holds it; listed is false when the list does not
// hold it. A nil ListCache (list reads off) lists nothing.
func (l *ListCache[O]) Lookup(ctx context.Context, namespace, name string) (obj O, listed bool, err error) {
	byName, ok, err := l.Items(ctx)
	if !ok || err != nil {
		return obj, false, err
	}
	obj, listed = byName[namespace+"/"+name]
	return obj, listed, nil
}

// Items returns every object of the list by namespace/name (for callers
// that group them, e.g. by namespace); callers must not modify them. A nil
// ListCache, or one whose list the API server refused, returns ok false.
func (l *ListCache[O]) Items(ctx context.Context) (byName map[string]O, ok bool, err error) {
	if l == nil || l.forbidden.Load() {
		return nil, false, nil
	}
	byName, err = l.cache.Get(ctx, struct{}{}, func(ctx context.Context) (map[string]O, error) {
		items, err := l.list(ctx)
		if apierrors.IsForbidden(err) {
			l.forbidden.Store(true)
		}
		if err != nil {
			return nil, err
		}
		m := make(map[string]O, len(items))
		for _, o := range items {
			m[l.name(o)] = o
		}
		return m, nil
	})
	return byName, err == nil, err
}

// Invalidate forgets the list; writers of the kind call it before and after
// each write. Nil-safe.
func (l *ListCache[O]) Invalidate() {
	if l != nil {
		l.cache.Invalidate()
	}
}

// Listed returns c's ListCache for kind (one per client and kind, shared by
// every resource of the process), or nil when c does not read by lists
// (EnableListReads not called: tests that count or race reads, and any client
// not built by platform.Clients). list is used the first time.
func Listed[O metav1.Object](c *Client, kind string, list func(context.Context) ([]O, error)) *ListCache[O] {
	if c == nil || !c.listReads {
		return nil
	}
	if v, ok := c.lists.Load(kind); ok {
		return v.(*ListCache[O])
	}
	v, _ := c.lists.LoadOrStore(kind, &ListCache[O]{list: list, name: func(o O) string { return o.GetNamespace() + "/" + o.GetName() }})
	return v.(*ListCache[O])
}

// ListFunc adapts a typed client's List (e.g. ClusterQueues().List) to the
// []O a ListCache takes, with opts (e.g. a label selector).
func ListFunc[O metav1.Object, L runtime.Object](list func(context.Context, metav1.ListOptions) (L, error), opts metav1.ListOptions) func(context.Context) ([]O, error) {
	return func(ctx context.Context) ([]O, error) {
		l, err := list(ctx, opts)
		if err != nil {
			return nil, err
		}
		objs, err := meta.ExtractList(l)
		if err != nil {
			return nil, err
		}
		out := make([]O, 0, len(objs))
		for _, o := range objs {
			t, ok := o.(O)
			if !ok {
				return nil, fmt.Errorf("list item is %T, not %T", o, t)
			}
			out = append(out, t)
		}
		return out, nil
	}
}
