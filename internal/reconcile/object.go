package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ObjectAPI is what reconciling one Kubernetes kind needs of its typed client
// (a typed client-go or Kueue client satisfies it as is).
type ObjectAPI[O metav1.Object, AC any] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (O, error)
	Create(ctx context.Context, obj O, opts metav1.CreateOptions) (O, error)
	Apply(ctx context.Context, ac AC, opts metav1.ApplyOptions) (O, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (O, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// Labeled is what every typed apply configuration has: a way to add labels
// (the platform's marker, on the objects it creates), and to name the UID of
// the object it is for (a precondition: the write fails on any other).
type Labeled[AC any] interface {
	WithLabels(entries map[string]string) AC
	WithUID(uid types.UID) AC
}

// Object reconciles objects of one kind with server-side apply, owned by
// field manager "mlplatform". S is the platform's spec of the object.
//
// Create never writes over an object it did not create (ownership.go);
// Apply makes an object the platform manages (created or imported) match.
type Object[S any, O metav1.Object, AC Labeled[AC]] struct {
	Kind string                                  // e.g. "WorkloadPriorityClass", for messages
	API  func(namespace string) ObjectAPI[O, AC] // namespace is "" for cluster-scoped kinds
	// List, when set, serves Observe from one LIST of the kind per provider
	// process (kube.Listed); Apply and Delete invalidate it around writes.
	List     *kube.ListCache[O]
	Build    func(S) AC                       // spec → apply configuration
	Read     func(O) S                        // object → spec
	DiffSpec func(desired, actual S) []string // names of fields that differ; empty = in sync
	// Ready, when set, says whether the controller reports the object ready
	// (for WaitReady).
	Ready func(O) Readiness
	// Awaits, when set, says whether a spec expects the object to become
	// ready at all (a queue held by its stop policy does not); default yes.
	Awaits func(S) bool
	// Explain, when set, turns the controller's last reason for a spec into
	// plain words, for the error when WaitReady runs out of time.
	Explain func(S) func(Readiness) string
	// Blockers, when set, lists what still uses the object (e.g. the
	// ClusterQueues naming a flavor). Delete waits up to BlockedGrace for
	// them to go (Terraform may be deleting them at the same time) and
	// otherwise fails without deleting, so the object and the state stay as
	// they were instead of the object hanging in Terminating.
	Blockers     func(ctx context.Context, ref Ref) ([]string, error)
	BlockedGrace time.Duration // default 30s
	// Guard, when set, runs on Delete once the object there is known to be
	// this resource instance's, before anything is deleted: an error refuses
	// the delete (a team namespace that holds data). last is the spec as
	// last applied.
	Guard func(ctx context.Context, ref Ref, last S) error
	// Stuck, when set, says what keeps a deleted object from going away, for
	// the error when Delete runs out of time.
	Stuck func(O) string
	// Poll is how often Delete and WaitReady look again. Default 200ms.
	Poll time.Duration
}

// ClusterScopedAPI is the typed client of a cluster-scoped kind: what
// reconciling needs, and the List its ListCache reads.
type ClusterScopedAPI[O metav1.Object, AC any, L runtime.Object] interface {
	ObjectAPI[O, AC]
	List(ctx context.Context, opts metav1.ListOptions) (L, error)
}

// clusterScoped is the Object of a cluster-scoped kind served by api,
// listed (for reads) with opts.
func clusterScoped[S any, O metav1.Object, AC Labeled[AC], L runtime.Object](c *kube.Client, kind string, api ClusterScopedAPI[O, AC, L],
	opts metav1.ListOptions, build func(S) AC, read func(O) S, diff func(desired, actual S) []string) Object[S, O, AC] {
	return Object[S, O, AC]{
		Kind:  kind,
		List:  kube.Listed(c, kind, kube.ListFunc[O](api.List, opts)),
		API:   func(string) ObjectAPI[O, AC] { return api },
		Build: build, Read: read, DiffSpec: diff,
	}
}

// Ref names an object.
type Ref struct{ Namespace, Name string }

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + "/" + r.Name
}

// Observe reads the object; found is false when it does not exist, or when
// the object there is not the one this resource instance recorded (it was
// deleted and made again: the ledger notes it). It is the read path (a
// refresh): an object the kind's list holds is taken from it, any other is
// read with a GET (the list may be filtered, or older than the object; a
// failed list, e.g. not permitted, falls back too). The hint is not needed:
// what the server holds reads the same whatever was asked.
func (o Object[S, O, AC]) Observe(ctx context.Context, ref Ref, _ S) (s S, found bool, err error) {
	obj, listed, err := o.List.Lookup(ctx, ref.Namespace, ref.Name)
	if err != nil || !listed {
		if obj, found, err = o.getObject(ctx, ref); !found || err != nil {
			return s, false, err
		}
	}
	if mine, _, _ := ledgerOf(ctx).claimKube(o.Kind, ref, obj, true, false); !mine {
		return s, false, nil
	}
	return o.Read(obj), true, nil
}

// Diff names the fields of actual that differ from desired.
func (o Object[S, O, AC]) Diff(desired, actual S) []string { return o.DiffSpec(desired, actual) }

// Create creates the object. It never writes to an object that exists: one
// of that name is this resource instance's only when the ledger recorded it
// (a create of its own, retried); any other fails the create with a
// *NotOwnedError before any write, whoever made it (another configuration's
// is not this one's, marker or not).
func (o Object[S, O, AC]) Create(ctx context.Context, ref Ref, desired S) (Result[S], error) {
	got, made, err := o.create(ctx, ref, desired)
	return Result[S]{Observed: got, Partial: err != nil && made}, err
}

// create creates the object; made says whether it did (so an error after
// that is a partial create: the caller records the object, and the next
// apply completes or replaces it).
func (o Object[S, O, AC]) create(ctx context.Context, ref Ref, desired S) (got S, made bool, err error) {
	o.List.Invalidate()
	defer o.List.Invalidate()
	obj, err := createPart(ctx, o.API(ref.Namespace), o.Kind, ref, kubeKey(o.Kind, ref), o.Build(desired).WithLabels(marker()))
	var no *NotOwnedError
	switch {
	case errors.As(err, &no):
		if st, _ := ledgerOf(ctx).kubeStanding(o.Kind, ref, obj); st != Recorded {
			return got, false, err
		}
	case err != nil:
		return got, false, err
	}
	if got, err = o.write(ctx, ref, desired, obj, Created(obj)); err != nil {
		return o.Read(obj), true, err
	}
	return got, true, nil
}

// CheckCreate returns the *NotOwnedError Create would, without writing: for
// reconcilers that create several objects and check all of them first.
func (o Object[S, O, AC]) CheckCreate(ctx context.Context, ref Ref) error {
	obj, found, err := o.getObject(ctx, ref)
	if err != nil || !found {
		return err
	}
	if st, _ := ledgerOf(ctx).kubeStanding(o.Kind, ref, obj); st != Recorded {
		return notOwned(o.Kind, ref, obj)
	}
	return nil
}

// Update makes the object this resource instance manages (created or
// imported) match desired, and returns what the server then holds. It writes
// only when a fresh read shows a difference. An object the platform created
// keeps its marker; one it imported is not marked. One that has gone is
// created again. One that is not the object the instance recorded (deleted
// and made again by someone) is not written: a *NotOwnedError. prior is not
// needed: the fresh read is what is compared.
func (o Object[S, O, AC]) Update(ctx context.Context, ref Ref, _, desired S) (Result[S], error) {
	got, err := o.apply(ctx, ref, desired)
	return Result[S]{Observed: got}, err
}

// apply is Update for reconcilers that compose objects.
func (o Object[S, O, AC]) apply(ctx context.Context, ref Ref, desired S) (S, error) {
	obj, found, err := o.getObject(ctx, ref)
	if err != nil {
		var zero S
		return zero, err
	}
	if !found {
		got, _, err := o.create(ctx, ref, desired)
		return got, err
	}
	l := ledgerOf(ctx)
	switch st, rec := l.kubeStanding(o.Kind, ref, obj); st {
	case Replaced:
		var zero S
		return zero, replacedError(o.Kind, ref, rec, obj)
	case Unrecorded:
		l.recordKube(o.Kind, ref, obj)
	}
	return o.write(ctx, ref, desired, obj, Created(obj))
}

// getObject reads the object with a GET; found is false when it does not exist.
func (o Object[S, O, AC]) getObject(ctx context.Context, ref Ref) (obj O, found bool, err error) {
	obj, err = o.API(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		var zero O
		return zero, false, nil
	}
	if err != nil {
		return obj, false, fmt.Errorf("read %s %s: %w", o.Kind, ref, err)
	}
	return obj, true, nil
}

// write makes the object read as current match desired, with the marker
// when mark is set. Each write names current's UID, so it fails rather than
// write to an object made in its place meanwhile.
//
// The write is a server-side apply that takes back ownership of any managed
// field someone else changed (force). Server-side apply cannot remove what
// another field manager added where the platform wants nothing (a map key
// kubectl added, a list the platform leaves empty), so when the result still
// differs, write sends a JSON merge patch computed between the managed fields
// only (Build(Read(actual)) → Build(desired)): fields the platform does not
// manage are never touched. A difference that survives that is reported, not
// left as a perpetual diff.
func (o Object[S, O, AC]) write(ctx context.Context, ref Ref, desired S, current O, mark bool) (S, error) {
	var zero S
	if actual := o.Read(current); len(o.DiffSpec(desired, actual)) == 0 {
		return actual, nil // a created object has its marker already: only what is marked or new is marked
	}
	build := func(s S) AC {
		ac := o.Build(s)
		if mark {
			ac = ac.WithLabels(marker())
		}
		return ac
	}
	o.List.Invalidate()
	defer o.List.Invalidate()
	api := o.API(ref.Namespace)
	obj, err := api.Apply(ctx, build(desired).WithUID(current.GetUID()), metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true})
	if err != nil {
		return zero, fmt.Errorf("apply %s %s: %w", o.Kind, ref, err)
	}
	got := o.Read(obj)
	if len(o.DiffSpec(desired, got)) == 0 {
		return got, nil
	}
	patch, err := managedFieldsPatch(build(got), build(desired))
	if err != nil {
		return zero, fmt.Errorf("restore %s %s: %w", o.Kind, ref, err)
	}
	if obj, err = api.Patch(ctx, ref.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: kube.FieldManager}); err != nil {
		return zero, fmt.Errorf("restore fields of %s %s set by another writer: %w", o.Kind, ref, err)
	}
	got = o.Read(obj)
	if d := o.DiffSpec(desired, got); len(d) > 0 {
		return got, &SettledError{Kind: o.Kind, Name: ref.String(), Fields: d}
	}
	return got, nil
}

// ErrInUse is returned (wrapped) when Delete refuses to delete an object
// that others still use.
var ErrInUse = errors.New("still in use")

// InUseError is a delete refused because others still use the object: Kueue
// would keep it (finalizer kueue.x-k8s.io/resource-in-use) until they let go.
// Nothing was deleted.
type InUseError struct {
	Kind, Name string
	Users      []string // e.g. ClusterQueue team-a
}

func (e *InUseError) Error() string {
	return fmt.Sprintf("%s %s is still used by %s, so Kueue would keep it (finalizer kueue.x-k8s.io/resource-in-use) "+
		"until they let go; it was not deleted", e.Kind, e.Name, strings.Join(e.Users, ", "))
}

func (e *InUseError) Unwrap() error { return ErrInUse }

// ErrNotSettled is returned (wrapped) when the server keeps fields different
// from the spec after a write.
var ErrNotSettled = errors.New("server keeps fields different from the spec")

// SettledError names the fields a webhook or controller keeps changing back
// after a write.
type SettledError struct {
	Kind, Name string
	Fields     []string
}

func (e *SettledError) Error() string {
	return fmt.Sprintf("%s %s: the server keeps %s different from the spec after the write (a webhook or controller is changing it)",
		e.Kind, e.Name, strings.Join(e.Fields, ", "))
}

func (e *SettledError) Unwrap() error { return ErrNotSettled }

func (o Object[S, O, AC]) waitUnblocked(ctx context.Context, ref Ref) error {
	if o.Blockers == nil {
		return nil
	}
	grace, poll := o.BlockedGrace, o.Poll
	if grace == 0 {
		grace = 30 * time.Second
	}
	if poll == 0 {
		poll = 200 * time.Millisecond
	}
	deadline := time.Now().Add(grace)
	for {
		blockers, err := o.Blockers(ctx, ref)
		if err != nil {
			return fmt.Errorf("find what still uses %s %s: %w", o.Kind, ref, err)
		}
		if len(blockers) == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return &InUseError{Kind: o.Kind, Name: ref.String(), Users: blockers}
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
}

// managedFieldsPatch is the JSON merge patch from one apply configuration to
// another: it sets what differs and nulls what desired leaves out.
func managedFieldsPatch(actual, desired any) ([]byte, error) {
	from, err := json.Marshal(actual)
	if err != nil {
		return nil, err
	}
	to, err := json.Marshal(desired)
	if err != nil {
		return nil, err
	}
	return jsonpatch.CreateMergePatch(from, to)
}

// Delete deletes the object this resource instance manages and waits until
// it is gone (finalizers done) or ctx ends. Deleting an object that does not
// exist succeeds. An object that is not the one the instance recorded (it
// was deleted and made again by someone) is left as it is: the ledger notes
// it, and Delete succeeds, since the instance's object is gone. The kind's
// Guard, when it refuses, leaves the instance's object as it is too.
func (o Object[S, O, AC]) Delete(ctx context.Context, ref Ref, last S) error {
	return o.delete(ctx, ref, last)
}

func (o Object[S, O, AC]) delete(ctx context.Context, ref Ref, last S) error {
	obj, found, err := o.getObject(ctx, ref)
	if err != nil || !found {
		return err
	}
	l := ledgerOf(ctx)
	if mine, _, _ := l.claimKube(o.Kind, ref, obj, true, true); !mine {
		return nil
	}
	if o.Guard != nil {
		if err := o.Guard(ctx, ref, last); err != nil {
			return err
		}
	}
	if err := o.waitUnblocked(ctx, ref); err != nil {
		return err
	}
	o.List.Invalidate()
	defer o.List.Invalidate()
	api := o.API(ref.Namespace)
	uid := obj.GetUID()
	err = api.Delete(ctx, ref.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	switch {
	case apierrors.IsNotFound(err):
		l.forget(kubeKey(o.Kind, ref))
		return nil
	case apierrors.IsConflict(err): // the UID precondition: made again since it was read
		return o.delete(ctx, ref, last)
	case err != nil:
		return fmt.Errorf("delete %s %s: %w", o.Kind, ref, err)
	}
	poll := o.Poll
	if poll == 0 {
		poll = 200 * time.Millisecond
	}
	start := time.Now()
	for {
		obj, err := api.Get(ctx, ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && obj.GetUID() != uid) {
			l.forget(kubeKey(o.Kind, ref))
			return nil
		}
		select {
		case <-ctx.Done():
			left := ""
			if err == nil && o.Stuck != nil {
				left = "; " + o.Stuck(obj)
			} else if err == nil && len(obj.GetFinalizers()) > 0 {
				left = "; it still has finalizers " + strings.Join(obj.GetFinalizers(), ", ") +
					", which the controller that owns each removes once nothing uses the object"
			}
			return fmt.Errorf("%s %s was deleted but is still present after %s%s: %w",
				o.Kind, ref, time.Since(start).Round(time.Second), left, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// managedOnly lists only the objects the platform made (label
// app.kubernetes.io/managed-by=mlplatform), for kinds a cluster has many of
// (namespaces, service accounts, network policies); the others are read
// with a GET when asked for.
var managedOnly = metav1.ListOptions{LabelSelector: spec.ManagedByLabel + "=" + spec.ManagedBy}
