package doctor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/provider"

	mlprovider "github.com/mlplatform/terraform-provider-mlplatform/provider"
)

// Doctor's environment fallbacks are the provider's: each setting's
// variables appear in the provider attribute's description, in that order.
func TestSettingsAreTheProviders(t *testing.T) {
	t.Parallel()
	var resp provider.SchemaResponse
	mlprovider.New("test")().Schema(context.Background(), provider.SchemaRequest{}, &resp)
	for _, s := range Settings {
		a, ok := resp.Schema.Attributes[s.Attr]
		if !ok {
			t.Errorf("the provider has no attribute %s", s.Attr)
			continue
		}
		desc := a.GetMarkdownDescription()
		_, env, _ := strings.Cut(desc, "Environment: ")
		var want []string
		for _, e := range s.Env {
			want = append(want, "`"+e+"`")
		}
		if got := strings.Join(want, ", then "); !strings.HasPrefix(env, got) {
			t.Errorf("%s: doctor reads %s; the provider says %q", s.Attr, got, env)
		}
	}
}

func TestResolveConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GOOGLE_PROJECT": "g", "GOOGLE_CLOUD_PROJECT": "gc", "MLPLATFORM_LOCATION": "us-central1", "MLPLATFORM_CLUSTER": "training",
		"KUBECONFIG": "/k", "MLPLATFORM_CONTAINER_ENDPOINT": "127.0.0.1:9", "MLPLATFORM_INSECURE_ENDPOINTS": "true",
		"GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.t"}
	getenv := func(k string) string { return env[k] }
	flagCluster := "other"
	cfg, err := ResolveConfig(map[string]*string{"cluster": &flagCluster}, &optBool{}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	// --cluster names the cluster: the environment's kubeconfig is not used.
	if cfg.Project != "g" || cfg.Location != "us-central1" || cfg.Cluster != "other" || cfg.Kubeconfig != "" || !cfg.InsecureEndpoints ||
		cfg.ContainerEndpoint != "127.0.0.1:9" || cfg.Retry.Bound != 0 || cfg.AccessToken != "ya29.t" {
		t.Errorf("resolved %+v", cfg)
	}
	if cfg, err := ResolveConfig(nil, &optBool{}, getenv); err != nil || cfg.Kubeconfig != "/k" || cfg.Cluster != "training" {
		t.Errorf("without flags: %+v, %v", cfg, err)
	}
	env["MLPLATFORM_INSECURE_ENDPOINTS"] = "yes please"
	if _, err := ResolveConfig(nil, &optBool{}, getenv); err == nil || !strings.Contains(err.Error(), "MLPLATFORM_INSECURE_ENDPOINTS") {
		t.Errorf("err = %v", err)
	}
	env["MLPLATFORM_CONTAINER_ENDPOINT"] = "10.0.0.1:443"
	if _, err := ResolveConfig(nil, &optBool{set: true, v: true}, getenv); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("err = %v", err)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	// A kubeconfig for an API server that is not there.
	dead := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(dead, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args       []string
		env        map[string]string
		wantCode   int
		wantOut    []string
		wantStderr []string
	}{
		"help":               {args: []string{"--help"}, wantOut: []string{"Exit codes: 0 all checks passed"}},
		"rbac":               {args: []string{"--rbac"}, wantOut: []string{"kind: ClusterRole", "name: mlplatform-doctor", "verbs: [\"list\"]"}},
		"list":               {args: []string{"--list"}, wantOut: []string{"DOC001  kueue-crds", "DOC013  workload-pending", "MLP002  local-queue-namespace-not-selected", "(was DOC008)", "MLP020  workload-identity-cannot-reach-google", "DOC020  gpu-nodes-idle", "DOC023  flex-start-deadline"}},
		"unknown flag":       {args: []string{"--nope"}, wantCode: ExitUsage, wantStderr: []string{"flag provided but not defined: -nope", "usage: mlplatform doctor"}},
		"unknown format":     {args: []string{"--format", "yaml"}, wantCode: ExitUsage, wantStderr: []string{`unknown format "yaml"`}},
		"argument":           {args: []string{"extra"}, wantCode: ExitUsage, wantStderr: []string{"unexpected arguments: extra"}},
		"bad threshold":      {args: []string{"--pending-threshold", "0s"}, wantCode: ExitUsage, wantStderr: []string{"must be positive"}},
		"bad idle threshold": {args: []string{"--idle-threshold", "-1m"}, wantCode: ExitUsage, wantStderr: []string{"must be positive"}},
		"negative idle USD":  {args: []string{"--fail-on-idle-usd-per-hour", "-5"}, wantCode: ExitUsage, wantStderr: []string{"--fail-on-idle-usd-per-hour must be 0 or more"}},
		"missing price file": {args: []string{"--prices", "/nonexistent/prices.json"}, wantCode: ExitError, wantStderr: []string{"/nonexistent/prices.json"}},
		"price file by env":  {env: map[string]string{"MLPLATFORM_PRICES_FILE": "/nonexistent/env-prices.json"}, wantCode: ExitError, wantStderr: []string{"/nonexistent/env-prices.json"}},
		"no cluster":         {args: nil, wantCode: ExitError, wantStderr: []string{"no Kubernetes cluster configured"}},
		"unreachable":        {args: []string{"--kubeconfig", dead, "--check-timeout", "2s"}, wantCode: ExitError, wantStderr: []string{"did not answer", "127.0.0.1:1", "check that the cluster is up"}},
		"kubeconfig by env":  {env: map[string]string{"MLPLATFORM_KUBECONFIG": dead}, args: []string{"--check-timeout", "2s"}, wantCode: ExitError, wantStderr: []string{"127.0.0.1:1"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			start := time.Now()
			code := Command(context.Background(), tc.args, &stdout, &stderr, func(k string) string { return tc.env[k] })
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, stdout.String(), stderr.String())
			}
			if d := time.Since(start); d > 30*time.Second {
				t.Errorf("took %s", d)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
		})
	}
}

func TestRenderJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Render(&b, &Result{Checks: 3}, FormatJSON); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"findings": []`) || !strings.Contains(b.String(), `"passed": true`) || !strings.Contains(b.String(), `"checks": 3`) {
		t.Errorf("json:\n%s", b.String())
	}
}
