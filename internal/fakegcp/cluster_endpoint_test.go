package fakegcp_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func testCAPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func TestSetClusterEndpoint(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	e.srv.Container.AddCluster(project, location, "real", true)
	e.srv.Container.AddCluster(project, location, "other", true)
	before, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("other")})
	if err != nil {
		t.Fatal(err)
	}
	ca := testCAPEM(t)
	if err := e.srv.Container.SetClusterEndpoint(project, location, "real", "127.0.0.1:6443", ca); err != nil {
		t.Fatal(err)
	}
	c, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("real")})
	if err != nil {
		t.Fatal(err)
	}
	if c.Endpoint != "127.0.0.1:6443" {
		t.Errorf("endpoint %q, want 127.0.0.1:6443", c.Endpoint)
	}
	if got, err := base64.StdEncoding.DecodeString(c.GetMasterAuth().GetClusterCaCertificate()); err != nil || string(got) != string(ca) {
		t.Errorf("clusterCaCertificate does not decode to the CA given (err %v)", err)
	}
	if c.Status != containerpb.Cluster_RUNNING || len(c.NodePools) != 1 {
		t.Errorf("status %v, %d node pools: the rest of the cluster changed", c.Status, len(c.NodePools))
	}
	// The other cluster keeps its own endpoint and CA.
	after, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("other")})
	if err != nil {
		t.Fatal(err)
	}
	if after.Endpoint != before.Endpoint || after.GetMasterAuth().GetClusterCaCertificate() != before.GetMasterAuth().GetClusterCaCertificate() {
		t.Errorf("other cluster changed: endpoint %q -> %q", before.Endpoint, after.Endpoint)
	}
	// ListClusters reports the same.
	list, err := e.cm.ListClusters(ctx, &containerpb.ListClustersRequest{Parent: parent})
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range list.Clusters {
		if cl.Name == "real" && cl.Endpoint != "127.0.0.1:6443" {
			t.Errorf("ListClusters: endpoint %q", cl.Endpoint)
		}
	}
}

func TestSetClusterEndpointRefuses(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", true)
	ca := testCAPEM(t)
	err := e.srv.Container.SetClusterEndpoint(project, location, "missing", "127.0.0.1:1", ca)
	if status.Code(err) != codes.NotFound {
		t.Errorf("unknown cluster: got %v, want NotFound", err)
	}
	for _, tc := range []struct {
		name, endpoint string
		ca             []byte
	}{
		{"scheme", "https://127.0.0.1:1", ca},
		{"empty endpoint", "", ca},
		{"not PEM", "127.0.0.1:1", []byte("not a certificate")},
		{"no CA", "127.0.0.1:1", nil},
	} {
		if err := e.srv.Container.SetClusterEndpoint(project, location, "c", tc.endpoint, tc.ca); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}
