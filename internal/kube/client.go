// Package kube builds the Kubernetes clients the platform uses: the core
// typed clientset and Kueue's typed clientset, from one rest.Config.
//
// A provider is not a controller: a plan reads every managed object once, in
// a burst, then exits. client-go's default client-side limit (5 requests/s,
// burst 10) would make a plan of a few hundred objects wait tens of seconds
// on itself, so the limits here are set for that burst; the API server's own
// priority-and-fairness still protects it.
package kube

import (
	"fmt"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"
)

// FieldManager is the server-side apply field owner of everything the
// platform writes.
const FieldManager = "mlplatform"

// Client-side rate limits; see the package comment.
const (
	QPS   = 100
	Burst = 200
)

// Client holds the typed clientsets.
type Client struct {
	Host  string
	Core  kubernetes.Interface
	Kueue kueueclient.Interface
}

// New builds the clientsets from cfg (copied; cfg is not modified).
func New(cfg *rest.Config, userAgent string) (*Client, error) {
	c := rest.CopyConfig(cfg)
	c.QPS, c.Burst = QPS, Burst
	if userAgent != "" {
		c.UserAgent = userAgent
	}
	core, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("build the Kubernetes client for %s: %w", c.Host, err)
	}
	kq, err := kueueclient.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("build the Kueue client for %s: %w", c.Host, err)
	}
	return &Client{Host: c.Host, Core: core, Kueue: kq}, nil
}
