package gke

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"

	container "cloud.google.com/go/container/apiv1"
	"cloud.google.com/go/container/apiv1/containerpb"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
	"k8s.io/client-go/rest"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/readcache"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// Client is the GKE API client.
type Client struct {
	CM *container.ClusterManagerClient

	locks ClusterLocks // serializes this client's node-pool mutations per cluster
	retry retry.Policy // waits out UNAVAILABLE (WithRetry); zero: no retries

	// Reads shared by the resources of one provider process (see cache.go).
	clusters readcache.Cache[string, *containerpb.Cluster]    // by cluster name
	pools    readcache.Cache[string, []*containerpb.NodePool] // by cluster name
}

// New builds the client; opts come from ClientOptions.
func New(ctx context.Context, opts ...option.ClientOption) (*Client, error) {
	cm, err := container.NewClusterManagerClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("build the GKE client: %w", err)
	}
	c := &Client{CM: cm}
	c.pools.Keep = settled
	c.clusters.Bypass, c.pools.Bypass = true, true
	return c, nil
}

// EnableReadCache makes the client remember what it read (see cache.go) and
// returns it. Only the provider's own clients, built once per provider
// process, do this: a long-lived client, like a test's or an operator
// tool's, would not see writes made by others.
func (c *Client) EnableReadCache() *Client {
	c.clusters.Bypass, c.pools.Bypass = false, false
	return c
}

// WithRetry makes every call wait out UNAVAILABLE within p's bound, and
// returns the client.
func (c *Client) WithRetry(p retry.Policy) *Client {
	c.retry = p
	return c
}

// call runs one RPC, waiting out UNAVAILABLE.
func call[T any](ctx context.Context, c *Client, rpc func(context.Context) (T, error)) (T, error) {
	return retry.Call(ctx, c.retry, retry.Unavailable("GKE"), rpc)
}

// Close releases the connection.
func (c *Client) Close() error { return c.CM.Close() }

// ClusterREST returns a rest.Config for the cluster's own endpoint, trusting
// the cluster CA and authenticating with a Google OAuth token, as
// gke-gcloud-auth-plugin does.
func (c *Client) ClusterREST(ctx context.Context, name string, tokens oauth2.TokenSource) (*rest.Config, error) {
	cl, err := c.cluster(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read cluster %s to find its endpoint: %w", name, err)
	}
	return RESTForCluster(cl, tokens)
}

// RESTForCluster is ClusterREST for a cluster already read.
func RESTForCluster(cl *containerpb.Cluster, tokens oauth2.TokenSource) (*rest.Config, error) {
	if cl.GetEndpoint() == "" {
		return nil, fmt.Errorf("cluster %s has no endpoint yet (status %s); wait until it is RUNNING", cl.GetName(), cl.GetStatus())
	}
	ca, err := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
	if err != nil || len(ca) == 0 {
		return nil, fmt.Errorf("cluster %s has no usable CA certificate in masterAuth.clusterCaCertificate", cl.GetName())
	}
	cfg := &rest.Config{
		Host:            "https://" + cl.GetEndpoint(),
		TLSClientConfig: rest.TLSClientConfig{CAData: ca},
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &oauth2.Transport{Source: oauth2.ReuseTokenSource(nil, tokens), Base: rt}
	})
	return cfg, nil
}
