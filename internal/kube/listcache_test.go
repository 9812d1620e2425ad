package kube

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func ns(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

// The cache logic alone (the real API server is in
// resources.TestAccListReadsNeverStale): one list for concurrent lookups, a
// new list after Invalidate, errors not remembered, off unless enabled.
func TestListCache(t *testing.T) {
	t.Parallel()
	var lists atomic.Int32
	fail := atomic.Bool{}
	items := []*corev1.Namespace{ns("a"), ns("b")}
	list := func(context.Context) ([]*corev1.Namespace, error) {
		lists.Add(1)
		if fail.Load() {
			return nil, errors.New("forbidden")
		}
		return items, nil
	}
	if got := Listed(&Client{}, "Namespace", list); got != nil {
		t.Fatal("a client without EnableListReads lists")
	}
	c := (&Client{}).EnableListReads()
	l := Listed(c, "Namespace", list)
	if l != Listed(c, "Namespace", list) {
		t.Fatal("two caches for one kind")
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, listed, err := l.Lookup(ctx, "", "a"); err != nil || !listed {
				t.Errorf("lookup a: listed=%v err=%v", listed, err)
			}
		})
	}
	wg.Wait()
	if _, listed, _ := l.Lookup(ctx, "", "zz"); listed {
		t.Error("zz listed")
	}
	l.Invalidate()
	items = []*corev1.Namespace{ns("c")}
	if _, listed, _ := l.Lookup(ctx, "", "c"); !listed {
		t.Error("c not listed after Invalidate")
	}
	l.Invalidate()
	fail.Store(true)
	for range 2 {
		if _, _, err := l.Lookup(ctx, "", "c"); err == nil {
			t.Error("no error from a failing list")
		}
	}
	if diff := cmp.Diff(int32(4), lists.Load()); diff != "" {
		t.Errorf("lists (-want +got):\n%s", diff)
	}
	// A list the API server refuses is not asked for again: the reads go
	// straight to GETs.
	forbidden := Listed(c, "ServiceAccount", func(context.Context) ([]*corev1.ServiceAccount, error) {
		lists.Add(1)
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "serviceaccounts"}, "", errors.New("RBAC: list not allowed"))
	})
	for range 3 {
		if _, listed, _ := forbidden.Lookup(ctx, "team-a", "trainer"); listed {
			t.Error("listed from a refused list")
		}
	}
	if diff := cmp.Diff(int32(5), lists.Load()); diff != "" {
		t.Errorf("lists after a refusal (-want +got):\n%s", diff)
	}
	var off *ListCache[*corev1.Namespace]
	off.Invalidate()
	if _, listed, err := off.Lookup(ctx, "", "a"); listed || err != nil {
		t.Errorf("nil cache: listed=%v err=%v", listed, err)
	}
}
