package reconcile

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueac "sigs.k8s.io/kueue/client-go/applyconfiguration/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// checks is an Object over an in-memory AdmissionCheck API (fakeAPI), and
// the objects and calls behind it.
func checks() (AdmissionChecks, map[string]*kueuev1beta2.AdmissionCheck, *[]string) {
	mu, log, objs := &sync.Mutex{}, &[]string{}, map[string]*kueuev1beta2.AdmissionCheck{}
	api := fakeAPI[*kueuev1beta2.AdmissionCheck, *kueueac.AdmissionCheckApplyConfiguration]{
		kind: "AdmissionCheck", mu: mu, log: log, objs: objs, new: func() *kueuev1beta2.AdmissionCheck { return &kueuev1beta2.AdmissionCheck{} }}
	return AdmissionChecks{Kind: "AdmissionCheck", Build: kueue.AdmissionCheck, Read: kueue.AdmissionCheckSpec, DiffSpec: DiffAdmissionCheck,
		Poll: time.Millisecond, API: func(string) ObjectAPI[*kueuev1beta2.AdmissionCheck, *kueueac.AdmissionCheckApplyConfiguration] {
			return api
		}}, objs, log
}

func check(controller string) spec.AdmissionCheck {
	return spec.AdmissionCheck{Name: "dws", ControllerName: controller}
}

// an existing AdmissionCheck dws, with UID uid, marked as the platform's
// when marked.
func existing(objs map[string]*kueuev1beta2.AdmissionCheck, uid string, marked bool) {
	o := &kueuev1beta2.AdmissionCheck{ObjectMeta: metav1.ObjectMeta{Name: "dws", UID: types.UID(uid),
		CreationTimestamp: metav1.NewTime(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))},
		Spec: kueuev1beta2.AdmissionCheckSpec{ControllerName: "theirs"}}
	if marked {
		o.Labels = marker()
	}
	objs["dws"] = o
}

// The ledger rules for one Kubernetes object (identity.go), each operation
// against what is there and what the resource instance recorded.
func TestObjectIdentity(t *testing.T) {
	t.Parallel()
	key := kubeKey("AdmissionCheck", Ref{Name: "dws"})
	type result struct {
		Found     bool
		Err       string // "" or the NotOwnedError's Replaced/Marked in words
		Recorded  string // the ledger's record after the operation
		Foreign   []Foreign
		Remaining string // the UID of the object there after the operation, "" for none
	}
	cases := map[string]struct {
		there  string // UID of the object there, "" for none
		marked bool
		ledger map[string]string
		op     func(ctx context.Context, o AdmissionChecks) (found bool, err error)
		want   result
	}{
		"create: nothing there": {op: create, want: result{Recorded: "uid-new", Remaining: "uid-new"}},
		"create: another mlplatform resource's": {there: "a", marked: true, op: create,
			want: result{Err: "marked", Remaining: "a"}},
		"create: someone else's": {there: "a", op: create, want: result{Err: "not owned", Remaining: "a"}},
		"create: this create's own, recorded": {there: "a", marked: true, ledger: map[string]string{key: "a"}, op: create,
			want: result{Recorded: "a", Remaining: "a"}},
		"read: the recorded one": {there: "a", ledger: map[string]string{key: "a"}, op: observe, want: result{Found: true, Recorded: "a", Remaining: "a"}},
		"read: nothing recorded (an earlier release's state, an import)": {there: "a", op: observe,
			want: result{Found: true, Recorded: "a", Remaining: "a"}},
		"read: made again": {there: "b", marked: true, ledger: map[string]string{key: "a"}, op: observe,
			want: result{Recorded: "a", Remaining: "b", Foreign: []Foreign{{Kind: "AdmissionCheck", Name: "dws", Recorded: "a", Found: "b", Marked: true,
				Created: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}}},
		"update: made again": {there: "b", ledger: map[string]string{key: "a"}, op: update,
			want: result{Err: "replaced", Recorded: "a", Remaining: "b"}},
		"update: gone, created again": {ledger: map[string]string{key: "a"}, op: update, want: result{Recorded: "uid-new", Remaining: "uid-new"}},
		"delete: the recorded one":    {there: "a", ledger: map[string]string{key: "a"}, op: remove, want: result{}},
		"delete: nothing recorded":    {there: "a", marked: true, op: remove, want: result{}},
		"delete: made again": {there: "b", ledger: map[string]string{key: "a"}, op: remove,
			want: result{Recorded: "a", Remaining: "b", Foreign: []Foreign{{Kind: "AdmissionCheck", Name: "dws", Recorded: "a", Found: "b", Left: true,
				Created: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			o, objs, log := checks()
			if tc.there != "" {
				existing(objs, tc.there, tc.marked)
			}
			l := NewLedger(tc.ledger)
			found, err := tc.op(WithLedger(context.Background(), l), o)
			got := result{Found: found, Recorded: l.IDs()[key], Foreign: l.Foreign()}
			var no *NotOwnedError
			switch {
			case err == nil:
			case errors.As(err, &no) && no.Replaced != "":
				got.Err = "replaced"
			case errors.As(err, &no) && no.Marked:
				got.Err = "marked"
			case errors.As(err, &no):
				got.Err = "not owned"
			default:
				t.Fatalf("unexpected error %v", err)
			}
			if obj, ok := objs["dws"]; ok {
				got.Remaining = string(obj.UID)
				if strings.HasPrefix(got.Remaining, "uid-") {
					got.Remaining = "uid-new"
				}
				if got.Remaining != tc.there && got.Remaining != "uid-new" {
					t.Errorf("the object there was replaced")
				}
				if got.Remaining == tc.there && obj.Spec.ControllerName != "theirs" && tc.ledger[key] != tc.there {
					t.Errorf("the object there was written: %+v (calls %v)", obj.Spec, *log)
				}
			}
			if strings.HasPrefix(got.Recorded, "uid-") {
				got.Recorded = "uid-new"
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\ncalls: %v", diff, *log)
			}
		})
	}
}

func create(ctx context.Context, o AdmissionChecks) (bool, error) {
	_, err := o.Create(ctx, Ref{Name: "dws"}, check("mine"))
	return false, err
}

func observe(ctx context.Context, o AdmissionChecks) (bool, error) {
	_, found, err := o.Observe(ctx, Ref{Name: "dws"}, check("mine"))
	return found, err
}

func update(ctx context.Context, o AdmissionChecks) (bool, error) {
	_, err := o.Update(ctx, Ref{Name: "dws"}, check("mine"), check("mine"))
	return false, err
}

func remove(ctx context.Context, o AdmissionChecks) (bool, error) {
	return false, o.Delete(ctx, Ref{Name: "dws"}, check("mine"))
}

func pool(creation string, groups ...string) *containerpb.NodePool {
	np := &containerpb.NodePool{Config: &containerpb.NodeConfig{ResourceLabels: map[string]string{}}}
	if creation != "" {
		np.Config.ResourceLabels[spec.PoolCreationLabel] = creation
	}
	for _, g := range groups {
		zone, name, _ := strings.Cut(g, "/")
		np.InstanceGroupUrls = append(np.InstanceGroupUrls, "https://www.googleapis.com/compute/v1/projects/p/zones/"+zone+"/instanceGroupManagers/"+name)
	}
	return np
}

// A node pool is the recorded one by its creation id where both have one,
// else by a shared instance group.
func TestSamePool(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		rec, cur *containerpb.NodePool
		want     bool
	}{
		"same creation id, groups replaced (blue-green)":  {pool("c1", "a/g1"), pool("c1", "a/g2"), true},
		"another creation id, same groups (impossible)":   {pool("c1", "a/g1"), pool("c2", "a/g1"), false},
		"label removed by hand, a group kept":             {pool("c1", "a/g1", "b/g2"), pool("", "b/g2", "c/g3"), true},
		"made by hand again: no label, new groups":        {pool("c1", "a/g1"), pool("", "a/g9"), false},
		"an earlier release's pool: no label, same group": {pool("", "a/g1"), pool("", "a/g1"), true},
		"an earlier release's pool, made again":           {pool("", "a/g1"), pool("", "a/g2"), false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rec := parsePoolID(poolIdentity(tc.rec).String())
			if diff := cmp.Diff(poolIdentity(tc.rec), rec); diff != "" {
				t.Fatalf("the recorded identity does not read back (-want +got):\n%s", diff)
			}
			if got := samePool(rec, poolIdentity(tc.cur)); got != tc.want {
				t.Errorf("samePool = %v, want %v", got, tc.want)
			}
		})
	}
	if s := poolIdentity(pool("")).String(); s != "" {
		t.Errorf("a pool with neither a creation id nor groups records %q, want nothing", s)
	}
}

// The creation id is a valid Google Cloud label value, and tells when.
func TestPoolCreation(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 20, 33, 51, 0, time.UTC)
	id := newPoolCreation(at)
	if !strings.HasPrefix(id, "20261201t203351z-") || len(id) > 63 || strings.ToLower(id) != id {
		t.Errorf("creation id %q", id)
	}
	if id == newPoolCreation(at) {
		t.Error("two creations in the same second have the same id")
	}
	if got := poolCreated(pool(id)); !got.Equal(at) {
		t.Errorf("poolCreated = %v, want %v", got, at)
	}
	if got := poolCreated(pool("")); !got.IsZero() {
		t.Errorf("poolCreated of a pool without the label = %v, want zero", got)
	}
}
