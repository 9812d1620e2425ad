package reconcile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Ownership. A create never writes over an object that exists and that this
// resource instance did not create; it fails before any write with a
// *NotOwnedError, and the object is left exactly as it was. Taking over an
// existing object is the caller's decision (Terraform's import), never a side
// effect of a create. Which objects are the instance's is what its Ledger
// records (identity.go): the marker below says only that mlplatform made an
// object, not for which resource.
//
// What the platform creates carries its marker:
//   - Kubernetes objects: label app.kubernetes.io/managed-by=mlplatform;
//   - GKE node pools: resource label mlplatform-managed-by=mlplatform (spec.PoolMarkerLabel);
//   - Google service accounts: spec.GSAMarker at the end of the description.
//
// It tells users and other tools who made an object, and tells an error
// what it found (another mlplatform resource's object, or someone else's).
// The marker is written when the platform creates an object, and kept while
// it manages it. An object it took over (imported) is not marked: its own
// managed-by label, e.g. Helm's, stays as it was.

// ErrNotOwned is returned (wrapped in a *NotOwnedError) when a write finds
// an object that this resource instance did not create or take over.
var ErrNotOwned = errors.New("exists and was not created by this resource")

// NotOwnedError says which object a write found, and what shows that it
// belongs to someone else.
type NotOwnedError struct {
	Kind string // e.g. "Namespace", "ClusterQueue", "node pool", KindGSA, KindGrant
	Name string // namespace/name, node pool resource name, e-mail
	// Detail, when set, is more about what was found (e.g. the GSA an
	// annotation names).
	Detail string
	// Writers are the field managers that wrote the object (from its
	// managedFields; controllers writing its status are not counted), and
	// ManagedBy its app.kubernetes.io/managed-by label, when it has them.
	Writers   []string
	ManagedBy string
	// Marked: the object carries the platform's marker: mlplatform created
	// it, for another resource (of this configuration or another), or in an
	// apply whose state was never saved.
	Marked bool
	// Created is when the object was created, when the server says.
	Created time.Time
	// Replaced, when set, is the identity this resource instance recorded at
	// that name: the object found is another (Found), made after the recorded
	// one was deleted.
	Replaced, Found string
}

func (e *NotOwnedError) Error() string {
	var b strings.Builder
	switch {
	case e.Replaced != "":
		fmt.Fprintf(&b, "%s %s is not the one this resource created or imported: that one (%s) was deleted, and the one there now (%s) was made in its place",
			e.Kind, e.Name, e.Replaced, e.Found)
	case e.Marked:
		fmt.Fprintf(&b, "%s %s already exists: mlplatform created it, but not for this resource", e.Kind, e.Name)
	default:
		fmt.Fprintf(&b, "%s %s already exists and was not created by mlplatform", e.Kind, e.Name)
	}
	var facts []string
	if !e.Created.IsZero() {
		facts = append(facts, "it was created "+e.Created.UTC().Format(time.RFC3339))
	}
	if e.Detail != "" {
		facts = append(facts, e.Detail)
	}
	if e.ManagedBy != "" && !e.Marked {
		facts = append(facts, fmt.Sprintf("it is labelled %s=%s", spec.ManagedByLabel, e.ManagedBy))
	}
	if len(e.Writers) > 0 {
		facts = append(facts, "it was written by "+strings.Join(e.Writers, ", "))
	}
	if len(facts) > 0 {
		b.WriteString(" (" + strings.Join(facts, "; ") + ")")
	}
	b.WriteString("; it was left unchanged")
	return b.String()
}

func (e *NotOwnedError) Unwrap() error { return ErrNotOwned }

// Kinds of the parts of a Workload Identity binding, as NotOwnedError.Kind.
const (
	KindKSA        = "Kubernetes service account"
	KindAnnotation = "Workload Identity annotation of Kubernetes service account"
	KindGSA        = "Google service account"
	KindGrant      = "IAM grant"
)

// Created reports whether a Kubernetes object carries the platform's marker.
func Created(obj metav1.Object) bool {
	return obj.GetLabels()[spec.ManagedByLabel] == spec.ManagedBy
}

// marker is the label set that marks a Kubernetes object as created by the platform.
func marker() map[string]string { return map[string]string{spec.ManagedByLabel: spec.ManagedBy} }

// notOwned describes an existing Kubernetes object this resource instance
// did not create or take over.
func notOwned(kind string, ref Ref, obj metav1.Object) *NotOwnedError {
	e := &NotOwnedError{Kind: kind, Name: ref.String(), ManagedBy: obj.GetLabels()[spec.ManagedByLabel], Marked: Created(obj)}
	if e.Marked {
		e.Created = obj.GetCreationTimestamp().Time
	}
	for _, f := range obj.GetManagedFields() {
		if f.Subresource == "" && f.Manager != "" && f.Manager != kube.FieldManager && !slices.Contains(e.Writers, f.Manager) {
			e.Writers = append(e.Writers, f.Manager)
		}
	}
	return e
}

// replacedError describes obj, found at ref where this resource instance
// recorded the object with UID rec.
func replacedError(kind string, ref Ref, rec string, obj metav1.Object) *NotOwnedError {
	e := notOwned(kind, ref, obj)
	e.Replaced, e.Found, e.Created = "UID "+rec, "UID "+string(obj.GetUID()), obj.GetCreationTimestamp().Time
	return e
}

// createdByApply hands the fields of obj, just created with a POST by the
// platform's field manager, to that manager's server-side apply
// (client-go's csaupgrade), so an object the platform creates is owned
// exactly as one it applies: later applies can remove what they no longer
// set. patch sends the JSON patch (guarded by obj's resourceVersion); a
// failure (a controller wrote the object in between) leaves obj as created,
// which Object.write's merge patch still handles. It returns the object as
// the server then holds it.
func createdByApply[O metav1.Object](ctx context.Context, obj O, patch func([]byte) (O, error)) O {
	ro, ok := any(obj).(runtime.Object)
	if !ok {
		return obj
	}
	p, err := csaupgrade.UpgradeManagedFieldsPatch(ro, sets.New(kube.FieldManager), kube.FieldManager)
	if err != nil || p == nil || ctx.Err() != nil {
		return obj
	}
	if got, err := patch(p); err == nil {
		return got
	}
	return obj
}

// ownsField reports whether the platform's field manager owns the field at
// path (e.g. "metadata", "annotations", KEY) of obj, by its managedFields:
// for a field of an object the platform did not create, the record of who
// set it.
func ownsField(obj metav1.Object, path ...string) bool {
	for _, f := range obj.GetManagedFields() {
		if f.Manager != kube.FieldManager || f.FieldsV1 == nil {
			continue
		}
		var node map[string]any
		if json.Unmarshal(f.FieldsV1.GetRawBytes(), &node) != nil {
			continue
		}
		found := true
		for _, p := range path {
			next, ok := node["f:"+p].(map[string]any)
			if !ok {
				found = false
				break
			}
			node = next
		}
		if found {
			return true
		}
	}
	return false
}
