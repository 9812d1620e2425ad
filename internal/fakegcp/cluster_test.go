package fakegcp_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net"
	"testing"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestAddCluster(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		wi       bool
		wantPool string
	}{
		{name: "with-wi", wi: true, wantPool: project + ".svc.id.goog"},
		{name: "without-wi", wi: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seeded := e.srv.Container.AddCluster(project, location, tt.name, tt.wi)
			c, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName(tt.name)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(seeded, c, protocmp.Transform()); diff != "" {
				t.Errorf("GetCluster differs from AddCluster result (-seeded +got):\n%s", diff)
			}
			if c.Status != containerpb.Cluster_RUNNING || c.GetWorkloadIdentityConfig().GetWorkloadPool() != tt.wantPool {
				t.Errorf("status %v, workload pool %q; want RUNNING, %q", c.Status, c.GetWorkloadIdentityConfig().GetWorkloadPool(), tt.wantPool)
			}
			if net.ParseIP(c.Endpoint) == nil {
				t.Errorf("endpoint %q is not an IP", c.Endpoint)
			}
			pemBytes, err := base64.StdEncoding.DecodeString(c.GetMasterAuth().GetClusterCaCertificate())
			if err != nil {
				t.Fatalf("CA cert not base64: %v", err)
			}
			block, _ := pem.Decode(pemBytes)
			if block == nil {
				t.Fatal("CA cert is not PEM")
			}
			if cert, err := x509.ParseCertificate(block.Bytes); err != nil || !cert.IsCA {
				t.Errorf("CA cert: %v, IsCA=%v", err, cert != nil && cert.IsCA)
			}
			if len(c.NodePools) != 1 || c.NodePools[0].Name != "default-pool" || c.NodePools[0].Status != containerpb.NodePool_RUNNING {
				t.Errorf("node pools = %v, want RUNNING default-pool", c.NodePools)
			}
		})
	}
}

func TestCreateAndDeleteCluster(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	op := mustOp(t)(e.cm.CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent, Cluster: &containerpb.Cluster{
		Name: "c", InitialNodeCount: 2,
		WorkloadIdentityConfig: &containerpb.WorkloadIdentityConfig{WorkloadPool: project + ".svc.id.goog"},
	}}))
	if op.OperationType != containerpb.Operation_CREATE_CLUSTER {
		t.Errorf("op type %v", op.OperationType)
	}
	c, err := e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")})
	if err != nil || c.Status != containerpb.Cluster_PROVISIONING {
		t.Fatalf("during create: %v %v, want PROVISIONING", c.GetStatus(), err)
	}
	e.finish(t, op)
	c, _ = e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")})
	if c.Status != containerpb.Cluster_RUNNING || c.NodePools[0].Status != containerpb.NodePool_RUNNING || c.NodePools[0].InitialNodeCount != 2 {
		t.Errorf("after create: cluster %v pool %v", c.Status, c.NodePools)
	}
	list, err := e.cm.ListClusters(ctx, &containerpb.ListClustersRequest{Parent: "projects/" + project + "/locations/-"})
	if err != nil || len(list.Clusters) != 1 {
		t.Errorf("ListClusters: %v %v", list, err)
	}
	_, err = e.cm.CreateCluster(ctx, &containerpb.CreateClusterRequest{Parent: parent, Cluster: &containerpb.Cluster{Name: "c"}})
	wantCode(t, err, codes.AlreadyExists)

	op = mustOp(t)(e.cm.DeleteCluster(ctx, &containerpb.DeleteClusterRequest{Name: clusterName("c")}))
	e.finish(t, op)
	_, err = e.cm.GetCluster(ctx, &containerpb.GetClusterRequest{Name: clusterName("c")})
	wantCode(t, err, codes.NotFound)
}
