package fakegcp

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

func clusterKey(project, location, name string) string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", project, location, name)
}

// clusterKeyFrom accepts either the resource name or the deprecated
// project/zone/cluster triple.
func clusterKeyFrom(name, project, zone, cluster string) (key, p, l string, err error) {
	if name != "" {
		m := clusterNameRE.FindStringSubmatch(name)
		if m == nil {
			return "", "", "", invalidArg("Invalid cluster name %q.", name)
		}
		return name, m[1], m[2], nil
	}
	if project == "" || zone == "" || cluster == "" {
		return "", "", "", invalidArg("Cluster name must be specified.")
	}
	return clusterKey(project, zone, cluster), project, zone, nil
}

func (s *Container) clusterLocked(key string) (*containerpb.Cluster, error) {
	c, ok := s.clusters[key]
	if !ok {
		return nil, notFound(key)
	}
	return c, nil
}

// fakeCACert returns a base64-encoded PEM self-signed CA certificate, like
// Cluster.master_auth.cluster_ca_certificate.
func fakeCACert(name string) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	serial, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: name + "-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().AddDate(30, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// fillClusterLocked sets the server-owned cluster fields.
func (s *Container) fillClusterLocked(project, location string, c *containerpb.Cluster) {
	key := clusterKey(project, location, c.Name)
	c.Location, c.Zone = location, location
	c.SelfLink = apiPrefix + key
	c.CurrentMasterVersion, c.CurrentNodeVersion = gkeVersion, gkeVersion
	c.InitialClusterVersion = gkeVersion
	s.endpoints++
	c.Endpoint = fmt.Sprintf("203.0.113.%d", 10+s.endpoints%240) // TEST-NET-3
	if c.MasterAuth == nil {
		c.MasterAuth = &containerpb.MasterAuth{}
	}
	c.MasterAuth.ClusterCaCertificate = fakeCACert(c.Name)
	c.Id = randHex(16)
	c.Etag = randHex(8)
	c.CreateTime = s.now().UTC().Format(time.RFC3339)
	if c.Network == "" {
		c.Network = "default"
	}
	if c.Subnetwork == "" {
		c.Subnetwork = "default"
	}
	// GKE reports the network and subnetwork twice: by name above, and as
	// resource paths in networkConfig (Cluster.network_config, GKE's
	// REST reference: projects/v1.locations.clusters#NetworkConfig).
	if c.NetworkConfig == nil {
		c.NetworkConfig = &containerpb.NetworkConfig{}
	}
	if c.NetworkConfig.Network == "" {
		c.NetworkConfig.Network = "projects/" + project + "/global/networks/" + c.Network
	}
	if c.NetworkConfig.Subnetwork == "" {
		c.NetworkConfig.Subnetwork = "projects/" + project + "/regions/" + regionOf(location) + "/subnetworks/" + c.Subnetwork
	}
	if len(c.Locations) == 0 {
		if strings.Count(location, "-") == 2 { // zonal cluster: us-central1-c
			c.Locations = []string{location}
		} else {
			c.Locations = []string{location + "-a", location + "-b", location + "-c"}
		}
	}
}

// AddCluster seeds a RUNNING cluster synchronously (no operation) with a
// RUNNING 3-node "default-pool" and GKE Dataplane V2
// (networkConfig.datapathProvider ADVANCED_DATAPATH, which enforces
// NetworkPolicies). With workloadIdentity the cluster gets the workload pool
// PROJECT.svc.id.goog. An existing cluster of that name is replaced.
func (s *Container) AddCluster(project, location, name string, workloadIdentity bool) *containerpb.Cluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &containerpb.Cluster{Name: name, Status: containerpb.Cluster_RUNNING,
		NetworkConfig: &containerpb.NetworkConfig{DatapathProvider: containerpb.DatapathProvider_ADVANCED_DATAPATH}}
	if workloadIdentity {
		c.WorkloadIdentityConfig = &containerpb.WorkloadIdentityConfig{WorkloadPool: project + ".svc.id.goog"}
	}
	s.fillClusterLocked(project, location, c)
	np := &containerpb.NodePool{Name: "default-pool", InitialNodeCount: 3}
	defaultNodePool(project, c, np)
	np.Status = containerpb.NodePool_RUNNING
	c.NodePools = []*containerpb.NodePool{np}
	s.nodeCounts[nodePoolKey(clusterKey(project, location, name), np.Name)] = np.InitialNodeCount
	s.clusters[clusterKey(project, location, name)] = c
	return proto.Clone(c).(*containerpb.Cluster)
}

func (s *Container) CreateCluster(ctx context.Context, req *containerpb.CreateClusterRequest) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	m := parentRE.FindStringSubmatch(req.GetParent())
	if m == nil {
		if req.GetProjectId() == "" || req.GetZone() == "" {
			return nil, invalidArg("Invalid parent %q.", req.GetParent())
		}
		m = []string{"", req.GetProjectId(), req.GetZone()}
	}
	project, location := m[1], m[2]
	c := proto.Clone(req.GetCluster()).(*containerpb.Cluster)
	if c == nil || !resourceIDRE.MatchString(c.Name) {
		return nil, invalidArg("Invalid value for field \"cluster.name\": %q.", c.GetName())
	}
	key := clusterKey(project, location, c.Name)
	if _, ok := s.clusters[key]; ok {
		return nil, status.Errorf(codes.AlreadyExists, "Already exists: %s.", key)
	}
	if wp := c.GetWorkloadIdentityConfig().GetWorkloadPool(); wp != "" && wp != project+".svc.id.goog" {
		return nil, invalidArg("Workload pool must be %q.", project+".svc.id.goog")
	}
	s.fillClusterLocked(project, location, c)
	c.Status = containerpb.Cluster_PROVISIONING
	if len(c.NodePools) == 0 && c.InitialNodeCount > 0 {
		c.NodePools = []*containerpb.NodePool{{Name: "default-pool", InitialNodeCount: c.InitialNodeCount, Config: c.NodeConfig}}
		c.InitialNodeCount = 0
	}
	for _, np := range c.NodePools {
		if err := validateNodePool(np); err != nil {
			return nil, err
		}
		defaultNodePool(project, c, np)
		s.nodeCounts[nodePoolKey(key, np.Name)] = np.InitialNodeCount
	}
	s.clusters[key] = c
	return s.startOpLocked(project, location, key, "", containerpb.Operation_CREATE_CLUSTER, key, func() *rpcstatus.Status {
		c.Status = containerpb.Cluster_RUNNING
		for _, np := range c.NodePools {
			np.Status = containerpb.NodePool_RUNNING
			touch(np)
		}
		return nil
	}), nil
}

func (s *Container) GetCluster(ctx context.Context, req *containerpb.GetClusterRequest) (*containerpb.Cluster, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	key, _, _, err := clusterKeyFrom(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	c, err := s.clusterLocked(key)
	if err != nil {
		return nil, err
	}
	return proto.Clone(c).(*containerpb.Cluster), nil
}

// ListClusters supports "projects/P/locations/L" and "projects/P/locations/-".
func (s *Container) ListClusters(ctx context.Context, req *containerpb.ListClustersRequest) (*containerpb.ListClustersResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	parent := req.GetParent()
	if parent == "" {
		parent = fmt.Sprintf("projects/%s/locations/%s", req.GetProjectId(), req.GetZone())
	}
	m := parentRE.FindStringSubmatch(parent)
	if m == nil {
		return nil, invalidArg("Invalid parent %q.", parent)
	}
	var keys []string
	for key := range s.clusters {
		cm := clusterNameRE.FindStringSubmatch(key)
		if cm[1] == m[1] && (m[2] == "-" || cm[2] == m[2]) {
			keys = append(keys, key)
		}
	}
	sort.Strings(keys)
	resp := &containerpb.ListClustersResponse{}
	for _, k := range keys {
		resp.Clusters = append(resp.Clusters, proto.Clone(s.clusters[k]).(*containerpb.Cluster))
	}
	return resp, nil
}

func (s *Container) DeleteCluster(ctx context.Context, req *containerpb.DeleteClusterRequest) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	key, p, l, err := clusterKeyFrom(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	c, err := s.clusterLocked(key)
	if err != nil {
		return nil, err
	}
	if err := s.admitLocked(key, ""); err != nil {
		return nil, err
	}
	c.Status = containerpb.Cluster_STOPPING
	return s.startOpLocked(p, l, key, "", containerpb.Operation_DELETE_CLUSTER, key, func() *rpcstatus.Status {
		if s.clusters[key] != c { // replaced by AddCluster meanwhile
			return nil
		}
		for _, np := range c.NodePools {
			delete(s.nodeCounts, nodePoolKey(key, np.Name))
		}
		delete(s.clusters, key)
		return nil
	}), nil
}

// SetClusterEndpoint points an existing cluster at a real API server:
// endpoint is what GKE reports in Cluster.endpoint, a bare host or host:port
// without a scheme (clients prepend https://), and caPEM is the PEM CA the
// server's certificate chains to, stored base64-encoded in
// masterAuth.clusterCaCertificate as GKE does. testenv uses it so a client
// that reads the cluster from the fake reaches that environment's
// kube-apiserver.
func (s *Container) SetClusterEndpoint(project, location, name, endpoint string, caPEM []byte) error {
	if endpoint == "" || strings.Contains(endpoint, "://") {
		return fmt.Errorf("fakegcp: endpoint %q must be a bare host[:port], without a scheme", endpoint)
	}
	if block, _ := pem.Decode(caPEM); block == nil || block.Type != "CERTIFICATE" {
		return errors.New("fakegcp: the cluster CA is not a PEM certificate")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.clusterLocked(clusterKey(project, location, name))
	if err != nil {
		return err
	}
	c.Endpoint = endpoint
	if c.MasterAuth == nil {
		c.MasterAuth = &containerpb.MasterAuth{}
	}
	c.MasterAuth.ClusterCaCertificate = base64.StdEncoding.EncodeToString(caPEM)
	return nil
}

// EditCluster changes an existing cluster in place, as a change made outside
// the provider would (gcloud, the console): a test turns Workload Identity
// or network policy enforcement off, or sets an older version, and back.
func (s *Container) EditCluster(project, location, name string, edit func(c *containerpb.Cluster)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.clusterLocked(clusterKey(project, location, name))
	if err != nil {
		return err
	}
	edit(c)
	return nil
}
