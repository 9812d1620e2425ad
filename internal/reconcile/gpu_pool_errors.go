package reconcile

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// The errors a GPU pool reconcile returns besides those of GKE operations
// (gke.BusyError, gke.OperationError). They state facts; what to do about
// them is the caller's to say.

// ErrNeedsReplacement: the pool differs in a field GKE cannot change in place.
var ErrNeedsReplacement = errors.New("node pool needs replacement")

// ErrGone: the node pool to change no longer exists.
var ErrGone = errors.New("node pool no longer exists")

// GoneError is a change to a node pool that was deleted since it was last
// read. It is ErrGone and wraps GKE's NotFound.
type GoneError struct {
	Pool GPUPoolRef
	Err  error // GKE's NotFound
}

func (e *GoneError) Error() string {
	return fmt.Sprintf("node pool %s no longer exists: %v", e.Pool, e.Err)
}

func (e *GoneError) Is(target error) bool { return target == ErrGone }

func (e *GoneError) Unwrap() error { return e.Err }

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

// Failure says, in one sentence, what GKE could not do.
func (e *CreateFailedError) Failure() string {
	p := e.Pool
	if zone, ok := e.Stockout(); ok {
		where := "in the pool's zones"
		if zone != "" {
			where = "in zone " + zone
		}
		return fmt.Sprintf("GKE could not create node pool %s: Compute Engine has no %s capacity for %d × %s (%s) %s right now (a stockout).",
			p.Name, strings.ReplaceAll(p.Capacity, "_", "-"), p.GPU.Count, p.GPU.Type, p.MachineType, where)
	}
	return fmt.Sprintf("GKE could not create node pool %s: the create operation ended in error (%s).", p.Name, e.Cause.Code)
}

// Plain says what happened, in plain words: the failure, and whether the
// half-created pool is gone.
func (e *CreateFailedError) Plain() string {
	if e.Cleaned {
		return e.Failure() + " mlplatform deleted the half-created pool; nothing is left behind."
	}
	return e.Failure() + " mlplatform could not delete the half-created pool; it is still there."
}
