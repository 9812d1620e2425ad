package reconcile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Identity. The platform's marker says "mlplatform made this"; it does not
// say "this resource instance made this": two configurations (or two
// resources of one) that declare the same object would both take it for
// their own, and destroying either would delete it. So each resource
// instance keeps a Ledger of the server's identity of every object it
// created or took over (an import):
//   - Kubernetes objects: metadata.uid;
//   - Google service accounts: uniqueId;
//   - GKE node pools: the creation id the platform writes as the resource
//     label spec.PoolCreationLabel in the create request itself, and the
//     pool's instance groups (poolIdentity).
//
// The rules, for every kind:
//   - Create writes only what does not exist. An object of that name that
//     exists is refused (a *NotOwnedError, nothing written) unless this very
//     Create recorded it (a step of its own that it retried); whether the
//     object carries the marker only changes what the error says.
//   - Observe reads an object whose identity is not the recorded one as
//     absent: the object this instance managed was deleted, and someone made
//     another in its place (Ledger.Foreign says which).
//   - Update never writes over such an object: it fails with a
//     *NotOwnedError.
//   - Delete leaves it, and deletes the recorded one only (a UID
//     precondition where the API has one).
//   - Where nothing is recorded (state written by a release before
//     identities, or a resource just imported), Observe, Update and Delete
//     take the object there as the instance's and record it: that is the
//     object the instance has been managing, or the one the import named.

// Ledger holds the identities one resource instance recorded, keyed by
// object (kind and name), and what the reconcilers found at those names that
// was not the recorded object. It is safe for concurrent use. Callers put it
// in the context of each operation (WithLedger) and save IDs afterwards; an
// operation without one behaves as with an empty ledger whose records are
// then dropped.
type Ledger struct {
	mu      sync.Mutex
	ids     map[string]string
	foreign []Foreign
	missing []string
}

// NewLedger starts a ledger from the identities a resource instance saved.
func NewLedger(ids map[string]string) *Ledger {
	return &Ledger{ids: maps.Clone(ids)}
}

// IDs returns the identities recorded, to be saved with the instance.
func (l *Ledger) IDs() map[string]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.ids)
}

// Foreign is what the reconcilers found, at a name the instance manages,
// that is not the object it recorded.
func (l *Ledger) Foreign() []Foreign {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.foreign)
}

// Missing names the objects of a resource of several that a read found
// missing while the others are there (e.g. "AdmissionCheck dws"): the
// resource is still there, and the next update writes them again.
func (l *Ledger) Missing() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.missing)
}

func (l *Ledger) noteMissing(kind string, ref Ref) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.missing = append(l.missing, kind+" "+ref.String())
}

// Foreign is an object at a name a resource instance manages that is not the
// object the instance recorded: the recorded one was deleted, and another
// was made under the same name (by hand, or by another configuration).
type Foreign struct {
	Kind, Name string
	// Recorded is the identity the instance recorded, Found the one of the
	// object there now.
	Recorded, Found string
	// Created is when the object there now was created; zero when the server
	// does not say.
	Created time.Time
	// Marked: the object there now carries the platform's marker (another
	// mlplatform resource created it).
	Marked bool
	// Left: a delete found it and left it (otherwise a read found it and
	// read it as absent).
	Left bool
}

type ledgerKey struct{}

// WithLedger returns ctx carrying l, for the operations run in it.
func WithLedger(ctx context.Context, l *Ledger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, l)
}

// ledgerOf is the ledger ctx carries, or an empty one of its own.
func ledgerOf(ctx context.Context) *Ledger {
	if l, ok := ctx.Value(ledgerKey{}).(*Ledger); ok && l != nil {
		return l
	}
	return NewLedger(nil)
}

// Standing is what an object found at a name is to a resource instance.
type Standing int

const (
	// Unrecorded: the instance recorded no identity at that name.
	Unrecorded Standing = iota
	// Recorded: the object is the one the instance recorded.
	Recorded
	// Replaced: the object is not the one the instance recorded.
	Replaced
)

// standing compares the identity found at key with the one recorded; same
// says whether a recorded identity denotes the object found (for most kinds
// equality).
func (l *Ledger) standing(key string, same func(recorded string) bool) (Standing, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rec, ok := l.ids[key]
	switch {
	case !ok || rec == "":
		return Unrecorded, ""
	case same(rec):
		return Recorded, rec
	}
	return Replaced, rec
}

func (l *Ledger) record(key, id string) {
	if id == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ids == nil {
		l.ids = map[string]string{}
	}
	l.ids[key] = id
}

func (l *Ledger) forget(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.ids, key)
}

// recordedAny reports whether the instance recorded any identity with one of
// the keys: a resource of several objects recorded nothing only when its
// state is older than identities (or it was just imported).
func (l *Ledger) recordedAny(keys ...string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range keys {
		if l.ids[k] != "" {
			return true
		}
	}
	return false
}

func (l *Ledger) note(f Foreign) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, g := range l.foreign {
		if g == f {
			return
		}
	}
	l.foreign = append(l.foreign, f)
}

// Kubernetes objects are keyed by kind and namespace/name, and known by UID.

func kubeKey(kind string, ref Ref) string { return kind + " " + ref.String() }

// kubeStanding is what obj, read at ref, is to the instance.
func (l *Ledger) kubeStanding(kind string, ref Ref, obj metav1.Object) (Standing, string) {
	uid := string(obj.GetUID())
	return l.standing(kubeKey(kind, ref), func(rec string) bool { return rec == uid })
}

// recordKube records obj as the instance's object at ref.
func (l *Ledger) recordKube(kind string, ref Ref, obj metav1.Object) {
	l.record(kubeKey(kind, ref), string(obj.GetUID()))
}

// kubeForeign describes obj, found at ref where rec was recorded.
func kubeForeign(kind string, ref Ref, rec string, obj metav1.Object, left bool) Foreign {
	return Foreign{Kind: kind, Name: ref.String(), Recorded: rec, Found: string(obj.GetUID()),
		Created: obj.GetCreationTimestamp().Time, Marked: Created(obj), Left: left}
}

// claimKube decides what a read (Observe, Update, Delete) makes of obj at
// ref: mine when it is the recorded object, or when nothing is recorded
// there and unrecordedIsMine (it is then recorded); otherwise it is noted as
// foreign when it replaced the recorded one (left says whether a delete
// found it).
func (l *Ledger) claimKube(kind string, ref Ref, obj metav1.Object, unrecordedIsMine, left bool) (mine bool, st Standing, rec string) {
	st, rec = l.kubeStanding(kind, ref, obj)
	switch st {
	case Recorded:
		return true, st, rec
	case Unrecorded:
		if unrecordedIsMine {
			l.recordKube(kind, ref, obj)
		}
		return unrecordedIsMine, st, rec
	}
	l.note(kubeForeign(kind, ref, rec, obj, left))
	return false, st, rec
}

// GKE node pools are keyed by resource name, and known by poolID.

// poolID is a node pool's identity: the creation id the platform wrote in
// the request that created it (spec.PoolCreationLabel), and its managed
// instance groups (ZONE/NAME), whose names GKE makes unique to one creation
// (gke-CLUSTER-POOL-<random>-grp). The label decides when both sides have
// it; the instance groups decide otherwise (a pool made before the label
// existed, or whose labels were replaced by hand): the same pool shares at
// least one of them, since resizes, surge upgrades and zone changes keep the
// groups of the zones they keep. (A blue-green upgrade replaces every group:
// it is told apart by the label.)
type poolID struct {
	Creation string
	Groups   []string
}

func poolIdentity(np *containerpb.NodePool) poolID {
	id := poolID{Creation: np.GetConfig().GetResourceLabels()[spec.PoolCreationLabel]}
	for _, u := range np.GetInstanceGroupUrls() {
		parts := strings.Split(u, "/")
		if len(parts) >= 3 {
			id.Groups = append(id.Groups, parts[len(parts)-3]+"/"+parts[len(parts)-1])
		}
	}
	slices.Sort(id.Groups)
	return id
}

// String is the identity as recorded: "" when the pool has neither (it is
// then not recorded yet).
func (p poolID) String() string {
	if p.Creation == "" && len(p.Groups) == 0 {
		return ""
	}
	return "creation=" + p.Creation + " groups=" + strings.Join(p.Groups, ",")
}

func parsePoolID(s string) poolID {
	var p poolID
	for _, f := range strings.Fields(s) {
		switch k, v, _ := strings.Cut(f, "="); k {
		case "creation":
			p.Creation = v
		case "groups":
			if v != "" {
				p.Groups = strings.Split(v, ",")
			}
		}
	}
	return p
}

// samePool reports whether the pool whose identity is cur is the one
// recorded as rec.
func samePool(rec, cur poolID) bool {
	if rec.Creation != "" && cur.Creation != "" {
		return rec.Creation == cur.Creation
	}
	return slices.ContainsFunc(rec.Groups, func(g string) bool { return slices.Contains(cur.Groups, g) })
}

func poolKey(ref GPUPoolRef) string { return "node pool " + ref.NodePoolName() }

// poolCreated is when the platform created a pool, from its creation id;
// zero when it has none.
func poolCreated(np *containerpb.NodePool) time.Time {
	id := np.GetConfig().GetResourceLabels()[spec.PoolCreationLabel]
	t, err := time.Parse(poolCreationLayout, strings.ToUpper(strings.SplitN(id, "-", 2)[0]))
	if err != nil {
		return time.Time{}
	}
	return t
}

const poolCreationLayout = "20060102T150405Z"

// newPoolCreation is a fresh creation id, for the request that creates a pool.
func newPoolCreation(now time.Time) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return strings.ToLower(now.UTC().Format(poolCreationLayout)) + "-" + hex.EncodeToString(b)
}

// claimPool is claimKube for a node pool: mine when it is the recorded pool
// (its identity is then recorded again, as the groups move with zone
// changes), or when nothing is recorded and unrecordedIsMine.
func (l *Ledger) claimPool(ref GPUPoolRef, np *containerpb.NodePool, unrecordedIsMine, left bool) (mine bool, st Standing, rec string) {
	cur := poolIdentity(np)
	st, rec = l.standing(poolKey(ref), func(r string) bool { return samePool(parsePoolID(r), cur) })
	switch {
	case st == Replaced:
		l.note(Foreign{Kind: "node pool", Name: ref.String(), Recorded: rec, Found: cur.String(), Created: poolCreated(np),
			Marked: PoolCreated(np), Left: left})
		return false, st, rec
	case st == Unrecorded && !unrecordedIsMine:
		return false, st, rec
	}
	l.record(poolKey(ref), cur.String())
	return true, st, rec
}
