package doctor

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The probe counts as answered when the API server refused the object for
// its own reasons (it exists, it is invalid, a webhook denied it); a webhook
// the API server could not call, or no RBAC to create, is not answered. That
// doctor only lists and dry-runs, and that refused reads say so, is tested
// against a real API server (doctortest).
func TestProbeAnswer(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "resourceflavors"}
	for name, c := range map[string]struct {
		err      error
		answered bool
	}{
		"stored":     {nil, true},
		"exists":     {apierrors.NewAlreadyExists(gr, ProbeFlavor), true},
		"invalid":    {apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "ResourceFlavor"}, ProbeFlavor, nil), true},
		"denied":     {apierrors.NewForbidden(gr, ProbeFlavor, errors.New(`admission webhook "vresourceflavor.kb.io" denied the request`)), true},
		"no RBAC":    {apierrors.NewForbidden(gr, ProbeFlavor, errors.New("User cannot create resource")), false},
		"not called": {apierrors.NewInternalError(errors.New(`failed calling webhook "mresourceflavor.kb.io": connection refused`)), false},
	} {
		if got := probeAnswer(c.err) == nil; got != c.answered {
			t.Errorf("%s: probe answered %v, want %v (err %v)", name, got, c.answered, c.err)
		}
	}
}
