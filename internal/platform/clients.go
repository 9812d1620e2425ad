package platform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/compute"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
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

	computeOnce sync.Once
	compute     *compute.Client
	computeErr  error

	workersMu sync.Mutex
	workers   map[string]*worker // by spec.Worker.String()
}

// worker is a worker cluster's client, built once.
type worker struct {
	once     sync.Once
	kube     *kube.Client
	endpoint kube.Endpoint
	err      error
}

// NewClients returns clients for cfg; nothing connects until first use.
func NewClients(cfg Config) *Clients { return &Clients{Config: cfg} }

// grpcOptions points an official Google client at endpoint.
func (c *Clients) grpcOptions(endpoint string) []option.ClientOption {
	var opts []option.ClientOption
	if endpoint != "" {
		opts = append(opts, option.WithEndpoint(endpoint))
	}
	switch {
	case c.Config.InsecureEndpoints && endpoint != "" && IsLoopback(endpoint):
		opts = append(opts, option.WithoutAuthentication(),
			option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())))
	case c.Config.AccessToken != "":
		opts = append(opts, option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.Config.AccessToken})))
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

// Compute returns the Compute Engine REST client (doctor's quota and
// subnetwork reads). Its endpoint is a URL: ComputeEndpoint with http://
// when InsecureEndpoints allows a loopback one (the local fake), else
// https://; Google's by default.
func (c *Clients) Compute(ctx context.Context) (*compute.Client, error) {
	c.computeOnce.Do(func() {
		var opts []option.ClientOption
		ep := c.Config.ComputeEndpoint
		switch {
		case ep != "" && c.Config.InsecureEndpoints && IsLoopback(ep):
			opts = append(opts, option.WithEndpoint("http://"+ep), option.WithoutAuthentication())
		case ep != "":
			opts = append(opts, option.WithEndpoint("https://"+ep))
		}
		if c.Config.AccessToken != "" && !(ep != "" && c.Config.InsecureEndpoints && IsLoopback(ep)) {
			opts = append(opts, option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.Config.AccessToken})))
		}
		if c.Config.UserAgent != "" {
			opts = append(opts, option.WithUserAgent(c.Config.UserAgent))
		}
		c.compute, c.computeErr = compute.New(context.WithoutCancel(ctx), opts...)
	})
	return c.compute, c.computeErr
}

// Kube returns the Kubernetes clients: from the kubeconfig when one is set,
// else from the GKE cluster's endpoint with a Google token.
func (c *Clients) Kube(ctx context.Context) (*kube.Client, error) {
	c.kubeOnce.Do(func() {
		var cfg *rest.Config
		cfg, c.kubeErr = c.restConfig(ctx)
		if c.kubeErr == nil {
			opts := []kube.Option{kube.WithRetry(c.Config.Retry)}
			if name := c.clusterLabel(); name != "" {
				opts = append(opts, kube.WithName(name))
			}
			c.kube, c.kubeErr = kube.New(cfg, c.Config.UserAgent, opts...)
		}
		if c.kubeErr == nil {
			c.kube.EnableListReads() // a plan reads each kind with one LIST
		}
	})
	return c.kube, c.kubeErr
}

// clusterLabel names the provider's cluster in errors: its GKE name, else
// its kubeconfig context; "" when neither is set.
func (c *Clients) clusterLabel() string {
	if c.Config.Cluster != "" {
		return c.Config.Cluster
	}
	return c.Config.KubeContext
}

// workerLabel names a worker cluster in errors.
func workerLabel(w spec.Worker) string {
	switch {
	case w.GKE != nil:
		return w.GKE.Name
	case w.KubeContext != "":
		return w.KubeContext
	}
	return w.Kubeconfig
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
	tokens, err := c.googleTokens(ctx, c.Config.ClusterName())
	if err != nil {
		return nil, err
	}
	return g.ClusterREST(ctx, c.Config.ClusterName(), tokens)
}

// googleTokens is the Google identity the provider reaches a GKE cluster's
// endpoint with: access_token when set, else Application Default Credentials.
func (c *Clients) googleTokens(ctx context.Context, cluster string) (oauth2.TokenSource, error) {
	if c.Config.AccessToken != "" {
		return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: c.Config.AccessToken}), nil
	}
	tokens, err := google.DefaultTokenSource(context.WithoutCancel(ctx), cloudPlatformScope)
	if err != nil {
		return nil, fmt.Errorf("find Google credentials to reach cluster %s (run `gcloud auth application-default login`, set access_token, or set kubeconfig): %w",
			cluster, err)
	}
	return tokens, nil
}

// Worker returns the client of a MultiKueue worker cluster and how a
// kubeconfig reaches it, built once per worker: a GKE cluster's endpoint and
// CA from the GKE API with the provider's Google identity (as for its own
// cluster), or a kubeconfig file and context.
func (c *Clients) Worker(ctx context.Context, w spec.Worker) (*kube.Client, kube.Endpoint, error) {
	c.workersMu.Lock()
	if c.workers == nil {
		c.workers = map[string]*worker{}
	}
	wk, ok := c.workers[w.String()]
	if !ok {
		wk = &worker{}
		c.workers[w.String()] = wk
	}
	c.workersMu.Unlock()
	wk.once.Do(func() {
		var cfg *rest.Config
		cfg, wk.err = c.workerREST(ctx, w)
		if wk.err != nil {
			return
		}
		wk.endpoint = kube.Endpoint{Server: cfg.Host, CAData: cfg.CAData}
		if len(wk.endpoint.CAData) == 0 && cfg.CAFile != "" {
			if wk.endpoint.CAData, wk.err = os.ReadFile(cfg.CAFile); wk.err != nil {
				wk.err = fmt.Errorf("read the CA file of %s: %w", w, wk.err)
				return
			}
		}
		wk.kube, wk.err = kube.New(cfg, c.Config.UserAgent, kube.WithRetry(c.Config.Retry), kube.WithName(workerLabel(w)))
	})
	return wk.kube, wk.endpoint, wk.err
}

func (c *Clients) workerREST(ctx context.Context, w spec.Worker) (*rest.Config, error) {
	if w.GKE == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = ""
		rules.Precedence = filepathList(w.Kubeconfig)
		overrides := &clientcmd.ConfigOverrides{CurrentContext: w.KubeContext}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("load the worker's kubeconfig %s (context %q): %w", w.Kubeconfig, w.KubeContext, err)
		}
		return cfg, nil
	}
	g, err := c.GKE(ctx)
	if err != nil {
		return nil, err
	}
	tokens, err := c.googleTokens(ctx, w.GKE.String())
	if err != nil {
		return nil, err
	}
	return g.ClusterREST(ctx, w.GKE.String(), tokens)
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
	if c.compute != nil {
		errs = append(errs, c.compute.Close())
	}
	return errors.Join(errs...)
}
