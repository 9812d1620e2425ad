package fakegcp_test

import (
	"context"
	"encoding/json"
	"fmt"

	"slices"
	"strings"
	"testing"

	containerpb "cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// gkeRecordedIgnored is the one list of what the comparison with recorded GKE
// traffic does not hold the fake to, with the reason for each. Paths are
// lowerCamelCase JSON paths; "[]" steps into every element of a list.
// keep: the field must be present on both sides (or absent on both) but its
// value may differ. only: the exchanges the entry applies to (all if empty).
var gkeRecordedIgnored = []struct {
	path   string
	keep   bool
	only   []string
	reason string
}{
	// Must differ: identifiers, times, links and versions.
	{path: "name", keep: true, only: gkeOpExchanges, reason: "operation ids are generated"},
	{path: "selfLink", keep: true, reason: "recorded links carry the project number and zones/ form"},
	{path: "targetLink", keep: true, reason: "recorded links carry the project number and zones/ form"},
	{path: "startTime", keep: true, reason: "time"},
	{path: "endTime", keep: true, reason: "time"},
	{path: "etag", keep: true, reason: "opaque, generated"},
	{path: "version", keep: true, reason: "the GKE version the fake serves is not the recorded one"},
	{path: "instanceGroupUrls", keep: true, reason: "instance group names carry generated hashes"},
	{path: "networkConfig.podRange", keep: true, reason: "range name carries a generated hash"},
	{path: "networkConfig.podIpv4CidrBlock", keep: true, reason: "address allocated by GKE (recorded 10.92/14 and 10.112/14 in one cluster)"},
	{path: "config.kubeletConfig.maxParallelImagePulls", keep: true, reason: "chosen by GKE: recorded 2 and 3 for the same e2-medium shape"},
	// Recorded, not modelled by the fake (it has no use for them).
	{path: "networkConfig.podIpv4RangeUtilization", reason: "measured usage of the pod range"},
	{path: "config.nodeImageConfig", reason: "the node image build GKE picked for the version"},
	{path: "kubeletCertInfo", reason: "kubelet TPM bootstrap certificate expiry"},
	{path: "progress", reason: "GKE-internal step counters of an operation"},
	// Known differences, not fixed (see the report in the commit history).
	{path: "location", only: gkeOpExchanges, reason: "UNFIXED: the fake sets Operation.location; GKE's responses " +
		"carry only zone. Tests use op.location to build the operation name (helpers_test.go opFullName)"},
	{path: "locationPolicy", only: []string{"root/get-created"}, reason: "the stored recRoot " +
		"version (and containernodepool-removetaint) carry no autoscaling locationPolicy; recTaint and recRootNew (the " +
		"same test, newer) read back BALANCED for the same request, which the fake serves (path relative to autoscaling). " +
		"After SetNodePoolAutoscaling (root/get-updated) the fake has none, as recorded"},
	{path: "operationType", only: []string{"subnet/resize", "subnet/get-operation"}, reason: "UNFIXED: recSubnet " +
		"(containernodepool-subnetworkref, v1beta1) records no operationType on the :setSize operation nor on its " +
		"DONE GetOperation; the fake reports SET_NODE_POOL_SIZE. No other recording has a successful :setSize"},
	{path: "operationType", only: []string{"amf/update-taints", "amf/get-operation-taints"}, reason: "UNFIXED: " +
		"recAMF (containernodepool-advanced-machine-features, v1beta1) records no operationType on the taints " +
		"update nor its DONE GetOperation (as containernodepool-removetaint); the fake reports UPGRADE_NODES, as " +
		"recTaint and recRootNew record it"},
	{path: "autoscaling.locationPolicy", only: []string{"amf/get-created"}, reason: "recAMF (v1beta1, as the " +
		"stored recRoot) reads back no locationPolicy after create; recTaint and recRootNew read back BALANCED for " +
		"an autoscaled pool, which the fake serves (see locationPolicy above). After SetNodePoolAutoscaling the " +
		"fake has none, as recorded"},
	{path: "initialNodeCount", only: []string{"kubelet/get-created", "kubelet/get-updated"}, reason: "UNFIXED: " +
		"recKubelet created the pool with initialNodeCount 1 and GET left it out, while recRoot and the default " +
		"pools report it; the recordings disagree, the fake echoes what was sent"},
}

var gkeOpExchanges = []string{
	"kubelet/create-cluster", "kubelet/get-operation", "kubelet/create", "kubelet/update", "kubelet/delete",
	"queued/create", "queued/delete", "root/create", "root/set-autoscaling", "root/get-operation", "root/delete",
	"taint/create", "taint/update", "taint/get-operation", "taint/delete",
	"subnet/resize", "subnet/get-operation", "subnet/delete",
	"amf/set-autoscaling", "amf/get-operation-autoscaling", "amf/update-taints", "amf/get-operation-taints", "amf/delete",
}

// gkeHTTPStatus is how the REST front end of GKE renders a gRPC code.
var gkeHTTPStatus = map[codes.Code]struct {
	code int
	name string
}{
	codes.InvalidArgument:    {400, "INVALID_ARGUMENT"},
	codes.FailedPrecondition: {400, "FAILED_PRECONDITION"},
	codes.NotFound:           {404, "NOT_FOUND"},
	codes.AlreadyExists:      {409, "ALREADY_EXISTS"},
}

// gkeRecorder runs exchanges against the fake and compares them with the
// recorded responses.
type gkeRecorder struct {
	t   *testing.T
	e   *env
	ctx context.Context
	n   int
}

func newGKERecorder(t *testing.T) *gkeRecorder {
	e := start(t)
	return &gkeRecorder{t: t, e: e, ctx: context.Background()}
}

// req parses a recorded request body into msg.
func (r *gkeRecorder) req(body string, msg proto.Message) proto.Message {
	r.t.Helper()
	if err := protojson.Unmarshal([]byte(body), msg); err != nil {
		r.t.Fatalf("recorded request %T: %v", msg, err)
	}
	return msg
}

// check compares the fake's answer (resp, err) to the recorded JSON want
// (a message, or {code, message, status} for an error). sub, if set, picks
// the part of the response that is compared.
func (r *gkeRecorder) check(exchange, recording string, resp proto.Message, err error, want string, sub ...string) {
	r.t.Helper()
	r.n++
	var got any
	if err != nil {
		st := status.Convert(err)
		h, ok := gkeHTTPStatus[st.Code()]
		if !ok {
			r.t.Errorf("%s: unexpected error %v", exchange, err)
			return
		}
		got = map[string]any{"code": float64(h.code), "status": h.name, "message": st.Message()}
	} else {
		b, merr := protojson.Marshal(resp)
		if merr != nil {
			r.t.Fatal(merr)
		}
		got = gkeDecodeJSON(r.t, string(b))
		for _, k := range sub {
			got = got.(map[string]any)[k]
		}
	}
	wantV := gkeDecodeJSON(r.t, want)
	for _, ig := range gkeRecordedIgnored {
		if len(ig.only) > 0 && !slices.Contains(ig.only, exchange) {
			continue
		}
		path := strings.Split(ig.path, ".")
		if len(sub) > 0 && len(ig.only) == 0 {
			continue // a sub-tree comparison names what it compares (paths relative to it)
		}
		// An entry named for this exchange must hide a difference here: once
		// the fake and the recording agree on the path, the entry would only
		// hide a later regression.
		if len(ig.only) > 0 && cmp.Equal(gkeAt(wantV, path), gkeAt(got, path)) {
			r.t.Errorf("%s: gkeRecordedIgnored %q hides no difference here (fake and recording agree on it): "+
				"take %q out of its only list", exchange, ig.path, exchange)
		}
		gkeNormalize(got, path, ig.keep)
		gkeNormalize(wantV, path, ig.keep)
		// The same paths inside the pools of a ListNodePools response.
		gkeNormalize(got, append([]string{"nodePools", "[]"}, path...), ig.keep)
		gkeNormalize(wantV, append([]string{"nodePools", "[]"}, path...), ig.keep)
	}
	if m, ok := wantV.(map[string]any); ok && len(m) == 0 {
		r.t.Errorf("%s: nothing of the recorded response is left to compare once gkeRecordedIgnored is applied", exchange)
	}
	if diff := cmp.Diff(wantV, got); diff != "" {
		r.t.Errorf("%s (recorded in %s%s): fake differs from GKE (-recorded +fake):\n%s", exchange, recPrefix, recording, diff)
	}
}

func gkeDecodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("fixture JSON: %v\n%s", err, s)
	}
	return v
}

// gkeAt collects the values at path, in v and in the pools of a
// ListNodePools response ("[]" steps into every element); a missing value
// is collected as nil, so presence counts.
func gkeAt(v any, path []string) []any {
	var out []any
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		if len(path) == 0 {
			out = append(out, v)
			return
		}
		switch x := v.(type) {
		case []any:
			if path[0] == "[]" {
				for _, el := range x {
					walk(el, path[1:])
				}
			}
		case map[string]any:
			walk(x[path[0]], path[1:])
		default:
			out = append(out, nil)
		}
	}
	walk(v, path)
	walk(v, append([]string{"nodePools", "[]"}, path...))
	return out
}

// normalize removes the value at path (or, with keep, replaces it by a
// marker so only its presence is compared).
func gkeNormalize(v any, path []string, keep bool) {
	switch x := v.(type) {
	case []any:
		if len(path) > 0 && path[0] == "[]" {
			for _, el := range x {
				gkeNormalize(el, path[1:], keep)
			}
		}
	case map[string]any:
		if len(path) == 0 {
			return
		}
		if path[0] == "[]" {
			return
		}
		child, ok := x[path[0]]
		if !ok {
			return
		}
		if len(path) == 1 {
			if keep {
				x[path[0]] = "<ignored>"
			} else {
				delete(x, path[0])
			}
			return
		}
		gkeNormalize(child, path[1:], keep)
	}
}

// done lets op's latency pass and returns the operation, DONE.
func (r *gkeRecorder) done(op *containerpb.Operation) *containerpb.Operation {
	r.t.Helper()
	if op == nil {
		r.t.Fatal("no operation to wait for")
	}
	return r.e.finish(r.t, op)
}

func (r *gkeRecorder) getPool() (*containerpb.NodePool, error) {
	return r.e.cm.GetNodePool(r.ctx, &containerpb.GetNodePoolRequest{Name: recPool})
}

// givenCluster creates the recorded zonal cluster and, with compare, checks
// the CREATE_CLUSTER operation and its GetOperation once DONE.
func (r *gkeRecorder) givenCluster(compare bool) {
	r.t.Helper()
	op, err := r.e.cm.CreateCluster(r.ctx, r.req(reqCreateCluster, &containerpb.CreateClusterRequest{}).(*containerpb.CreateClusterRequest))
	if err != nil {
		r.t.Fatalf("CreateCluster: %v", err)
	}
	doneOp := r.done(op)
	if compare {
		r.check("kubelet/create-cluster", recKubelet, op, nil, respCreateClusterOp)
		got, err := r.e.cm.GetOperation(r.ctx, &containerpb.GetOperationRequest{Name: opFullName(doneOp)})
		r.check("kubelet/get-operation", recKubelet, got, err, respClusterOpDone)
	}
}

// TestRecordedKubeletConfigPool replays recKubelet: cluster, GetOperation,
// NotFound, create, get, one UpdateNodePool field group, get, delete,
// NotFound.
func TestRecordedKubeletConfigPool(t *testing.T) {
	t.Parallel()
	r := newGKERecorder(t)
	r.givenCluster(true)

	np, err := r.getPool()
	r.check("kubelet/get-missing", recQueued, np, err, respPoolNotFound)

	op, err := r.e.cm.CreateNodePool(r.ctx, r.req(reqCreateKubeletPool, &containerpb.CreateNodePoolRequest{}).(*containerpb.CreateNodePoolRequest))
	r.check("kubelet/create", recKubelet, op, err, respCreatePoolOp)
	r.done(op)
	np, err = r.getPool()
	r.check("kubelet/get-created", recKubelet, np, err, respKubeletPool)

	op, err = r.e.cm.UpdateNodePool(r.ctx, r.req(reqUpdateKubelet, &containerpb.UpdateNodePoolRequest{}).(*containerpb.UpdateNodePoolRequest))
	r.check("kubelet/update", recKubelet, op, err, respUpdateKubeletOp)
	r.done(op)
	np, err = r.getPool()
	r.check("kubelet/get-updated", recKubelet, np, err, respKubeletPoolUpdated)

	op, err = r.e.cm.DeleteNodePool(r.ctx, &containerpb.DeleteNodePoolRequest{Name: recPool})
	r.check("kubelet/delete", recKubelet, op, err, respDeletePoolOp)
	r.done(op)
	np, err = r.getPool()
	r.check("kubelet/get-deleted", recQueued, np, err, respPoolNotFound)
	t.Logf("%d exchanges compared", r.n)
}

// TestRecordedQueuedProvisioningPool replays recQueued: list, NotFound,
// create a queued-provisioning pool (no flex_start), get, a refused resize,
// delete.
func TestRecordedQueuedProvisioningPool(t *testing.T) {
	t.Parallel()
	r := newGKERecorder(t)
	r.givenCluster(false)

	list, err := r.e.cm.ListNodePools(r.ctx, &containerpb.ListNodePoolsRequest{Parent: recCluster})
	r.check("queued/list", recKubelet, list, err, `{"nodePools": [`+respDefaultPool+`]}`)

	np, err := r.getPool()
	r.check("queued/get-missing", recQueued, np, err, respPoolNotFound)

	op, err := r.e.cm.CreateNodePool(r.ctx, r.req(reqCreateQueuedPool, &containerpb.CreateNodePoolRequest{}).(*containerpb.CreateNodePoolRequest))
	r.check("queued/create", recQueued, op, err, respCreatePoolOp)
	r.done(op)
	np, err = r.getPool()
	r.check("queued/get-created", recQueued, np, err, respQueuedPool)

	op, err = r.e.cm.SetNodePoolSize(r.ctx, r.req(reqResizeQueued, &containerpb.SetNodePoolSizeRequest{}).(*containerpb.SetNodePoolSizeRequest))
	r.check("queued/resize", recQueued, op, err, respResizeQueued)

	op, err = r.e.cm.DeleteNodePool(r.ctx, &containerpb.DeleteNodePoolRequest{Name: recPool})
	r.check("queued/delete", recQueued, op, err, respDeletePoolOp)
	t.Logf("%d exchanges compared", r.n)
}

// TestRecordedAutoscalingPool replays recRoot: create an autoscaled pool,
// change its autoscaling, delete it.
func TestRecordedAutoscalingPool(t *testing.T) {
	t.Parallel()
	r := newGKERecorder(t)
	r.givenCluster(false)

	op, err := r.e.cm.CreateNodePool(r.ctx, r.req(reqCreateAutoscaledPool, &containerpb.CreateNodePoolRequest{}).(*containerpb.CreateNodePoolRequest))
	r.check("root/create", recRoot, op, err, respCreatePoolOp)
	r.done(op)
	np, err := r.getPool()
	r.check("root/get-created", recRoot, np, err, respRootAutoscalingCreated, "autoscaling")

	op, err = r.e.cm.SetNodePoolAutoscaling(r.ctx, r.req(reqSetAutoscaling, &containerpb.SetNodePoolAutoscalingRequest{}).(*containerpb.SetNodePoolAutoscalingRequest))
	r.check("root/set-autoscaling", recRoot, op, err, respSetAutoscalingOp)
	doneOp := r.done(op)
	got, err := r.e.cm.GetOperation(r.ctx, &containerpb.GetOperationRequest{Name: opFullName(doneOp)})
	r.check("root/get-operation", recRootNew, got, err, respSetAutoscalingOpDone)
	np, err = r.getPool()
	r.check("root/get-updated", recRoot, np, err, respRootAutoscalingUpdated, "autoscaling")

	op, err = r.e.cm.DeleteNodePool(r.ctx, &containerpb.DeleteNodePoolRequest{Name: recPool})
	r.check("root/delete", recRoot, op, err, respDeletePoolOp)
	t.Logf("%d exchanges compared", r.n)
}

// TestRecordedTaintUpdatePool replays recTaint: NotFound, create a pool
// with two taints, get, replace them by one with the taints field group,
// get, delete; the update's DONE operation as recRootNew recorded it.
func TestRecordedTaintUpdatePool(t *testing.T) {
	t.Parallel()
	r := newGKERecorder(t)
	r.givenCluster(false)

	np, err := r.getPool()
	r.check("taint/get-missing", recTaint, np, err, respPoolNotFound)

	op, err := r.e.cm.CreateNodePool(r.ctx, r.req(reqCreateTaintedPool, &containerpb.CreateNodePoolRequest{}).(*containerpb.CreateNodePoolRequest))
	r.check("taint/create", recTaint, op, err, respCreatePoolOp)
	r.done(op)
	np, err = r.getPool()
	r.check("taint/get-created", recTaint, np, err, fmt.Sprintf(respTaintPool, recTaintA+", "+recTaintB))

	op, err = r.e.cm.UpdateNodePool(r.ctx, r.req(reqUpdateTaints, &containerpb.UpdateNodePoolRequest{}).(*containerpb.UpdateNodePoolRequest))
	r.check("taint/update", recTaint, op, err, respUpdateTaintsOp)
	doneOp := r.done(op)
	got, err := r.e.cm.GetOperation(r.ctx, &containerpb.GetOperationRequest{Name: opFullName(doneOp)})
	r.check("taint/get-operation", recRootNew, got, err, respUpdateTaintsOpDone)
	np, err = r.getPool()
	r.check("taint/get-updated", recTaint, np, err, fmt.Sprintf(respTaintPool, recTaintA))

	op, err = r.e.cm.DeleteNodePool(r.ctx, &containerpb.DeleteNodePoolRequest{Name: recPool})
	r.check("taint/delete", recTaint, op, err, respDeletePoolOp)
	t.Logf("%d exchanges compared", r.n)
}

// TestRecordedResizePool replays recSubnet: create a one-node pool, resize
// it to two with :setSize, GetOperation once DONE, get, delete.
func TestRecordedResizePool(t *testing.T) {
	t.Parallel()
	r := newGKERecorder(t)
	r.givenCluster(false)

	op, err := r.e.cm.CreateNodePool(r.ctx, r.req(reqCreateSubnetPool, &containerpb.CreateNodePoolRequest{}).(*containerpb.CreateNodePoolRequest))
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	r.done(op)
	np, err := r.getPool()
	r.check("subnet/get-created", recSubnet, sizeView(np), err, respSubnetPoolCreated)

	op, err = r.e.cm.SetNodePoolSize(r.ctx, r.req(reqResizeSubnet, &containerpb.SetNodePoolSizeRequest{}).(*containerpb.SetNodePoolSizeRequest))
	r.check("subnet/resize", recSubnet, op, err, respResizeSubnetOp)
	doneOp := r.done(op)
	got, err := r.e.cm.GetOperation(r.ctx, &containerpb.GetOperationRequest{Name: opFullName(doneOp)})
	r.check("subnet/get-operation", recSubnet, got, err, respResizeSubnetOpDone)
	np, err = r.getPool()
	r.check("subnet/get-resized", recSubnet, sizeView(np), err, respSubnetPoolResized)

	op, err = r.e.cm.DeleteNodePool(r.ctx, &containerpb.DeleteNodePoolRequest{Name: recPool})
	r.check("subnet/delete", recKubelet, op, err, respDeletePoolOp) // recSubnet's DELETE not read; recKubelet's shape
	t.Logf("%d exchanges compared", r.n)
}

// TestRecordedAdvancedMachinePool replays recAMF: create an autoscaled
// n4-standard-2 pool with one taint, raise its autoscaling maximum, replace
// the taint, get, delete.
func TestRecordedAdvancedMachinePool(t *testing.T) {
	t.Parallel()
	r := newGKERecorder(t)
	r.givenCluster(false)

	op, err := r.e.cm.CreateNodePool(r.ctx, r.req(reqCreateAMFPool, &containerpb.CreateNodePoolRequest{}).(*containerpb.CreateNodePoolRequest))
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	r.done(op)
	np, err := r.getPool()
	r.check("amf/get-created", recAMF, amfView(np), err, fmt.Sprintf(respAMFPool, 3, recAMFTaintOld))

	op, err = r.e.cm.SetNodePoolAutoscaling(r.ctx, r.req(reqSetAutoscalingAMF, &containerpb.SetNodePoolAutoscalingRequest{}).(*containerpb.SetNodePoolAutoscalingRequest))
	r.check("amf/set-autoscaling", recAMF, op, err, respSetAutoscalingOp)
	doneOp := r.done(op)
	got, err := r.e.cm.GetOperation(r.ctx, &containerpb.GetOperationRequest{Name: opFullName(doneOp)})
	r.check("amf/get-operation-autoscaling", recAMF, got, err, respSetAutoscalingOpDoneAMF)

	op, err = r.e.cm.UpdateNodePool(r.ctx, r.req(reqUpdateAMFTaints, &containerpb.UpdateNodePoolRequest{}).(*containerpb.UpdateNodePoolRequest))
	r.check("amf/update-taints", recAMF, op, err, respUpdateAMFTaintsOp)
	doneOp = r.done(op)
	got, err = r.e.cm.GetOperation(r.ctx, &containerpb.GetOperationRequest{Name: opFullName(doneOp)})
	r.check("amf/get-operation-taints", recAMF, got, err, respUpdateAMFTaintsOpDone)
	np, err = r.getPool()
	r.check("amf/get-updated", recAMF, amfView(np), err, fmt.Sprintf(respAMFPool, 5, recAMFTaintNew))

	op, err = r.e.cm.DeleteNodePool(r.ctx, &containerpb.DeleteNodePoolRequest{Name: recPool})
	r.check("amf/delete", recAMF, op, err, respDeletePoolOp)
	t.Logf("%d exchanges compared", r.n)
}

// sizeView is the part of a pool recSubnet is compared on.
func sizeView(np *containerpb.NodePool) *containerpb.NodePool {
	return &containerpb.NodePool{InitialNodeCount: np.GetInitialNodeCount()}
}

// amfView is the part of a pool recAMF is compared on: the fields its
// exchanges set or GKE defaults from them (the rest is recKubelet's shape).
func amfView(np *containerpb.NodePool) *containerpb.NodePool {
	c := np.GetConfig()
	return &containerpb.NodePool{
		InitialNodeCount: np.GetInitialNodeCount(),
		Autoscaling:      np.GetAutoscaling(),
		Config: &containerpb.NodeConfig{
			MachineType: c.GetMachineType(), DiskType: c.GetDiskType(), DiskSizeGb: c.GetDiskSizeGb(),
			BootDisk: c.GetBootDisk(), Taints: c.GetTaints(),
		},
	}
}
