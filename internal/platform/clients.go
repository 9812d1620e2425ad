package platform

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
)

const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// Clients builds each API client once, on first use, and remembers a failure
// so every resource reports the same clear error.
type Clients struct {
	Config Config

	kubeOnce sync.Once
	kube     *kube.Client
	kubeErr  error

	gkeOnce sync.Once
	gke     *gke.Client
	gkeErr  error

	iamOnce sync.Once
	iam     *iam.Client
	iamErr  error
}

// NewClients returns clients for cfg; nothing connects until first use.
func NewClients(cfg Config) *Clients { return &Clients{Config: cfg} }

// grpcOptions points an official Google client at endpoint.
func (c *Clients) grpcOptions(endpoint string) []option.ClientOption {
	var opts []option.ClientOption
	if endpoint != "" {
		opts = append(opts, option.WithEndpoint(endpoint))
	}
	if c.Config.InsecureEndpoints && endpoint != "" && IsLoopback(endpoint) {
		opts = append(opts, option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	}
	if c.Config.UserAgent != "" {
		opts = append(opts, option.WithUserAgent(c.Config.UserAgent))
	}
	return opts
}

// GKE returns the GKE ClusterManager client.
func (c *Clients) GKE(ctx context.Context) (*gke.Client, error) {
	c.gkeOnce.Do(func() {
		c.gke, c.gkeErr = gke.New(context.WithoutCancel(ctx), c.grpcOptions(c.Config.ContainerEndpoint)...)
		if c.gkeErr == nil {
			c.gke.EnableReadCache().WithRetry(c.Config.Retry) // one provider process reads each cluster and pool list once
		}
	})
	return c.gke, c.gkeErr
}

// IAM returns the IAM admin client.
func (c *Clients) IAM(ctx context.Context) (*iam.Client, error) {
	c.iamOnce.Do(func() {
		c.iam, c.iamErr = iam.New(context.WithoutCancel(ctx), c.grpcOptions(c.Config.IAMEndpoint)...)
		if c.iamErr == nil {
			c.iam.EnableReadCache().WithRetry(c.Config.Retry) // one provider process reads each account and policy once
		}
	})
	return c.iam, c.iamErr
}

// Kube returns the Kubernetes clients: from the kubeconfig when one is set,
// else from the GKE cluster's endpoint with a Google token.
func (c *Clients) Kube(ctx context.Context) (*kube.Client, error) {
	c.kubeOnce.Do(func() {
		var cfg *rest.Config
		cfg, c.kubeErr = c.restConfig(ctx)
		if c.kubeErr == nil {
			c.kube, c.kubeErr = kube.New(cfg, c.Config.UserAgent, kube.WithRetry(c.Config.Retry))
		}
		if c.kubeErr == nil {
			c.kube.EnableListReads() // a plan reads each kind with one LIST
		}
	})
	return c.kube, c.kubeErr
}

// ErrNoCluster says how to tell the provider which cluster to manage.
var ErrNoCluster = errors.New("no Kubernetes cluster configured: set kubeconfig (or KUBECONFIG), " +
	"or project, location and cluster so the provider can reach the GKE cluster's endpoint")

func (c *Clients) restConfig(ctx context.Context) (*rest.Config, error) {
	if c.Config.Kubeconfig != "" {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = ""
		rules.Precedence = filepathList(c.Config.Kubeconfig)
		overrides := &clientcmd.ConfigOverrides{CurrentContext: c.Config.KubeContext}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("load kubeconfig %s (context %q): %w", c.Config.Kubeconfig, c.Config.KubeContext, err)
		}
		return cfg, nil
	}
	if c.Config.Project == "" || c.Config.Location == "" || c.Config.Cluster == "" {
		return nil, ErrNoCluster
	}
	g, err := c.GKE(ctx)
	if err != nil {
		return nil, err
	}
	tokens, err := google.DefaultTokenSource(context.WithoutCancel(ctx), cloudPlatformScope)
	if err != nil {
		return nil, fmt.Errorf("find Google credentials to reach cluster %s (run `gcloud auth application-default login`, or set kubeconfig): %w",
			c.Config.ClusterName(), err)
	}
	return g.ClusterREST(ctx, c.Config.ClusterName(), tokens)
}

// Close closes the gRPC connections that were opened.
func (c *Clients) Close() error {
	var errs []error
	if c.gke != nil {
		errs = append(errs, c.gke.Close())
	}
	if c.iam != nil {
		errs = append(errs, c.iam.Close())
	}
	return errors.Join(errs...)
}
