package fakegcp

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"sync"
	"time"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	adminpb "cloud.google.com/go/iam/admin/apiv1/adminpb"
	"google.golang.org/api/option"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// config holds the settings chosen with Options at New time.
type config struct {
	opLatency                time.Duration
	maxConcurrentNodePoolOps int
	now                      func() time.Time
}

// Option configures a Server created by New.
type Option func(*config)

// WithOpLatency sets how long a long-running operation stays RUNNING before it
// becomes DONE (default 50ms), measured with the server's clock.
func WithOpLatency(d time.Duration) Option { return func(c *config) { c.opLatency = d } }

// WithMaxConcurrentNodePoolOps allows up to n concurrent operations on
// different node pools of one cluster. 0 (default) is classic GKE behaviour:
// one mutating operation per cluster.
func WithMaxConcurrentNodePoolOps(n int) Option {
	return func(c *config) { c.maxConcurrentNodePoolOps = n }
}

// WithClock injects the clock used to time operations (default time.Now). The
// function is called concurrently from RPC handlers and must be race-free.
func WithClock(now func() time.Time) Option { return func(c *config) { c.now = now } }

// Server serves the Container and IAM fakes on one gRPC listener.
type Server struct {
	// Container is the google.container.v1.ClusterManager fake; use it for
	// seeding (AddCluster) and failure injection.
	Container *Container
	// IAM is the google.iam.admin.v1.IAM fake.
	IAM *IAM
	// Compute is the Compute Engine REST fake (regions.get, projects.get,
	// subnetworks.get), served over HTTP on a listener of its own.
	Compute *Compute

	mu       sync.Mutex
	grpc     *grpc.Server
	addr     string
	http     *http.Server
	httpAddr string
	stopped  bool
	requests map[string]int
	faults   []*fault
}

// fault is an injected UNAVAILABLE (Unavailable).
type fault struct {
	method string
	match  func(req any) bool
	left   int
	served bool
}

// UnavailableMessage is what Google's front end says with UNAVAILABLE while
// a service is briefly down.
const UnavailableMessage = "The service is currently unavailable."

// Unavailable makes the next n calls of method (a full method name, e.g.
// "/google.container.v1.ClusterManager/CreateNodePool") for which match
// returns true (nil: every call) answer UNAVAILABLE. With served, each call
// is served first and only its answer is lost: the request took effect, as
// when the connection drops after GKE or IAM took it.
func (s *Server) Unavailable(method string, match func(req any) bool, n int, served bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &fault{method: method, match: match, left: n, served: served})
}

// takeFault returns the fault that applies to a call, if any, counting it.
func (s *Server) takeFault(method string, req any) *fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range s.faults {
		if f.left > 0 && f.method == method && (f.match == nil || f.match(req)) {
			f.left--
			return f
		}
	}
	return nil
}

// New returns an unstarted Server. IAM's Workload Identity pool check is wired
// to Container.HasWorkloadPool.
func New(opts ...Option) *Server {
	cfg := config{opLatency: 50 * time.Millisecond, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	s := &Server{Container: newContainer(cfg), IAM: newIAM(), Compute: newCompute(), requests: map[string]int{}}
	s.IAM.PoolExists = s.Container.HasWorkloadPool
	return s
}

// Start listens on addr (e.g. "127.0.0.1:0") and serves both services in a
// background goroutine. It fails if the server was already started or stopped.
func (s *Server) Start(addr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grpc != nil || s.stopped {
		return errors.New("fakegcp: server already started")
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		_ = lis.Close()
		return err
	}
	hlis, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		_ = lis.Close()
		return err
	}
	g := grpc.NewServer(grpc.UnaryInterceptor(s.count))
	containerpb.RegisterClusterManagerServer(g, s.Container)
	adminpb.RegisterIAMServer(g, s.IAM)
	s.grpc, s.addr = g, lis.Addr().String()
	s.http, s.httpAddr = &http.Server{Handler: s.Compute, ReadHeaderTimeout: 10 * time.Second}, hlis.Addr().String()
	go func() { _ = g.Serve(lis) }()
	go func() { _ = s.http.Serve(hlis) }()
	return nil
}

// ComputeAddr is the host:port the Compute Engine REST fake listens on
// ("" before Start), on the gRPC listener's host.
func (s *Server) ComputeAddr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.httpAddr
}

// Addr is the host:port actually bound ("" before Start).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Stop gracefully stops the server. It is idempotent and safe before Start.
func (s *Server) Stop() {
	s.mu.Lock()
	g, h := s.grpc, s.http
	already := s.stopped
	s.stopped = true
	s.mu.Unlock()
	if g != nil && !already {
		g.GracefulStop()
		_ = h.Close()
	}
}

// ClientOptions points an official cloud.google.com/go gRPC client at the
// fake: endpoint, no authentication, insecure (plaintext) transport.
func (s *Server) ClientOptions() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(s.Addr()),
		option.WithoutAuthentication(),
		option.WithGRPCDialOption(grpc.WithTransportCredentials(insecure.NewCredentials())),
	}
}

// Requests returns how many RPCs were received per full method name, e.g.
// "/google.container.v1.ClusterManager/ListNodePools".
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.requests)
}

// ResetRequests clears the counters returned by Requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.requests)
}

func (s *Server) count(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	s.mu.Lock()
	s.requests[info.FullMethod]++
	s.mu.Unlock()
	f := s.takeFault(info.FullMethod, req)
	switch {
	case f == nil:
		return h(ctx, req)
	case f.served:
		_, _ = h(ctx, req)
	}
	return nil, status.Error(codes.Unavailable, UnavailableMessage)
}
