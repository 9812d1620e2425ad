package reconcile

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Ownership. A create never writes over an object that exists and that the
// platform did not create; it fails before any write with a *NotOwnedError,
// and the object is left exactly as it was. Taking over an existing object is
// the caller's decision (Terraform's import), never a side effect of a create.
//
// What the platform creates carries its marker, so a create that was cut off
// after the server's write (state not saved) is recognised and completed by
// the next one:
//   - Kubernetes objects: label app.kubernetes.io/managed-by=mlplatform;
//   - GKE node pools: resource label mlplatform-managed-by=mlplatform (spec.PoolMarkerLabel);
//   - Google service accounts: spec.GSAMarker at the end of the description.
//
// The marker is written when the platform creates an object, and kept while
// it manages it. An object it took over (imported) is not marked: its own
// managed-by label, e.g. Helm's, stays as it was.

// ErrNotOwned is returned (wrapped in a *NotOwnedError) when a create finds
// an object that exists and that the platform did not create.
var ErrNotOwned = errors.New("exists and was not created by mlplatform")

// NotOwnedError says which object a create found, and what shows that it
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
}

func (e *NotOwnedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s already exists and was not created by mlplatform", e.Kind, e.Name)
	var facts []string
	if e.Detail != "" {
		facts = append(facts, e.Detail)
	}
	if e.ManagedBy != "" {
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

// notOwned describes an existing Kubernetes object of another writer.
func notOwned(kind string, ref Ref, obj metav1.Object) *NotOwnedError {
	e := &NotOwnedError{Kind: kind, Name: ref.String(), ManagedBy: obj.GetLabels()[spec.ManagedByLabel]}
	for _, f := range obj.GetManagedFields() {
		if f.Subresource == "" && f.Manager != "" && f.Manager != kube.FieldManager && !slices.Contains(e.Writers, f.Manager) {
			e.Writers = append(e.Writers, f.Manager)
		}
	}
	return e
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
		if json.Unmarshal(f.FieldsV1.Raw, &node) != nil {
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
