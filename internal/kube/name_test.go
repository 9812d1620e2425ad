package kube

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// A request a stopped API server does not answer names the cluster; one
// cut off by its own context is left as it is.
func TestWithNameNamesTheClusterThatDidNotAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(nil)
	host := srv.URL
	srv.Close() // nothing listens there any more
	c, err := New(&rest.Config{Host: host}, "test", WithName("worker-1"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Core.CoreV1().Namespaces().Get(context.Background(), "x", metav1.GetOptions{})
	var u *UnreachableError
	if !errors.As(err, &u) || u.Cluster != "worker-1" || u.Host != host {
		t.Fatalf("want an UnreachableError naming worker-1 at %s, got %T %v", host, err, err)
	}
	if !strings.Contains(err.Error(), "cluster worker-1 ("+host+") did not answer") {
		t.Errorf("message %q does not name the cluster", err)
	}
	// A request its own deadline cuts off while the server is slow is not
	// the cluster failing to answer (the request reaches the transport: the
	// server is there and holds it).
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer slow.Close()
	c, err = New(&rest.Config{Host: slow.URL}, "test", WithName("worker-1"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = c.Core.CoreV1().Namespaces().Get(ctx, "x", metav1.GetOptions{})
	if err == nil || errors.As(err, &u) {
		t.Errorf("a request cut off by its own deadline is reported as the cluster not answering: %v", err)
	}
}
