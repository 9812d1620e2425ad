// Package platform holds the provider's resolved settings and the clients
// built from them, once per provider instance and only when first needed
// (a plan of new objects never connects to anything).
package platform

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Config is the provider configuration after environment fallbacks.
type Config struct {
	Project  string
	Location string
	Cluster  string

	ContainerEndpoint string // host:port of the GKE API; "" = Google's
	IAMEndpoint       string // host:port of the IAM API; "" = Google's
	// ComputeEndpoint is host:port of Compute Engine's REST API (doctor's
	// quota reads; the provider does not call Compute); "" = Google's.
	ComputeEndpoint   string
	InsecureEndpoints bool // plaintext gRPC, loopback endpoints only

	// Kubeconfig is a path, or a list of paths as in $KUBECONFIG. When empty the
	// provider talks to the GKE cluster's own endpoint with a Google token.
	Kubeconfig  string
	KubeContext string

	UserAgent string

	// AccessToken, when set, is the Google OAuth access token the provider
	// authenticates with (instead of Application Default Credentials), as
	// the google provider's access_token. It is never stored or logged.
	AccessToken string

	// Retry is how transient unavailability is waited out (retry_timeout).
	Retry retry.Policy

	// Prices is the GPU price table: the default table with the provider's
	// prices or prices_file override applied (LoadPrices). The gpu_catalog
	// data source and GPU pool cost estimates read it through PriceTable.
	Prices pricing.Table
}

// ClusterName is the GKE resource name of the cluster.
func (c Config) ClusterName() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", c.Project, c.Location, c.Cluster)
}

// Validate reports settings that can never work.
func (c Config) Validate() spec.FieldErrors {
	var errs spec.FieldErrors
	if c.InsecureEndpoints {
		for _, ep := range []struct{ attr, value string }{{"container_endpoint", c.ContainerEndpoint}, {"iam_endpoint", c.IAMEndpoint}} {
			switch {
			case ep.value == "":
				errs = append(errs, spec.FieldError{Path: spec.Path{"insecure_endpoints"}, Summary: "Insecure Endpoints Need Local Endpoints",
					Detail: fmt.Sprintf("insecure_endpoints = true sends requests without TLS, so it needs %s set to a loopback address "+
						"(such as the local sandbox's 127.0.0.1:PORT); it is empty, which means Google's public endpoint. "+
						"Set %s, or remove insecure_endpoints.", ep.attr, ep.attr)})
			case !IsLoopback(ep.value):
				errs = append(errs, spec.FieldError{Path: spec.Path{ep.attr}, Summary: "Insecure Endpoint Not On Loopback",
					Detail: fmt.Sprintf("%s is %q, but insecure_endpoints (plaintext gRPC, no authentication) is only allowed for "+
						"loopback addresses (127.0.0.0/8, ::1, localhost). Use TLS for remote endpoints: remove insecure_endpoints.", ep.attr, ep.value)})
			}
		}
	}
	return errs
}

// IsLoopback reports whether a host:port (or bare host) endpoint is on this machine.
func IsLoopback(endpoint string) bool {
	host := endpoint
	if h, _, err := net.SplitHostPort(endpoint); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// filepathList splits a $KUBECONFIG-style list.
func filepathList(s string) []string {
	var out []string
	for _, p := range filepath.SplitList(s) {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
