package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// GPU pools: refs, what Observe reports, and the reconciler. The mapping
// between specs and GKE's node pools is in gpu_pool_map.go, the diff in
// gpu_pool_diff.go, the errors in gpu_pool_errors.go; sending requests,
// retrying while GKE is busy and waiting for operations is internal/gke's
// (gke.Operations).

// NodePoolAPI is what reconciling GPU pools needs of GKE (internal/gke.Client
// satisfies it). Every mutating call returns a long-running operation.
type NodePoolAPI interface {
	GetNodePool(ctx context.Context, name string) (*containerpb.NodePool, error)
	CreateNodePool(ctx context.Context, parent string, np *containerpb.NodePool) (*containerpb.Operation, error)
	UpdateNodePool(ctx context.Context, req *containerpb.UpdateNodePoolRequest) (*containerpb.Operation, error)
	SetNodePoolAutoscaling(ctx context.Context, name string, a *containerpb.NodePoolAutoscaling) (*containerpb.Operation, error)
	DeleteNodePool(ctx context.Context, name string) (*containerpb.Operation, error)
	GetOperation(ctx context.Context, name string) (*containerpb.Operation, error)
}

// GPUPoolRef names a node pool.
type GPUPoolRef struct{ Project, Location, Cluster, Name string }

// ClusterName is projects/P/locations/L/clusters/C.
func (r GPUPoolRef) ClusterName() string { return gke.NodePoolRef(r).ClusterName() }

// NodePoolName is projects/P/locations/L/clusters/C/nodePools/N.
func (r GPUPoolRef) NodePoolName() string { return gke.NodePoolRef(r).NodePoolName() }

func (r GPUPoolRef) String() string { return r.NodePoolName() }

// RefOf is the node pool a spec addresses.
func RefOf(p spec.GPUPool) GPUPoolRef {
	return GPUPoolRef{Project: p.Project, Location: p.Location, Cluster: p.Cluster, Name: p.Name}
}

// ObservedGPUPool is a node pool as GKE reports it: the spec part that
// configuration manages, plus what only the server knows.
type ObservedGPUPool struct {
	Spec                    spec.GPUPool
	Status                  string // PROVISIONING | RUNNING | RECONCILING | STOPPING | ERROR ...
	StatusMessage           string
	Version                 string
	InstanceGroupURLs       []string
	EffectiveResourceLabels map[string]string // every label on the VMs, GKE's goog-gke* included
	EffectiveTaints         []spec.Taint      // every taint on the nodes, GKE's GPU taint included

	pool *containerpb.NodePool // as read, for Diff
}

// GPUPools reconciles GPU node pools: Observe → Diff → Apply → Wait, one
// GKE request per field group, serialized per cluster and retried while GKE
// is busy with another operation (gke.Operations, paced by Pacing).
type GPUPools struct {
	api   NodePoolAPI
	locks gke.Locker
	gke.Pacing
}

var _ Reconciler[GPUPoolRef, spec.GPUPool, ObservedGPUPool] = (*GPUPools)(nil)

// NewGPUPools returns a reconciler with production defaults.
func NewGPUPools(api NodePoolAPI, locks gke.Locker) *GPUPools {
	return &GPUPools{api: api, locks: locks, Pacing: gke.DefaultPacing()}
}

// mutate sends one mutating request and waits for its operation (see
// gke.Operations.Mutate).
func (g *GPUPools) mutate(ctx context.Context, ref GPUPoolRef, what string, call func(ctx context.Context) (*containerpb.Operation, error)) error {
	ops := gke.Operations{API: g.api, Locks: g.locks, Pacing: g.Pacing}
	return ops.Mutate(ctx, gke.NodePoolRef(ref), what, call)
}

func notFound(err error) bool { return status.Code(err) == codes.NotFound }

// get reads the pool; found is false when GKE has none of that name.
func (g *GPUPools) get(ctx context.Context, ref GPUPoolRef) (*containerpb.NodePool, bool, error) {
	np, err := g.api.GetNodePool(ctx, ref.NodePoolName())
	switch {
	case notFound(err):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read node pool %s: %w", ref, err)
	}
	return np, true, nil
}

// Observe reads the pool. hint is the configuration last known (see
// FromNodePool). A pool that is not the one this resource instance recorded
// (deleted and created again by someone) reads as absent, and the ledger
// notes it.
func (g *GPUPools) Observe(ctx context.Context, ref GPUPoolRef, hint spec.GPUPool) (ObservedGPUPool, bool, error) {
	np, found, err := g.get(ctx, ref)
	if !found || err != nil {
		return ObservedGPUPool{}, found, err
	}
	if mine, _, _ := ledgerOf(ctx).claimPool(ref, np, true, false); !mine {
		return ObservedGPUPool{}, false, nil
	}
	return Observed(ref, np, hint), true, nil
}

// Diff names the fields of actual that differ from desired, in spec terms:
// first those GKE cannot change in place (a change there replaces the pool),
// then the field groups an Update sends, one request each.
func (g *GPUPools) Diff(desired spec.GPUPool, actual ObservedGPUPool) []string {
	np := actual.pool
	if np == nil { // not read from GKE: what its spec would create
		np = BuildNodePool(actual.Spec)
	}
	fields, actions := diff(desired, np)
	for _, a := range actions {
		fields = append(fields, a.Field)
	}
	return fields
}

// settle waits while the pool is being created, changed or deleted by an
// operation that is not ours.
func (g *GPUPools) settle(ctx context.Context, ref GPUPoolRef) (*containerpb.NodePool, bool, error) {
	poll := g.Poll
	for {
		np, found, err := g.get(ctx, ref)
		if err != nil || !found {
			return np, found, err
		}
		switch np.GetStatus() {
		case containerpb.NodePool_PROVISIONING, containerpb.NodePool_RECONCILING, containerpb.NodePool_STOPPING:
		default:
			return np, true, nil
		}
		if err := g.Sleep(ctx, poll); err != nil {
			return nil, false, fmt.Errorf("node pool %s stayed %s: %w", ref, np.GetStatus(), err)
		}
		poll = min(poll*3/2, g.MaxPoll)
	}
}

// Create creates the pool and waits until it runs. The create request
// carries a creation id of its own (spec.PoolCreationLabel), which the
// ledger records as the pool's identity. A pool of that name that exists is
// this resource instance's only when the ledger recorded it (a create of
// this call's that GKE took before an error, e.g. a retried request); any
// other, whoever made it, fails with a *NotOwnedError before any write. A
// pool of this call's left in ERROR is deleted and created again. A create
// that GKE accepts but cannot finish (stockout) deletes the half-created
// pool again and returns a *CreateFailedError; when that delete fails too,
// the result is Partial, so the caller records the pool and the next apply
// replaces it.
func (g *GPUPools) Create(ctx context.Context, ref GPUPoolRef, desired spec.GPUPool) (Result[ObservedGPUPool], error) {
	return g.create(ctx, ref, desired)
}

func (g *GPUPools) create(ctx context.Context, ref GPUPoolRef, desired spec.GPUPool) (Result[ObservedGPUPool], error) {
	l := ledgerOf(ctx)
	np, found, err := g.settle(ctx, ref)
	if err != nil {
		return Result[ObservedGPUPool]{}, err
	}
	if found {
		return g.adopt(ctx, ref, desired, np)
	}
	body := BuildNodePool(desired)
	body.Config.ResourceLabels[spec.PoolCreationLabel] = newPoolCreation(g.Now())
	l.record(poolKey(ref), poolIdentity(body).String())
	err = g.mutate(ctx, ref, "create", func(ctx context.Context) (*containerpb.Operation, error) {
		return g.api.CreateNodePool(ctx, ref.ClusterName(), body)
	})
	if status.Code(err) == codes.AlreadyExists {
		// Created since it was read: by someone else, or by this very
		// request, retried after GKE had taken it (then it carries this
		// request's creation id).
		np, found, serr := g.settle(ctx, ref)
		switch {
		case serr != nil:
			return Result[ObservedGPUPool]{}, serr
		case found:
			return g.adopt(ctx, ref, desired, np)
		}
	}
	var opErr *gke.OperationError
	if errors.As(err, &opErr) {
		failed := &CreateFailedError{Pool: desired, Cause: opErr}
		if failed.Pool.MachineType == "" {
			failed.Pool.MachineType = body.GetConfig().GetMachineType()
		}
		// Use a fresh budget for the cleanup: the create's may be spent.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Minute)
		defer cancel()
		failed.CleanupErr = g.delete(cctx, ref)
		failed.Cleaned = failed.CleanupErr == nil
		res := Result[ObservedGPUPool]{}
		if np, found, _ := g.get(cctx, ref); !failed.Cleaned && found {
			res.Observed, res.Partial = Observed(ref, np, desired), true
		}
		return res, failed
	}
	if err != nil {
		// GKE may have taken the request before the error (the wait for
		// its operation was cut off: Ctrl-C, a timeout): a pool of this
		// create's is recorded, so the next apply completes or replaces it.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		res := Result[ObservedGPUPool]{}
		if np, found, _ := g.get(rctx, ref); found && poolIdentity(np).Creation == body.GetConfig().GetResourceLabels()[spec.PoolCreationLabel] {
			l.record(poolKey(ref), poolIdentity(np).String())
			res.Observed, res.Partial = Observed(ref, np, desired), true
		}
		return res, err
	}
	got, err := g.observeAfter(ctx, ref, desired)
	return Result[ObservedGPUPool]{Observed: got}, err
}

// adopt completes the create of a pool that already exists, if this
// resource instance recorded it (it is this create's own).
func (g *GPUPools) adopt(ctx context.Context, ref GPUPoolRef, desired spec.GPUPool, np *containerpb.NodePool) (Result[ObservedGPUPool], error) {
	if st, _ := ledgerOf(ctx).standing(poolKey(ref), func(r string) bool { return samePool(parsePoolID(r), poolIdentity(np)) }); st != Recorded {
		return Result[ObservedGPUPool]{}, &NotOwnedError{Kind: "node pool", Name: ref.String(), Marked: PoolCreated(np), Created: poolCreated(np)}
	}
	if np.GetStatus() != containerpb.NodePool_ERROR {
		got, err := g.update(ctx, ref, desired)
		return Result[ObservedGPUPool]{Observed: got}, err
	}
	g.Logf(ctx, "deleting node pool left in ERROR by an earlier create", map[string]any{"node_pool": ref.Name, "status_message": np.GetStatusMessage()})
	if err := g.delete(ctx, ref); err != nil {
		return Result[ObservedGPUPool]{}, err
	}
	return g.create(ctx, ref, desired)
}

func (g *GPUPools) observeAfter(ctx context.Context, ref GPUPoolRef, desired spec.GPUPool) (ObservedGPUPool, error) {
	np, found, err := g.settle(ctx, ref)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	if !found {
		return ObservedGPUPool{}, fmt.Errorf("node pool %s disappeared right after it was changed: %w", ref, status.Error(codes.NotFound, ref.String()))
	}
	ledgerOf(ctx).record(poolKey(ref), poolIdentity(np).String()) // the pool it just wrote: now with its instance groups
	return Observed(ref, np, desired), nil
}

// Update makes an existing pool match desired, one request per field group.
// It diffs against what GKE holds, so prior is not needed. A pool that no
// longer exists is a *GoneError (ErrGone).
func (g *GPUPools) Update(ctx context.Context, ref GPUPoolRef, _, desired spec.GPUPool) (Result[ObservedGPUPool], error) {
	got, err := g.update(ctx, ref, desired)
	return Result[ObservedGPUPool]{Observed: got}, err
}

func (g *GPUPools) update(ctx context.Context, ref GPUPoolRef, desired spec.GPUPool) (ObservedGPUPool, error) {
	np, found, err := g.settle(ctx, ref)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	if !found {
		return ObservedGPUPool{}, &GoneError{Pool: ref, Err: status.Error(codes.NotFound, ref.String())}
	}
	if mine, _, rec := ledgerOf(ctx).claimPool(ref, np, true, false); !mine {
		return ObservedGPUPool{}, &NotOwnedError{Kind: "node pool", Name: ref.String(), Marked: PoolCreated(np), Created: poolCreated(np),
			Replaced: rec, Found: poolIdentity(np).String()}
	}
	actions, err := Diff(desired, np)
	if err != nil {
		return ObservedGPUPool{}, err
	}
	for _, a := range actions {
		g.Logf(ctx, "updating node pool", map[string]any{"node_pool": ref.Name, "field": a.Field})
		err := g.mutate(ctx, ref, "update "+a.Field+" of", func(ctx context.Context) (*containerpb.Operation, error) {
			if a.Autoscaling != nil {
				return g.api.SetNodePoolAutoscaling(ctx, ref.NodePoolName(), a.Autoscaling)
			}
			return g.api.UpdateNodePool(ctx, a.Update)
		})
		if err != nil {
			return ObservedGPUPool{}, err
		}
	}
	return g.observeAfter(ctx, ref, desired)
}

// WaitReady returns nil: Create and Update wait for their operations and
// for the pool to settle.
func (g *GPUPools) WaitReady(context.Context, GPUPoolRef, spec.GPUPool) error { return nil }

// Delete deletes the pool and waits until it is gone. A pool already gone
// is not an error; one that is not the one this resource instance recorded
// (deleted and created again by someone) is left, and the ledger notes it.
// last is not needed.
func (g *GPUPools) Delete(ctx context.Context, ref GPUPoolRef, _ spec.GPUPool) error {
	np, found, err := g.get(ctx, ref)
	if err != nil || !found {
		return err
	}
	if mine, _, _ := ledgerOf(ctx).claimPool(ref, np, true, true); !mine {
		return nil
	}
	if err := g.delete(ctx, ref); err != nil {
		return err
	}
	ledgerOf(ctx).forget(poolKey(ref))
	return nil
}

func (g *GPUPools) delete(ctx context.Context, ref GPUPoolRef) error {
	err := g.mutate(ctx, ref, "delete", func(ctx context.Context) (*containerpb.Operation, error) {
		op, err := g.api.DeleteNodePool(ctx, ref.NodePoolName())
		if notFound(err) {
			return nil, nil
		}
		return op, err
	})
	if err != nil {
		return err
	}
	_, found, err := g.settle(ctx, ref)
	if err == nil && found {
		err = fmt.Errorf("node pool %s still exists after its delete operation finished", ref)
	}
	return err
}
