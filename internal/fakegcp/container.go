package fakegcp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/proto"
)

var _ containerpb.ClusterManagerServer = (*Container)(nil)

// Container fakes google.container.v1.ClusterManager.
type Container struct {
	containerpb.UnimplementedClusterManagerServer

	// FailNodePoolCreate, if set, decides when a CREATE_NODE_POOL operation
	// completes whether it ends in error (e.g. GCEStockout); the pool is then
	// left in ERROR state. It is called with the server lock held and must not
	// call back into the Server. Set it before Start, or use
	// SetFailNodePoolCreate while the server runs.
	FailNodePoolCreate func(np *containerpb.NodePool) *rpcstatus.Status

	mu         sync.Mutex
	opLatency  time.Duration
	maxNPOps   int
	now        func() time.Time
	clusters   map[string]*containerpb.Cluster // projects/P/locations/L/clusters/C
	nodeCounts map[string]int32                // node pool full name -> size per zone
	ops        map[string]*fakeOp              // projects/P/locations/L/operations/ID
	running    map[string]*fakeOp              // subset of ops still RUNNING
	opSeq      int
	endpoints  int
	maxRunning map[string]int // cluster key -> most operations seen running at once
}

type fakeOp struct {
	pb         *containerpb.Operation
	seq        int
	clusterKey string
	nodePool   string // "" for cluster-level ops
	doneAt     time.Time
	finish     func() *rpcstatus.Status // runs under lock at completion
}

func newContainer(cfg config) *Container {
	return &Container{
		opLatency:  cfg.opLatency,
		maxNPOps:   cfg.maxConcurrentNodePoolOps,
		now:        cfg.now,
		clusters:   map[string]*containerpb.Cluster{},
		nodeCounts: map[string]int32{},
		ops:        map[string]*fakeOp{},
		running:    map[string]*fakeOp{},
		maxRunning: map[string]int{},
	}
}

// MaxConcurrentOps returns the largest number of operations that ran at the
// same time on the cluster (projects/P/locations/L/clusters/C), so a test
// can assert that a client never overlapped them.
func (s *Container) MaxConcurrentOps(clusterKey string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxRunning[clusterKey]
}

// SetFailNodePoolCreate replaces FailNodePoolCreate race-free.
func (s *Container) SetFailNodePoolCreate(f func(np *containerpb.NodePool) *rpcstatus.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.FailNodePoolCreate = f
}

// SetMaxConcurrentNodePoolOps changes the WithMaxConcurrentNodePoolOps limit.
func (s *Container) SetMaxConcurrentNodePoolOps(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxNPOps = n
}

// SetOpLatency changes the WithOpLatency duration for operations started later.
func (s *Container) SetOpLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opLatency = d
}

var (
	clusterNameRE  = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)$`)
	nodePoolNameRE = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)/clusters/([^/]+)/nodePools/([^/]+)$`)
	opNameRE       = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)/operations/([^/]+)$`)
	parentRE       = regexp.MustCompile(`^projects/([^/]+)/locations/([^/]+)$`)
	resourceIDRE   = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)
)

const (
	gkeVersion = "1.33.5-gke.1080000"
	apiPrefix  = "https://container.googleapis.com/v1/"
)

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ---- operations machinery ---------------------------------------------------

// advanceLocked completes, in start order, every RUNNING operation whose
// deadline has passed on the injected clock. Every RPC calls it first.
func (s *Container) advanceLocked() {
	now := s.now()
	var due []*fakeOp
	for _, op := range s.running {
		if !now.Before(op.doneAt) {
			due = append(due, op)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].seq < due[j].seq })
	for _, op := range due {
		var st *rpcstatus.Status
		if op.finish != nil {
			st = op.finish()
		}
		op.pb.Status = containerpb.Operation_DONE
		op.pb.EndTime = now.UTC().Format(time.RFC3339Nano)
		if st != nil {
			op.pb.Error = st
			op.pb.StatusMessage = st.Message
		}
		delete(s.running, opFullName(op.pb))
	}
}

func opFullName(op *containerpb.Operation) string {
	return strings.TrimPrefix(op.SelfLink, apiPrefix)
}

// admitLocked enforces GKE's per-cluster operation concurrency rules.
func (s *Container) admitLocked(clusterKey, nodePool string) error {
	var running []*fakeOp
	for _, op := range s.running {
		if op.clusterKey == clusterKey {
			running = append(running, op)
		}
	}
	if len(running) == 0 {
		return nil
	}
	sort.Slice(running, func(i, j int) bool { return running[i].seq < running[j].seq })
	if nodePool == "" || s.maxNPOps == 0 {
		return incompatible(running[0].pb.Name)
	}
	for _, op := range running {
		if op.nodePool == "" || op.nodePool == nodePool {
			return incompatible(op.pb.Name)
		}
	}
	if len(running) >= s.maxNPOps {
		return tooManyNodePoolOps(clusterKey, s.maxNPOps)
	}
	return nil
}

// startOpLocked records a RUNNING operation; finish runs when it completes.
// Like GKE, Operation.Name is the short id and SelfLink the full URL.
func (s *Container) startOpLocked(project, location, clusterKey, nodePool string, typ containerpb.Operation_Type, target string, finish func() *rpcstatus.Status) *containerpb.Operation {
	now := s.now()
	s.opSeq++
	id := fmt.Sprintf("operation-%d-%s", now.UnixMilli(), randHex(4))
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", project, location, id)
	pb := &containerpb.Operation{
		Name:          id,
		Zone:          location,
		Location:      location,
		OperationType: typ,
		Status:        containerpb.Operation_RUNNING,
		SelfLink:      apiPrefix + name,
		TargetLink:    apiPrefix + target,
		StartTime:     now.UTC().Format(time.RFC3339Nano),
	}
	op := &fakeOp{pb: pb, seq: s.opSeq, clusterKey: clusterKey, nodePool: nodePool, doneAt: now.Add(s.opLatency), finish: finish}
	s.ops[name], s.running[name] = op, op
	n := 0
	for _, r := range s.running {
		if r.clusterKey == clusterKey {
			n++
		}
	}
	s.maxRunning[clusterKey] = max(s.maxRunning[clusterKey], n)
	return proto.Clone(pb).(*containerpb.Operation)
}

func (s *Container) GetOperation(ctx context.Context, req *containerpb.GetOperationRequest) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	name := req.GetName()
	if name == "" {
		name = fmt.Sprintf("projects/%s/locations/%s/operations/%s", req.GetProjectId(), req.GetZone(), req.GetOperationId())
	}
	if !opNameRE.MatchString(name) {
		return nil, invalidArg("Invalid operation name %q.", name)
	}
	op, ok := s.ops[name]
	if !ok {
		return nil, notFound(name)
	}
	return proto.Clone(op.pb).(*containerpb.Operation), nil
}

func (s *Container) ListOperations(ctx context.Context, req *containerpb.ListOperationsRequest) (*containerpb.ListOperationsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	prefix := req.GetParent()
	if prefix == "" {
		prefix = fmt.Sprintf("projects/%s/locations/%s", req.GetProjectId(), req.GetZone())
	}
	var ops []*fakeOp
	for name, op := range s.ops {
		if strings.HasPrefix(name, prefix+"/operations/") ||
			(strings.HasSuffix(prefix, "/locations/-") && strings.HasPrefix(name, strings.TrimSuffix(prefix, "-"))) {
			ops = append(ops, op)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].seq < ops[j].seq })
	resp := &containerpb.ListOperationsResponse{}
	for _, op := range ops {
		resp.Operations = append(resp.Operations, proto.Clone(op.pb).(*containerpb.Operation))
	}
	return resp, nil
}

// HasWorkloadPool reports whether any cluster in the fake has the given
// Workload Identity pool (used by the IAM fake: "Identity Pool does not exist").
func (s *Container) HasWorkloadPool(pool string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	for _, c := range s.clusters {
		if c.GetWorkloadIdentityConfig().GetWorkloadPool() == pool {
			return true
		}
	}
	return false
}
