// Package kube builds the Kubernetes clients the platform uses (the core and
// Kueue typed clientsets and a dynamic client, from one rest.Config), with a
// transport that waits out transient failures and list reads (ListCache).
//
// A provider is not a controller: a plan reads every managed object once, in
// a burst, then exits. client-go's default client-side limit (5 requests/s,
// burst 10) would make a plan of a few hundred objects wait tens of seconds
// on itself. Terraform already bounds how many requests are in flight (its
// -parallelism, 10 by default), and the API server's priority-and-fairness
// protects it from any one client, so the limit here is set where a plan never
// meets it: a 100-team platform's plan read with GETs (where RBAC refuses a
// cluster-wide list) is about 500 reads in 3 to 5 s, and with the earlier
// 100/s after a burst of 200, `make bench` measured the plan waiting on the
// limiter. It remains as a backstop against a runaway loop.
package kube

import (
	"fmt"
	"net/http"
	"sync"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// FieldManager is the server-side apply field owner of everything the
// platform writes.
const FieldManager = "mlplatform"

// Client-side rate limits; see the package comment.
const (
	QPS   = 1000
	Burst = 2000
)

// Endpoint is how a cluster's API server is reached and trusted: what a
// kubeconfig written for it needs besides credentials.
type Endpoint struct {
	Server string // https://HOST[:PORT]
	CAData []byte // PEM; empty means the system's roots
}

// Client holds the typed clientsets, and a dynamic client for the kinds of
// other projects the platform only reads (JobSets).
type Client struct {
	Host    string
	Core    kubernetes.Interface
	Kueue   kueueclient.Interface
	Dynamic dynamic.Interface

	listReads bool     // EnableListReads
	lists     sync.Map // kind → *ListCache[O] (Listed)
}

// EnableListReads makes the read path of the resources serve each kind from
// one LIST per provider process (ListCache). platform.Clients turns it on;
// a Client built otherwise reads each object with a GET.
func (c *Client) EnableListReads() *Client {
	c.listReads = true
	return c
}

// Option configures New.
type Option func(*rest.Config)

// WithRetry makes every request wait out transient failures of the API
// server and its webhooks within p's bound (retry.go).
func WithRetry(p retry.Policy) Option {
	return func(c *rest.Config) {
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &transientTransport{next: rt, policy: p} })
	}
}

// WithName names the cluster in the error of a request its API server did
// not answer (an *UnreachableError), so a configuration with several
// clusters (a MultiKueue manager and its workers) says which one is down.
func WithName(name string) Option {
	return func(c *rest.Config) {
		host := c.Host
		c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return roundTripFunc(func(req *http.Request) (*http.Response, error) {
				resp, err := rt.RoundTrip(req)
				if err != nil && req.Context().Err() == nil {
					err = &UnreachableError{Cluster: name, Host: host, Err: err}
				}
				return resp, err
			})
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// UnreachableError is a request a cluster's API server did not answer.
type UnreachableError struct {
	Cluster, Host string
	Err           error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cluster %s (%s) did not answer: %v", e.Cluster, e.Host, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// New builds the clientsets from cfg (copied; cfg is not modified).
func New(cfg *rest.Config, userAgent string, opts ...Option) (*Client, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = QPS, Burst
	if userAgent != "" {
		c.UserAgent = userAgent
	}
	for _, o := range opts {
		o(c)
	}
	core, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("build the Kubernetes client for %s: %w", c.Host, err)
	}
	kq, err := kueueclient.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("build the Kueue client for %s: %w", c.Host, err)
	}
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("build the dynamic client for %s: %w", c.Host, err)
	}
	return &Client{Host: c.Host, Core: core, Kueue: kq, Dynamic: dyn}, nil
}
