package reconcile

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// ErrNeedsReplacement: the pool differs in a field GKE cannot change in place.
var ErrNeedsReplacement = errors.New("node pool needs replacement")

// CreateFailedError is a node pool create that GKE accepted but could not
// finish (e.g. a GPU stockout). Cleaned says whether the half-created pool
// was deleted again.
type CreateFailedError struct {
	Pool       spec.GPUPool
	Cause      *gke.OperationError
	Cleaned    bool
	CleanupErr error
}

func (e *CreateFailedError) Error() string {
	msg := e.Cause.Error()
	if e.CleanupErr != nil {
		msg += fmt.Sprintf(" (deleting the half-created pool also failed: %v)", e.CleanupErr)
	}
	return msg
}

func (e *CreateFailedError) Unwrap() error { return e.Cause }

var zoneInMessage = regexp.MustCompile(`zones?/([a-z]+-[a-z]+[0-9]+-[a-z])`)

// Stockout reports whether GKE ran out of machines, and in which zone.
func (e *CreateFailedError) Stockout() (zone string, ok bool) {
	m := e.Cause.Message
	if !strings.Contains(m, "STOCKOUT") && !strings.Contains(m, "does not have enough resources") {
		return "", false
	}
	if z := zoneInMessage.FindStringSubmatch(m); z != nil {
		return z[1], true
	}
	return "", true
}

// Plain says what happened and what to do.
func (e *CreateFailedError) Plain() string {
	p := e.Pool
	var b strings.Builder
	if zone, ok := e.Stockout(); ok {
		where := "in the pool's zones"
		if zone != "" {
			where = "in zone " + zone
		}
		fmt.Fprintf(&b, "GKE could not create node pool %s: Compute Engine has no %s capacity for %d × %s (%s) %s right now (a stockout). ",
			p.Name, strings.ReplaceAll(p.Capacity, "_", "-"), p.GPU.Count, p.GPU.Type, p.MachineType, where)
	} else {
		fmt.Fprintf(&b, "GKE could not create node pool %s: the create operation ended in error (%s). ", p.Name, e.Cause.Code)
	}
	switch {
	case e.Cleaned:
		b.WriteString("The provider deleted the half-created pool, so nothing is left behind and the next apply starts over. ")
	default:
		b.WriteString("The provider could not delete the half-created pool; the next apply deletes and recreates it. ")
	}
	if _, ok := e.Stockout(); ok {
		b.WriteString("Try again later, add zones to node_locations, or choose capacity \"flex_start\" (waits for capacity) or \"reservation\" (capacity you reserved).")
	}
	return b.String()
}
