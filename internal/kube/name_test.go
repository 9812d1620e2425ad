package kube

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

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
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Core.CoreV1().Namespaces().Get(ctx, "x", metav1.GetOptions{}); errors.As(err, &u) {
		t.Errorf("a cancelled request is reported as the cluster not answering: %v", err)
	}
}
