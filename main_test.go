package main

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/mlplatform/terraform-provider-mlplatform/provider"
)

func TestQuietUnlessShown(t *testing.T) {
	t.Parallel()
	off := map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER": "OFF"}
	tests := map[string]struct {
		env  map[string]string
		want map[string]string
	}{
		"no logging asked for: all off": {env: map[string]string{}, want: off},
		"TF_LOG set: untouched":         {env: map[string]string{"TF_LOG": "DEBUG"}, want: map[string]string{"TF_LOG": "DEBUG"}},
		"TF_LOG_PROVIDER set: untouched": {
			env: map[string]string{"TF_LOG_PROVIDER": "TRACE"}, want: map[string]string{"TF_LOG_PROVIDER": "TRACE"},
		},
		"explicit SDK level kept": {
			env:  map[string]string{"TF_LOG_SDK_FRAMEWORK": "DEBUG"},
			want: map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "DEBUG", "TF_LOG_PROVIDER": "OFF"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{}
			for k, v := range tc.env {
				env[k] = v
			}
			quietUnlessShown(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
			if diff := cmp.Diff(tc.want, env); diff != "" {
				t.Errorf("environment (-want +got):\n%s", diff)
			}
		})
	}
}

// The version main passes to the server is the one the provider reports to
// Terraform (MetadataResponse.Version) and puts in its user agent.
func TestProviderReportsItsVersion(t *testing.T) {
	t.Parallel()
	var resp fwprovider.MetadataResponse
	provider.New("0.1.0-SNAPSHOT-abc1234")().Metadata(context.Background(), fwprovider.MetadataRequest{}, &resp)
	if resp.Version != "0.1.0-SNAPSHOT-abc1234" {
		t.Errorf("provider.New(v).Metadata reports version %q, want the one given", resp.Version)
	}
	if serverFactory("0.1.0")() == nil {
		t.Fatal("serverFactory returned no server")
	}
}
