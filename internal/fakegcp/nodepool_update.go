package fakegcp

import (
	"context"
	"maps"
	"strings"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// updateGroup is one group of UpdateNodePoolRequest fields that GKE updates
// together. A request may set only one group.
type updateGroup struct {
	name string
	set  func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) bool
	// check validates the request and returns the mutation to apply when the
	// operation completes. nil means the group is accepted but not simulated.
	check func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error)
}

func clone[T proto.Message](m T) T { return proto.Clone(m).(T) }

// cfgSetter builds a check that stores the request value into the node config.
func cfgSetter(apply func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig)) func(*containerpb.UpdateNodePoolRequest, *containerpb.NodePool) (func(), error) {
	return func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
		r = clone(r)
		return func() { apply(r, np.Config) }, nil
	}
}

var updateGroups = []updateGroup{
	{
		name: "node_version/image_type",
		set: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) bool {
			// Echoing the current values (as some clients do) is not an update.
			return (r.NodeVersion != "" && r.NodeVersion != np.Version) ||
				(r.ImageType != "" && !strings.EqualFold(r.ImageType, np.GetConfig().GetImageType())) ||
				r.Image != "" || r.ImageProject != ""
		},
		check: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
			version, image := r.NodeVersion, strings.ToUpper(r.ImageType)
			if version == "-" || version == "latest" {
				version = gkeVersion
			}
			return func() {
				if version != "" {
					np.Version = version
				}
				if image != "" {
					np.Config.ImageType = image
				}
			}, nil
		},
	},
	{
		name: "locations",
		set:  func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return len(r.Locations) > 0 },
		// apply is special-cased in UpdateNodePool (needs the cluster).
	},
	{
		name: "labels",
		set:  func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.Labels != nil },
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.Labels = r.Labels.GetLabels()
		}),
	},
	{
		name: "taints",
		set:  func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.Taints != nil },
		check: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
			taints := clone(r.Taints).GetTaints()
			return func() { np.Config.Taints = taints; applyServerLabelsAndTaints(np) }, nil
		},
	},
	{
		name: "resource_labels",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.ResourceLabels != nil
		},
		check: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
			labels := maps.Clone(r.ResourceLabels.GetLabels())
			delete(labels, provisioningModelLabel) // server-owned
			return func() { np.Config.ResourceLabels = labels; applyServerLabelsAndTaints(np) }, nil
		},
	},
	{
		name:  "tags",
		set:   func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.Tags != nil },
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) { cfg.Tags = r.Tags.GetTags() }),
	},
	{
		name: "workload_metadata_config",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.WorkloadMetadataConfig != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.WorkloadMetadataConfig = r.WorkloadMetadataConfig
		}),
	},
	{
		name: "upgrade_settings",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.UpgradeSettings != nil
		},
		check: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
			us := clone(r.UpgradeSettings)
			return func() { np.UpgradeSettings = us }, nil
		},
	},
	{
		name: "accelerators",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return len(r.Accelerators) > 0
		},
		// GKE changes the GPU sharing config and the driver installation
		// config in place (magic-modules PR #18493); type, count and
		// partition size are fixed once the pool has GPUs. The request's
		// accelerators are stored as sent.
		check: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
			if err := checkAcceleratorsImmutable(np.Config.GetAccelerators(), r.Accelerators); err != nil {
				return nil, err
			}
			cand := clone(np.Config)
			cand.Accelerators = clone(r).Accelerators
			if err := validateAccelerators(cand); err != nil {
				return nil, err
			}
			return func() { np.Config.Accelerators = cand.Accelerators; applyServerLabelsAndTaints(np) }, nil
		},
	},
	{
		name: "machine_type/disk_type/disk_size_gb",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.MachineType != "" || r.DiskType != "" || r.DiskSizeGb != 0
		},
		check: func(r *containerpb.UpdateNodePoolRequest, np *containerpb.NodePool) (func(), error) {
			cand := clone(np.Config)
			if r.MachineType != "" {
				if _, fixed := fixedGPUs[cand.MachineType]; fixed {
					cand.Accelerators = nil // re-derived from the new shape
				}
				cand.MachineType = r.MachineType
			}
			if r.DiskType != "" {
				cand.DiskType = r.DiskType
			}
			if r.DiskSizeGb != 0 {
				cand.DiskSizeGb = int32(r.DiskSizeGb)
			}
			if err := validateAccelerators(cand); err != nil {
				return nil, err
			}
			return func() {
				np.Config.MachineType, np.Config.DiskType, np.Config.DiskSizeGb = cand.MachineType, cand.DiskType, cand.DiskSizeGb
				np.Config.BootDisk = &containerpb.BootDisk{DiskType: cand.DiskType, SizeGb: int64(cand.DiskSizeGb)}
				np.Config.Accelerators = cand.Accelerators
				applyServerLabelsAndTaints(np)
			}, nil
		},
	},
	{
		name: "linux_node_config",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.LinuxNodeConfig != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.LinuxNodeConfig = r.LinuxNodeConfig
		}),
	},
	{
		name: "kubelet_config",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.KubeletConfig != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.KubeletConfig = r.KubeletConfig
			defaultKubeletConfig(cfg)
		}),
	},
	{
		name:  "gcfs_config",
		set:   func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.GcfsConfig != nil },
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) { cfg.GcfsConfig = r.GcfsConfig }),
	},
	{
		name:  "gvnic",
		set:   func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.Gvnic != nil },
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) { cfg.Gvnic = r.Gvnic }),
	},
	{
		name: "logging_config",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.LoggingConfig != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.LoggingConfig = r.LoggingConfig
		}),
	},
	{
		name: "resource_manager_tags",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.ResourceManagerTags != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.ResourceManagerTags = r.ResourceManagerTags
		}),
	},
	{
		name: "containerd_config",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.ContainerdConfig != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.ContainerdConfig = r.ContainerdConfig
		}),
	},
	{
		name:  "flex_start",
		set:   func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.FlexStart != nil },
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) { cfg.FlexStart = r.FlexStart }),
	},
	{
		name: "max_run_duration",
		set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
			return r.MaxRunDuration != nil
		},
		check: cfgSetter(func(r *containerpb.UpdateNodePoolRequest, cfg *containerpb.NodeConfig) {
			cfg.MaxRunDuration = r.MaxRunDuration
		}),
	},
	// Recognised so that they count against the one-group rule, but not
	// simulated: the request is rejected with Unimplemented.
	{name: "node_network_config", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.NodeNetworkConfig != nil
	}},
	{name: "confidential_nodes", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.ConfidentialNodes != nil
	}},
	{name: "fast_socket", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.FastSocket != nil }},
	{name: "windows_node_config", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.WindowsNodeConfig != nil
	}},
	{name: "queued_provisioning", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.QueuedProvisioning != nil
	}},
	{name: "storage_pools", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return len(r.StoragePools) > 0
	}},
	{name: "boot_disk", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.BootDisk != nil }},
	{name: "node_drain_config", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.NodeDrainConfig != nil
	}},
	{name: "consolidation_delay", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.ConsolidationDelay != nil
	}},
	{name: "taint_config", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool { return r.TaintConfig != nil }},
	{name: "maintenance_policy", set: func(r *containerpb.UpdateNodePoolRequest, _ *containerpb.NodePool) bool {
		return r.MaintenancePolicy != nil
	}},
}

// UpdateNodePool applies exactly one group of fields as one operation, like
// GKE (clients such as the Terraform provider send one request per group).
// A non-empty etag must match the node pool's current etag (else Aborted).
func (s *Container) UpdateNodePool(ctx context.Context, req *containerpb.UpdateNodePoolRequest) (*containerpb.Operation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.advanceLocked()
	c, np, key, p, l, err := s.poolLocked(req)
	if err != nil {
		return nil, err
	}
	if req.Etag != "" && req.Etag != np.Etag {
		return nil, status.Errorf(codes.Aborted, "Provided etag %q does not match the current etag %q of node pool %s.", req.Etag, np.Etag, np.Name)
	}
	var groups []updateGroup
	var names []string
	for _, g := range updateGroups {
		if g.set(req, np) {
			groups, names = append(groups, g), append(names, g.name)
		}
	}
	switch {
	case len(groups) == 0:
		return nil, invalidArg("UpdateNodePool request does not specify any field to update.")
	case len(groups) > 1:
		return nil, invalidArg("Only one of the following can be updated in a single UpdateNodePool request, got: %s.", strings.Join(names, ", "))
	}
	g := groups[0]
	var apply func()
	switch {
	case g.name == "locations":
		for _, z := range req.Locations {
			if !strings.HasPrefix(z, c.Location) {
				return nil, invalidArg("Location %q is not in the cluster's region %q.", z, c.Location)
			}
		}
		locs := append([]string(nil), req.Locations...)
		apply = func() { np.Locations = locs; np.InstanceGroupUrls = instanceGroupURLs(p, c, np) }
	case g.check == nil:
		return nil, status.Errorf(codes.Unimplemented, "fakegcp: updating %s is not simulated.", g.name)
	default:
		if apply, err = g.check(req, np); err != nil {
			return nil, err
		}
	}
	if err := s.admitLocked(key, np.Name); err != nil {
		return nil, err
	}
	typ := containerpb.Operation_UPDATE_CLUSTER
	switch g.name {
	// recorded: containernodepool-kubeletconfig/_http.log,
	// containernodepoolremovetaint/_http.log (v1; the v1beta1
	// containernodepool-removetaint/_http.log has no type on taints).
	case "node_version/image_type", "kubelet_config", "taints":
		typ = containerpb.Operation_UPGRADE_NODES
	}
	return s.startNodePoolUpdateLocked(np, key, p, l, typ, apply), nil
}

// checkAcceleratorsImmutable refuses an accelerators update that changes the
// type, count or partition size of a pool's GPUs. A pool without GPUs may get
// them (as the fake allowed before; not checked against GKE).
func checkAcceleratorsImmutable(cur, want []*containerpb.AcceleratorConfig) error {
	if len(cur) == 0 {
		return nil
	}
	if len(want) != len(cur) {
		// wording not recorded
		return invalidArg("Accelerators: the number of accelerator configs (%d) should not be updated.", len(cur))
	}
	for i, c := range cur {
		w := want[i]
		switch {
		case w.GetAcceleratorType() != c.GetAcceleratorType():
			// wording not recorded; modelled on the count message.
			return invalidArg("Accelerator type: %s should not be updated (requested %s); create a new node pool for another accelerator type.",
				c.GetAcceleratorType(), w.GetAcceleratorType())
		case w.GetAcceleratorCount() != c.GetAcceleratorCount():
			// GKE's wording (quoted in magic-modules PR #18493, via
			// GKE-KUEUE-FACTS.md); which value GKE prints (current or
			// requested) is not recorded: the fake prints the current one.
			return invalidArg("Accelerator count: %d should not be updated.", c.GetAcceleratorCount())
		case w.GetGpuPartitionSize() != c.GetGpuPartitionSize():
			// wording not recorded; modelled on the count message.
			return invalidArg("GPU partition size: %q should not be updated (requested %q); create a new node pool for another partition size.",
				c.GetGpuPartitionSize(), w.GetGpuPartitionSize())
		}
	}
	return nil
}
