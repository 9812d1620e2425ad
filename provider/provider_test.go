package provider

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// configure runs Configure with the given attribute values (others null) and
// environment, and returns the resolved config or the error summaries.
func configure(t *testing.T, attrs map[string]tftypes.Value, env map[string]string) (platform.Config, []string) {
	t.Helper()
	p := NewWithEnv("test", func(k string) string { return env[k] })().(*Provider)
	var sresp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(context.Background()).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	for k, v := range attrs {
		vals[k] = v
	}
	req := provider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, vals)}}
	var resp provider.ConfigureResponse
	p.Configure(context.Background(), req, &resp)
	var errs []string
	for _, d := range resp.Diagnostics.Errors() {
		errs = append(errs, d.Summary())
	}
	if len(errs) > 0 {
		return platform.Config{}, errs
	}
	return resp.ResourceData.(*platform.Clients).Config, nil
}

func str(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

func TestConfigureFallbacks(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		attrs    map[string]tftypes.Value
		env      map[string]string
		want     platform.Config
		wantErrs []string
	}{
		"attributes win over environment": {
			attrs: map[string]tftypes.Value{"project": str("p-attr"), "kubeconfig": str("/k/attr")},
			env:   map[string]string{"MLPLATFORM_PROJECT": "p-env", "KUBECONFIG": "/k/env"},
			want:  platform.Config{Project: "p-attr", Kubeconfig: "/k/attr"},
		},
		"MLPLATFORM_ before GOOGLE_PROJECT before GOOGLE_CLOUD_PROJECT": {
			env:  map[string]string{"MLPLATFORM_PROJECT": "a", "GOOGLE_PROJECT": "b", "GOOGLE_CLOUD_PROJECT": "c"},
			want: platform.Config{Project: "a"},
		},
		"GOOGLE_PROJECT": {
			env:  map[string]string{"GOOGLE_PROJECT": "b", "GOOGLE_CLOUD_PROJECT": "c", "MLPLATFORM_LOCATION": "europe-west4", "MLPLATFORM_CLUSTER": "train"},
			want: platform.Config{Project: "b", Location: "europe-west4", Cluster: "train"},
		},
		"KUBECONFIG when MLPLATFORM_KUBECONFIG unset": {
			env:  map[string]string{"KUBECONFIG": "/a:/b", "MLPLATFORM_KUBE_CONTEXT": "ctx"},
			want: platform.Config{Kubeconfig: "/a:/b", KubeContext: "ctx"},
		},
		"a block naming its cluster does not take the environment's kubeconfig": {
			attrs: map[string]tftypes.Value{"cluster": str("worker-eu")},
			env:   map[string]string{"KUBECONFIG": "/k/manager", "MLPLATFORM_KUBE_CONTEXT": "manager", "MLPLATFORM_LOCATION": "europe-west4"},
			want:  platform.Config{Cluster: "worker-eu", Location: "europe-west4"},
		},
		"a block naming its cluster and a kubeconfig uses both": {
			attrs: map[string]tftypes.Value{"cluster": str("worker-eu"), "kubeconfig": str("/k/eu")},
			env:   map[string]string{"KUBECONFIG": "/k/manager", "MLPLATFORM_KUBE_CONTEXT": "manager"},
			want:  platform.Config{Cluster: "worker-eu", Kubeconfig: "/k/eu", KubeContext: "manager"},
		},
		"the cluster from the environment keeps the environment's kubeconfig": {
			env:  map[string]string{"MLPLATFORM_CLUSTER": "training", "KUBECONFIG": "/k/env"},
			want: platform.Config{Cluster: "training", Kubeconfig: "/k/env"},
		},
		"sandbox from environment": {
			env: map[string]string{"MLPLATFORM_CONTAINER_ENDPOINT": "127.0.0.1:7000", "MLPLATFORM_IAM_ENDPOINT": "127.0.0.1:7000",
				"MLPLATFORM_INSECURE_ENDPOINTS": "true"},
			want: platform.Config{ContainerEndpoint: "127.0.0.1:7000", IAMEndpoint: "127.0.0.1:7000", InsecureEndpoints: true},
		},
		"insecure attribute false overrides env true": {
			attrs: map[string]tftypes.Value{"insecure_endpoints": tftypes.NewValue(tftypes.Bool, false)},
			env:   map[string]string{"MLPLATFORM_INSECURE_ENDPOINTS": "true"},
			want:  platform.Config{},
		},
		"insecure to a remote endpoint is refused": {
			attrs:    map[string]tftypes.Value{"insecure_endpoints": tftypes.NewValue(tftypes.Bool, true), "container_endpoint": str("203.0.113.7:443"), "iam_endpoint": str("localhost:1")},
			wantErrs: []string{"Insecure Endpoint Not On Loopback"},
		},
		"malformed boolean in the environment": {
			env:      map[string]string{"MLPLATFORM_INSECURE_ENDPOINTS": "yes please"},
			wantErrs: []string{"Invalid MLPLATFORM_INSECURE_ENDPOINTS"},
		},
		"retry_timeout": {
			attrs: map[string]tftypes.Value{"retry_timeout": str("45s")},
			env:   map[string]string{"MLPLATFORM_RETRY_TIMEOUT": "10m"},
			want:  platform.Config{Retry: retry.Policy{Bound: 45 * time.Second}},
		},
		"MLPLATFORM_RETRY_TIMEOUT": {
			env:  map[string]string{"MLPLATFORM_RETRY_TIMEOUT": "10m"},
			want: platform.Config{Retry: retry.Policy{Bound: 10 * time.Minute}},
		},
		"retries off": {
			attrs: map[string]tftypes.Value{"retry_timeout": str("0s")},
			want:  platform.Config{Retry: retry.Policy{Bound: 0}},
		},
		"malformed retry timeout": {
			attrs:    map[string]tftypes.Value{"retry_timeout": str("3 minutes")},
			wantErrs: []string{"Invalid Retry Timeout"},
		},
		"negative retry timeout": {
			env:      map[string]string{"MLPLATFORM_RETRY_TIMEOUT": "-1m"},
			wantErrs: []string{"Invalid Retry Timeout"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, errs := configure(t, tc.attrs, tc.env)
			if diff := cmp.Diff(tc.wantErrs, errs); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if tc.want.Retry.Bound == 0 && tc.attrs["retry_timeout"].IsNull() {
				tc.want.Retry.Bound = retry.DefaultBound
			}
			if got.Retry.Logf == nil {
				t.Error("no retry log function: waits would not be logged")
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(platform.Config{}, "UserAgent", "Prices"),
				cmpopts.IgnoreFields(retry.Policy{}, "Logf")); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigurePrices(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(file, []byte(`{"source": "file", "date": "2026-06-01", "prices": {"nvidia-l4": {"spot": 0.2}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	inline := str(`{"source": "contract", "date": "2026-05-01", "prices": {"nvidia-l4": {"spot": 0.25}}}`)
	defSpot, _ := pricing.Default().HourlyPerGPU("nvidia-l4", pricing.Spot)
	cases := map[string]struct {
		attrs    map[string]tftypes.Value
		env      map[string]string
		wantSpot float64
		wantErrs []string
	}{
		"default table":                     {wantSpot: defSpot},
		"inline prices":                     {attrs: map[string]tftypes.Value{"prices": inline}, wantSpot: 0.25},
		"prices_file":                       {attrs: map[string]tftypes.Value{"prices_file": str(file)}, wantSpot: 0.2},
		"MLPLATFORM_PRICES_FILE":            {env: map[string]string{"MLPLATFORM_PRICES_FILE": file}, wantSpot: 0.2},
		"inline wins over the environment":  {attrs: map[string]tftypes.Value{"prices": inline}, env: map[string]string{"MLPLATFORM_PRICES_FILE": file}, wantSpot: 0.25},
		"both attributes":                   {attrs: map[string]tftypes.Value{"prices": inline, "prices_file": str(file)}, wantErrs: []string{"Conflicting Price Overrides"}},
		"invalid inline":                    {attrs: map[string]tftypes.Value{"prices": str(`{"prices": {}}`)}, wantErrs: []string{"Invalid Price Override"}},
		"missing file":                      {attrs: map[string]tftypes.Value{"prices_file": str(filepath.Join(dir, "nope.json"))}, wantErrs: []string{"Price File Not Readable"}},
		"missing file from the environment": {env: map[string]string{"MLPLATFORM_PRICES_FILE": filepath.Join(dir, "nope.json")}, wantErrs: []string{"Price File Not Readable"}},
		"unknown prices":                    {attrs: map[string]tftypes.Value{"prices": tftypes.NewValue(tftypes.String, tftypes.UnknownValue)}, wantErrs: []string{"Price Override Not Known Until Apply"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, errs := configure(t, tc.attrs, tc.env)
			if diff := cmp.Diff(tc.wantErrs, errs); diff != "" {
				t.Fatalf("errors (-want +got):\n%s", diff)
			}
			if len(errs) > 0 {
				return
			}
			if spot, _ := got.PriceTable().HourlyPerGPU("nvidia-l4", pricing.Spot); spot != tc.wantSpot {
				t.Errorf("nvidia-l4 spot = %v, want %v", spot, tc.wantSpot)
			}
		})
	}
}

// Errors about the price override point at the attribute, and a file from
// the environment is named by its variable.
func TestConfigurePricesErrorNamesTheAttribute(t *testing.T) {
	t.Parallel()
	p := NewWithEnv("test", func(k string) string {
		if k == "MLPLATFORM_PRICES_FILE" {
			return "/no/such/prices.json"
		}
		return ""
	})().(*Provider)
	var sresp provider.SchemaResponse
	p.Schema(context.Background(), provider.SchemaRequest{}, &sresp)
	typ := sresp.Schema.Type().TerraformType(context.Background()).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		vals[name] = tftypes.NewValue(at, nil)
	}
	var resp provider.ConfigureResponse
	p.Configure(context.Background(), provider.ConfigureRequest{Config: tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(typ, vals)}}, &resp)
	errs := resp.Diagnostics.Errors()
	if len(errs) != 1 {
		t.Fatalf("diagnostics: %v", resp.Diagnostics)
	}
	withPath, ok := errs[0].(diag.DiagnosticWithPath)
	if !ok || !withPath.Path().Equal(path.Root("prices_file")) {
		t.Errorf("error is not on prices_file: %#v", errs[0])
	}
	if d := errs[0].Detail(); !strings.Contains(d, "MLPLATFORM_PRICES_FILE") || !strings.Contains(d, "/no/such/prices.json") {
		t.Errorf("detail does not name the variable and the path: %s", d)
	}
}
