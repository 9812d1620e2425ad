package fakegcp

import (
	"context"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	rpcstatus "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// nodePoolRequest is what every node-pool RPC request has: a resource name,
// or the deprecated project/zone/cluster/pool fields.
type nodePoolRequest interface {
	GetName() string
	GetProjectId() string
	GetZone() string
	GetClusterId() string
	GetNodePoolId() string
}

// poolLocked resolves the node pool a request addresses.
func (s *Container) poolLocked(req nodePoolRequest) (c *containerpb.Cluster, np *containerpb.NodePool, key, p, l string, err error) {
	return s.lookupNodePoolLocked(req.GetName(), req.GetProjectId(), req.GetZone(), req.GetClusterId(), req.GetNodePoolId())
}

// lookupNodePoolLocked resolves a node pool by resource name or by the
// deprecated project/zone/cluster/pool fields.
func (s *Container) lookupNodePoolLocked(name, project, zone, cluster, pool string) (c *containerpb.Cluster, np *containerpb.NodePool, key, p, l string, err error) {
	if name == "" {
		name = nodePoolKey(clusterKey(project, zone, cluster), pool)
	}
	m := nodePoolNameRE.FindStringSubmatch(name)
	if m == nil {
		return nil, nil, "", "", "", invalidArg("Invalid node pool name %q.", name)
	}
	key = clusterKey(m[1], m[2], m[3])
	if c, err = s.clusterLocked(key); err != nil {
		return nil, nil, "", "", "", err
	}
	if _, np = findNodePool(c, m[4]); np == nil {
		return nil, nil, "", "", "", nodePoolNotFound(m[4])
	}
	return c, np, key, m[1], m[2], nil
}

// NodePoolSize returns the current per-zone node count of a node pool, given
// its resource name (initial_node_count, then whatever SetNodePoolSize set).
func (s *Container) NodePoolSize(name string) (int32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	n, ok := s.nodeCounts[name]
	return n, ok
}

func (s *Container) CreateNodePool(ctx context.Context, req *containerpb.CreateNodePoolRequest) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	key, p, l, err := clusterKeyFrom(req.GetParent(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	c, err := s.clusterLocked(key)
	if err != nil {
		return nil, err
	}
	if req.GetNodePool() == nil {
		return nil, invalidArg("node_pool must be specified.")
	}
	np := proto.Clone(req.GetNodePool()).(*containerpb.NodePool)
	if err := validateNodePool(np); err != nil {
		return nil, err
	}
	npKey := nodePoolKey(key, np.Name)
	if _, existing := findNodePool(c, np.Name); existing != nil {
		return nil, status.Errorf(codes.AlreadyExists, "Already exists: %s.", npKey)
	}
	if err := s.admitLocked(key, np.Name); err != nil {
		return nil, err
	}
	defaultNodePool(p, c, np)
	c.NodePools = append(c.NodePools, np)
	s.nodeCounts[npKey] = np.InitialNodeCount
	return s.startOpLocked(p, l, key, np.Name, containerpb.Operation_CREATE_NODE_POOL, npKey, func() *rpcstatus.Status {
		defer touch(np)
		if s.FailNodePoolCreate != nil {
			if st := s.FailNodePoolCreate(proto.Clone(np).(*containerpb.NodePool)); st != nil {
				np.Status = containerpb.NodePool_ERROR
				np.StatusMessage = st.Message
				return st
			}
		}
		np.Status = containerpb.NodePool_RUNNING
		return nil
	}), nil
}

func (s *Container) GetNodePool(ctx context.Context, req *containerpb.GetNodePoolRequest) (*containerpb.NodePool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	_, np, _, _, _, err := s.poolLocked(req)
	if err != nil {
		return nil, err
	}
	return proto.Clone(np).(*containerpb.NodePool), nil
}

func (s *Container) ListNodePools(ctx context.Context, req *containerpb.ListNodePoolsRequest) (*containerpb.ListNodePoolsResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	key, _, _, err := clusterKeyFrom(req.GetParent(), req.GetProjectId(), req.GetZone(), req.GetClusterId())
	if err != nil {
		return nil, err
	}
	c, err := s.clusterLocked(key)
	if err != nil {
		return nil, err
	}
	resp := &containerpb.ListNodePoolsResponse{}
	for _, np := range c.NodePools {
		resp.NodePools = append(resp.NodePools, proto.Clone(np).(*containerpb.NodePool))
	}
	return resp, nil
}

// startNodePoolUpdateLocked runs apply as one RECONCILING operation on np.
func (s *Container) startNodePoolUpdateLocked(np *containerpb.NodePool, key, p, l string, typ containerpb.Operation_Type, apply func()) *containerpb.Operation {
	np.Status = containerpb.NodePool_RECONCILING
	touch(np)
	return s.startOpLocked(p, l, key, np.Name, typ, nodePoolKey(key, np.Name), func() *rpcstatus.Status {
		apply()
		np.Status = containerpb.NodePool_RUNNING
		np.StatusMessage = ""
		touch(np)
		return nil
	})
}

// mutateNodePool is the shape of the single-purpose node-pool setters: find
// the pool, validate the request against it, take the cluster's operation
// slot, then apply the change when the operation completes. validate returns
// the change to apply.
func (s *Container) mutateNodePool(req nodePoolRequest, typ containerpb.Operation_Type,
	validate func(np *containerpb.NodePool, npKey string) (apply func(), err error),
) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	_, np, key, p, l, err := s.poolLocked(req)
	if err != nil {
		return nil, err
	}
	apply, err := validate(np, nodePoolKey(key, np.Name))
	if err != nil {
		return nil, err
	}
	if err := s.admitLocked(key, np.Name); err != nil {
		return nil, err
	}
	return s.startNodePoolUpdateLocked(np, key, p, l, typ, apply), nil
}

func (s *Container) SetNodePoolAutoscaling(ctx context.Context, req *containerpb.SetNodePoolAutoscalingRequest) (*containerpb.Operation, error) {
	return s.mutateNodePool(req, containerpb.Operation_UPDATE_CLUSTER, func(np *containerpb.NodePool, _ string) (func(), error) {
		if err := validateAutoscaling(req.GetAutoscaling()); err != nil {
			return nil, err
		}
		if np.GetQueuedProvisioning().GetEnabled() && !req.GetAutoscaling().GetEnabled() {
			return nil, invalidArg("Queued provisioning requires autoscaling to be enabled.")
		}
		want := proto.Clone(req.GetAutoscaling()).(*containerpb.NodePoolAutoscaling)
		return func() { np.Autoscaling = want }, nil
	})
}

// SetNodePoolSize resizes a pool (per zone). Like GKE it is allowed even when
// autoscaling is enabled; the autoscaler may later change the size again.
func (s *Container) SetNodePoolSize(ctx context.Context, req *containerpb.SetNodePoolSizeRequest) (*containerpb.Operation, error) {
	return s.mutateNodePool(req, containerpb.Operation_SET_NODE_POOL_SIZE, func(np *containerpb.NodePool, npKey string) (func(), error) {
		if req.GetNodeCount() < 0 {
			return nil, invalidArg("Invalid value for field \"node_count\": %d. Must be >= 0.", req.GetNodeCount())
		}
		if np.GetQueuedProvisioning().GetEnabled() && req.GetNodeCount() != 0 {
			// recorded: containernodepool-queuedprovisioning/_http.log
			return nil, invalidArg("Manual resizing of queued provisioning node pool (%s) to a value other than 0 is not allowed.", np.Name)
		}
		n := req.GetNodeCount()
		// GKE reads the new size back as initialNodeCount (recorded:
		// containernodepool-subnetworkref/_http.log, 1 -> 2).
		return func() { s.nodeCounts[npKey] = n; np.InitialNodeCount = n }, nil
	})
}

func (s *Container) SetNodePoolManagement(ctx context.Context, req *containerpb.SetNodePoolManagementRequest) (*containerpb.Operation, error) {
	return s.mutateNodePool(req, containerpb.Operation_SET_NODE_POOL_MANAGEMENT, func(np *containerpb.NodePool, _ string) (func(), error) {
		if req.GetManagement() == nil {
			return nil, invalidArg("management must be specified.")
		}
		want := proto.Clone(req.GetManagement()).(*containerpb.NodeManagement)
		return func() { np.Management = want }, nil
	})
}

func (s *Container) DeleteNodePool(ctx context.Context, req *containerpb.DeleteNodePoolRequest) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	c, np, key, p, l, err := s.poolLocked(req)
	if err != nil {
		return nil, err
	}
	if err := s.admitLocked(key, np.Name); err != nil {
		return nil, err
	}
	np.Status = containerpb.NodePool_STOPPING
	touch(np)
	npKey := nodePoolKey(key, np.Name)
	return s.startOpLocked(p, l, key, np.Name, containerpb.Operation_DELETE_NODE_POOL, npKey, func() *rpcstatus.Status {
		if i, cur := findNodePool(c, np.Name); cur == np {
			c.NodePools = append(c.NodePools[:i], c.NodePools[i+1:]...)
			delete(s.nodeCounts, npKey)
		}
		return nil
	}), nil
}
