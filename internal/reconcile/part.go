package reconcile

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
)

// Part is one Kubernetes object of a resource made of several (a MultiKueue
// worker's service account and RBAC, its kubeconfig Secret): what the ledger
// rules (identity.go) need to write and delete it. Kind and Ref name it in
// messages; Key is its ledger key (kubeKey, or one that also names the
// cluster it is in).
type Part[O metav1.Object, AC Labeled[AC]] struct {
	Kind string
	Ref  Ref
	Key  string
	API  ObjectAPI[O, AC]
	// Want, when set, is the object as the platform writes it: its apply
	// configuration, without the marker (put writes it). Drift, when set,
	// says in a few words what of an object read differs from Want ("rules
	// changed"), "" when nothing does (check reports it). Parts whose
	// content each write makes anew (a kubeconfig Secret) have neither.
	Want  func() AC
	Drift func(O) string
}

// standing is what obj, read at the part's name, is to this resource
// instance (its ledger l).
func (p Part[O, AC]) standing(l *Ledger, obj O) (Standing, string) {
	uid := string(obj.GetUID())
	return l.standing(p.Key, func(r string) bool { return r == uid })
}

// held reports whether obj, read at the part's name, is this resource
// instance's to delete: the one recorded at Key, or, when nothing is
// recorded there, one that takeUnrecorded accepts.
func (p Part[O, AC]) held(l *Ledger, obj O, takeUnrecorded func(metav1.Object) bool) bool {
	st, _ := p.standing(l, obj)
	return st == Recorded || (st == Unrecorded && takeUnrecorded != nil && takeUnrecorded(obj))
}

// read reads the object; found is false when there is none.
func (p Part[O, AC]) read(ctx context.Context) (obj O, found bool, err error) {
	obj, err = p.API.Get(ctx, p.Ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		var zero O
		return zero, false, nil
	}
	if err != nil {
		return obj, false, fmt.Errorf("read %s %s: %w", p.Kind, p.Ref, err)
	}
	return obj, true, nil
}

// claim reads the object and decides whether this resource instance may
// write it: absent (found false), or the one it recorded, or, when nothing
// is recorded at Key, one that takeUnrecorded accepts (then recorded). Any
// other is a *NotOwnedError, nothing written.
func (p Part[O, AC]) claim(ctx context.Context, takeUnrecorded func(metav1.Object) bool) (obj O, found bool, err error) {
	obj, found, err = p.read(ctx)
	if err != nil || !found {
		return obj, found, err
	}
	l := ledgerOf(ctx)
	switch st, rec := p.standing(l, obj); {
	case st == Recorded:
		return obj, true, nil
	case st == Replaced:
		return obj, true, replacedError(p.Kind, p.Ref, rec, obj)
	case takeUnrecorded != nil && takeUnrecorded(obj):
		l.record(p.Key, string(obj.GetUID()))
		return obj, true, nil
	}
	return obj, true, notOwned(p.Kind, p.Ref, obj)
}

// ensure writes ac (marked when mark) to the object claim found: creates it
// (a POST, recorded) when found is false, else applies it naming cur's UID.
func (p Part[O, AC]) ensure(ctx context.Context, cur O, found bool, ac AC, mark bool) (O, error) {
	if mark {
		ac = ac.WithLabels(marker())
	}
	if !found {
		return createPart(ctx, p.API, p.Kind, p.Ref, p.Key, ac)
	}
	got, err := p.API.Apply(ctx, ac.WithUID(cur.GetUID()), metav1.ApplyOptions{FieldManager: kube.FieldManager, Force: true})
	if err != nil {
		return got, fmt.Errorf("apply %s %s: %w", p.Kind, p.Ref, err)
	}
	return got, nil
}

// put writes Want, with the platform's marker, to the object claim found
// (ensure).
func (p Part[O, AC]) put(ctx context.Context, cur O, found bool) (O, error) {
	return p.ensure(ctx, cur, found, p.Want(), true)
}

// check says whether the object is as the platform writes it: "" when it
// is; otherwise "KIND NAME missing", "KIND NAME " and what Drift says, or,
// when it is not the object this resource instance recorded (deleted and
// made again by someone; the ledger notes it), "KIND NAME " and
// WorkerObjectReplaced.
func (p Part[O, AC]) check(ctx context.Context) (string, error) {
	obj, found, err := p.read(ctx)
	switch {
	case err != nil:
		return "", err
	case !found:
		return p.Kind + " " + p.Ref.String() + " missing", nil
	}
	if p.Drift != nil {
		if d := p.Drift(obj); d != "" {
			return p.Kind + " " + p.Ref.String() + " " + d, nil
		}
	}
	l := ledgerOf(ctx)
	if st, rec := p.standing(l, obj); st == Replaced {
		l.note(kubeForeign(p.Kind, p.Ref, rec, obj, false))
		return p.Kind + " " + p.Ref.String() + " " + WorkerObjectReplaced, nil
	}
	return "", nil
}

// release deletes the object when it is this resource instance's: the one
// recorded at Key, or, when nothing is recorded there, one that
// takeUnrecorded accepts. One that replaced the recorded one is left (the
// ledger notes it), as is anyone else's. The delete names the UID read, so
// only that object goes.
func (p Part[O, AC]) release(ctx context.Context, takeUnrecorded func(metav1.Object) bool) error {
	obj, found, err := p.read(ctx)
	if err != nil || !found {
		return err
	}
	l := ledgerOf(ctx)
	if st, rec := p.standing(l, obj); st == Replaced {
		l.note(kubeForeign(p.Kind, p.Ref, rec, obj, true))
		return nil
	}
	if !p.held(l, obj, takeUnrecorded) {
		return nil
	}
	if err := deleteUID(ctx, p.API, p.Kind, p.Ref, obj.GetUID()); err != nil {
		return err
	}
	l.forget(p.Key)
	return nil
}

// deleteUID deletes the object at ref if its UID is uid: one made in its
// place since it was read is not deleted.
func deleteUID[O metav1.Object, AC any](ctx context.Context, api ObjectAPI[O, AC], kind string, ref Ref, uid types.UID) error {
	err := api.Delete(ctx, ref.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete %s %s: %w", kind, ref, err)
	}
	return nil
}

// createPart creates the object ac describes with a POST, which fails with
// an AlreadyExists error where an object of that name exists (so two
// creates of one name never both succeed: the second gets a *NotOwnedError
// naming what it found), records it at key, and hands its fields to the
// platform's server-side apply field manager (createdByApply).
func createPart[O metav1.Object, AC any](ctx context.Context, api ObjectAPI[O, AC], kind string, ref Ref, key string, ac AC) (O, error) {
	var obj O
	b, err := json.Marshal(ac)
	if err == nil {
		obj = reflect.New(reflect.TypeFor[O]().Elem()).Interface().(O)
		err = json.Unmarshal(b, obj)
	}
	if err != nil {
		return obj, fmt.Errorf("create %s %s: %w", kind, ref, err)
	}
	created, err := api.Create(ctx, obj, metav1.CreateOptions{FieldManager: kube.FieldManager})
	if apierrors.IsAlreadyExists(err) {
		if cur, gerr := api.Get(ctx, ref.Name, metav1.GetOptions{}); gerr == nil {
			return cur, notOwned(kind, ref, cur)
		}
	}
	if err != nil {
		return created, fmt.Errorf("create %s %s: %w", kind, ref, err)
	}
	ledgerOf(ctx).record(key, string(created.GetUID()))
	return createdByApply(ctx, created, func(patch []byte) (O, error) {
		return api.Patch(ctx, ref.Name, types.JSONPatchType, patch, metav1.PatchOptions{FieldManager: kube.FieldManager})
	}), nil
}
