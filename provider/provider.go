// Package provider is the mlplatform Terraform provider: its schema, the
// environment fallbacks, and Configure, which hands every resource the
// same lazily-built clients.
package provider

import (
	"context"
	"os"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/mlplatform/terraform-provider-mlplatform/datasources"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/resources"
)

var _ provider.Provider = &Provider{}

// Provider is the mlplatform provider.
type Provider struct {
	version string
	// getenv reads environment fallbacks; injected so tests need not touch the
	// process environment.
	getenv func(string) string
}

// New returns a constructor for the provider, as providerserver expects.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &Provider{version: version, getenv: os.Getenv} }
}

// NewWithEnv is New with an injected environment (for tests).
func NewWithEnv(version string, getenv func(string) string) func() provider.Provider {
	return func() provider.Provider { return &Provider{version: version, getenv: getenv} }
}

type providerModel struct {
	Project           types.String `tfsdk:"project"`
	Location          types.String `tfsdk:"location"`
	Cluster           types.String `tfsdk:"cluster"`
	ContainerEndpoint types.String `tfsdk:"container_endpoint"`
	IAMEndpoint       types.String `tfsdk:"iam_endpoint"`
	InsecureEndpoints types.Bool   `tfsdk:"insecure_endpoints"`
	Kubeconfig        types.String `tfsdk:"kubeconfig"`
	KubeContext       types.String `tfsdk:"kube_context"`
	Prices            types.String `tfsdk:"prices"`
	PricesFile        types.String `tfsdk:"prices_file"`
	RetryTimeout      types.String `tfsdk:"retry_timeout"`
	AccessToken       types.String `tfsdk:"access_token"`
}

func (p *Provider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "mlplatform"
	resp.Version = p.version
}

func (p *Provider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	str := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, Description: desc, MarkdownDescription: desc}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Stands up and keeps in sync a GPU training platform on GKE: GPU node pools, Kueue queues, " +
			"Workload Identity and team namespaces. Every attribute can also be set through the environment variable named in its description.",
		Attributes: map[string]schema.Attribute{
			"project":  str("Google Cloud project of the GKE cluster. Environment: `MLPLATFORM_PROJECT`, then `GOOGLE_PROJECT`, then `GOOGLE_CLOUD_PROJECT`."),
			"location": str("Location (region or zone) of the GKE cluster. Environment: `MLPLATFORM_LOCATION`."),
			"cluster":  str("Name of the GKE cluster the platform lives on. Environment: `MLPLATFORM_CLUSTER`."),
			"container_endpoint": str("host:port of the GKE API, for a local fake or a private endpoint; empty means Google's. " +
				"Environment: `MLPLATFORM_CONTAINER_ENDPOINT`."),
			"iam_endpoint": str("host:port of the IAM API; empty means Google's. Environment: `MLPLATFORM_IAM_ENDPOINT`."),
			"insecure_endpoints": schema.BoolAttribute{Optional: true,
				MarkdownDescription: "Talk plaintext gRPC without credentials to `container_endpoint` and `iam_endpoint`. Only allowed when both are " +
					"loopback addresses (the local sandbox). Environment: `MLPLATFORM_INSECURE_ENDPOINTS`."},
			"kubeconfig": str("Path to a kubeconfig file (or a list, as in `KUBECONFIG`). When unset, the provider talks to the GKE cluster's own " +
				"endpoint with its CA and a Google token, as gke-gcloud-auth-plugin does. Environment: `MLPLATFORM_KUBECONFIG`, then `KUBECONFIG`; " +
				"not when the provider block sets `cluster` itself, so a provider alias for another cluster (a MultiKueue worker) never writes to the " +
				"one the environment's kubeconfig points at."),
			"kube_context": str("Context in the kubeconfig to use; default its current context. Environment: `MLPLATFORM_KUBE_CONTEXT`."),
			"prices": str("GPU prices overriding cells of the built-in price table, as a JSON string: " +
				"`jsonencode({ source = \"2026 contract\", date = \"2026-05-01\", prices = { \"nvidia-h100-80gb\" = { on_demand = 9.8, spot = 3.9 } } })`. " +
				"Prices are USD per GPU-hour of the whole node, by accelerator type and capacity type (`on_demand`, `spot`, `flex_start`, `reservation`); " +
				"`source` and `date` (YYYY-MM-DD) are required and shown next to every figure they cover. Cells you leave out keep the built-in " +
				"figures (us-central1 list prices, dated, see the `mlplatform_gpu_catalog` data source). The same table feeds `mlplatform_gpu_catalog` " +
				"and GPU pool cost estimates; `mlplatform report --prices FILE` takes the same format. Checked when the provider is configured. " +
				"Conflicts with `prices_file`; wins over `MLPLATFORM_PRICES_FILE`."),
			"retry_timeout": str("How long a request waits out a moment of unavailability before it fails: a Kueue webhook that does not " +
				"answer (Kueue installed, upgraded or restarting), a Kueue CRD not yet established, the Kubernetes API server answering 429 or " +
				"503, GKE or IAM answering UNAVAILABLE. Each such request is retried with backoff, and the log says what it waits for; " +
				"after this long it fails with the error it got, saying how long it waited. Errors that are not transient (denied, invalid) " +
				"are never retried. A Go duration such as `90s` or `5m`; `0s` turns retries off. Default `" + retry.DefaultBound.String() + "`. " +
				"Environment: `MLPLATFORM_RETRY_TIMEOUT`."),
			"access_token": schema.StringAttribute{Optional: true, Sensitive: true,
				MarkdownDescription: "A Google OAuth 2.0 access token to authenticate with, instead of Application Default Credentials: to the GKE " +
					"and IAM APIs, and to GKE clusters' endpoints (this provider's cluster without `kubeconfig`, and MultiKueue workers named by " +
					"`gke_cluster`). Short-lived (about an hour); for CI that mints one per run. Never stored in state. " +
					"Environment: `GOOGLE_OAUTH_ACCESS_TOKEN`, as the google provider."},
			"prices_file": str("Path to a JSON file in the format of `prices`, overriding cells of the built-in price table (relative paths are " +
				"relative to the directory Terraform runs in). Use the same file for `mlplatform report --prices` so the plan and the report agree. " +
				"Environment: `MLPLATFORM_PRICES_FILE`."),
		},
	}
}

// envFallback is an attribute's environment variables, in order of precedence.
var envFallback = map[string][]string{
	"project":            {"MLPLATFORM_PROJECT", "GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT"},
	"location":           {"MLPLATFORM_LOCATION"},
	"cluster":            {"MLPLATFORM_CLUSTER"},
	"container_endpoint": {"MLPLATFORM_CONTAINER_ENDPOINT"},
	"iam_endpoint":       {"MLPLATFORM_IAM_ENDPOINT"},
	"insecure_endpoints": {"MLPLATFORM_INSECURE_ENDPOINTS"},
	"kubeconfig":         {"MLPLATFORM_KUBECONFIG", "KUBECONFIG"},
	"kube_context":       {"MLPLATFORM_KUBE_CONTEXT"},
	"prices_file":        {platform.PricesFileEnv},
	"retry_timeout":      {"MLPLATFORM_RETRY_TIMEOUT"},
	"access_token":       {"GOOGLE_OAUTH_ACCESS_TOKEN"},
}

func (p *Provider) env(attr string) string {
	for _, name := range envFallback[attr] {
		if v := p.getenv(name); v != "" {
			return v
		}
	}
	return ""
}

func (p *Provider) str(attr string, v types.String) string {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueString()
	}
	return p.env(attr)
}

func (p *Provider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg := platform.Config{
		Project:           p.str("project", m.Project),
		Location:          p.str("location", m.Location),
		Cluster:           p.str("cluster", m.Cluster),
		ContainerEndpoint: p.str("container_endpoint", m.ContainerEndpoint),
		IAMEndpoint:       p.str("iam_endpoint", m.IAMEndpoint),
		Kubeconfig:        p.str("kubeconfig", m.Kubeconfig),
		KubeContext:       p.str("kube_context", m.KubeContext),
		UserAgent:         "terraform-provider-mlplatform/" + p.version,
		AccessToken:       p.str("access_token", m.AccessToken),
	}
	if m.Kubeconfig.IsNull() && !m.Cluster.IsNull() {
		// The block names its cluster: reach that one (through GKE), never
		// the one the environment's kubeconfig points at, so a provider alias
		// for a MultiKueue worker cannot write to the manager.
		cfg.Kubeconfig = ""
		if m.KubeContext.IsNull() {
			cfg.KubeContext = ""
		}
	}
	switch {
	case !m.InsecureEndpoints.IsNull() && !m.InsecureEndpoints.IsUnknown():
		cfg.InsecureEndpoints = m.InsecureEndpoints.ValueBool()
	case p.env("insecure_endpoints") != "":
		v, err := strconv.ParseBool(p.env("insecure_endpoints"))
		if err != nil {
			diagnostics.FieldErrors(&resp.Diagnostics, platformErr("insecure_endpoints", "Invalid MLPLATFORM_INSECURE_ENDPOINTS",
				"MLPLATFORM_INSECURE_ENDPOINTS is "+strconv.Quote(p.env("insecure_endpoints"))+"; use true or false."))
			return
		}
		cfg.InsecureEndpoints = v
	}
	bound, errs := retryTimeout(p.str("retry_timeout", m.RetryTimeout), m.RetryTimeout.IsNull())
	if len(errs) > 0 {
		diagnostics.FieldErrors(&resp.Diagnostics, errs)
		return
	}
	cfg.Retry = retry.Policy{Bound: bound, Logf: func(ctx context.Context, msg string, fields map[string]any) {
		tflog.Info(ctx, msg, fields)
	}}
	if errs := cfg.Validate(); len(errs) > 0 {
		diagnostics.FieldErrors(&resp.Diagnostics, errs)
		return
	}
	for _, a := range []struct {
		attr string
		v    types.String
	}{{"prices", m.Prices}, {"prices_file", m.PricesFile}} {
		if attr, v := a.attr, a.v; v.IsUnknown() {
			diagnostics.FieldErrors(&resp.Diagnostics, platformErr(attr, "Price Override Not Known Until Apply",
				attr+" depends on a value Terraform learns only during apply, but the price table must be known when planning "+
					"(cost estimates are part of the plan). Write it from literals, jsonencode() of literals, or file()."))
			return
		}
	}
	prices, errs := platform.LoadPrices(platform.PriceOverride{
		Inline:      m.Prices.ValueString(),
		File:        p.str("prices_file", m.PricesFile),
		FileFromEnv: m.PricesFile.IsNull() && p.env("prices_file") != "",
	}, nil)
	if len(errs) > 0 {
		diagnostics.FieldErrors(&resp.Diagnostics, errs)
		return
	}
	cfg.Prices = prices
	clients := platform.NewClients(cfg)
	resp.ResourceData = clients
	resp.DataSourceData = clients
}

// retryTimeout parses retry_timeout (or MLPLATFORM_RETRY_TIMEOUT when
// fromEnv): "" is the default.
func retryTimeout(v string, fromEnv bool) (time.Duration, spec.FieldErrors) {
	if v == "" {
		return retry.DefaultBound, nil
	}
	d, err := time.ParseDuration(v)
	if err == nil && d >= 0 {
		return d, nil
	}
	where := "retry_timeout is"
	if fromEnv {
		where = "MLPLATFORM_RETRY_TIMEOUT is"
	}
	return 0, platformErr("retry_timeout", "Invalid Retry Timeout",
		where+" "+strconv.Quote(v)+", which is not a duration; write it like 90s, 5m or 0s (no retries).")
}

func (p *Provider) Resources(context.Context) []func() resource.Resource {
	return resources.All()
}

func (p *Provider) DataSources(context.Context) []func() datasource.DataSource {
	return datasources.All()
}
