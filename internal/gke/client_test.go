package gke_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"golang.org/x/oauth2"
	"k8s.io/client-go/rest"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
)

// Without a kubeconfig the provider reads the cluster's endpoint and CA from
// GKE and sends a Google token, as gke-gcloud-auth-plugin does.
func TestClusterREST(t *testing.T) {
	t.Parallel()
	srv := fakegcp.New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	cl := srv.Container.AddCluster("p", "us-central1", "training", true)
	ctx := context.Background()
	c, err := gke.New(ctx, srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()

	tokens := oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "ya29.test-token", TokenType: "Bearer"})
	cfg, err := c.ClusterREST(ctx, "projects/p/locations/us-central1/clusters/training", tokens)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://"+cl.GetEndpoint() {
		t.Errorf("host %q, want https://%s", cfg.Host, cl.GetEndpoint())
	}
	wantCA, _ := base64.StdEncoding.DecodeString(cl.GetMasterAuth().GetClusterCaCertificate())
	if string(cfg.CAData) != string(wantCA) || !strings.Contains(string(cfg.CAData), "BEGIN CERTIFICATE") {
		t.Errorf("CA data not taken from masterAuth: %q", cfg.CAData)
	}
	// The transport adds the bearer token.
	var gotAuth string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gotAuth = r.Header.Get("Authorization") }))
	defer api.Close()
	plain := rest.CopyConfig(cfg)
	plain.Host, plain.CAData = api.URL, nil
	hc, err := rest.HTTPClientFor(plain)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Get(api.URL + "/version")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if gotAuth != "Bearer ya29.test-token" {
		t.Errorf("Authorization %q, want the Google token", gotAuth)
	}

	if _, err := c.ClusterREST(ctx, "projects/p/locations/us-central1/clusters/nope", tokens); err == nil ||
		!strings.Contains(err.Error(), "read cluster projects/p/locations/us-central1/clusters/nope") {
		t.Errorf("missing cluster: %v", err)
	}
}
