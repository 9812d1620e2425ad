package reconcile

import (
	"context"
	"errors"
)

// Reconciler is the one contract every kind implements: the Kueue kinds,
// namespaces, network policies, GPU pools and Workload Identity bindings.
// Ref names what is reconciled, S is the platform's spec of it, and Obs is
// what the server holds (for most kinds S itself, read back; GPU pools and
// bindings add what only the server knows).
//
// Callers (the Terraform resources today; any tool that reconciles or checks
// the platform) follow one path:
//
//	Observe  → refresh: what is there now
//	Diff     → pure: which fields differ, in spec terms
//	Create   → the first write; never over what the platform did not create
//	Update   → later writes, to what the platform manages (created or imported)
//	WaitReady→ until the controller reports the object ready (a no-op for kinds without readiness)
//	Delete   → only what the platform created or imported
//
// Rules every implementation keeps:
//   - Create fails with a *NotOwnedError (ErrNotOwned) before any write when
//     the object exists and the platform did not create it; when the
//     platform's marker is there, the create was cut off and Create completes it.
//   - Update fails with a *NotOwnedError before any write when it would come
//     to own a part someone else made.
//   - Create and Update run their pre-flight checks (e.g. the cluster's
//     Workload Identity pool) before any write; a failed one wraps
//     ErrPreflight and wrote nothing.
//   - An error from Create or Update that is neither ErrNotOwned nor
//     ErrPreflight may follow writes. Result.Partial then says whether the
//     caller should record Result.Observed (the next run repairs from it);
//     otherwise the platform's marker lets the next Create complete the work.
//   - Delete keeps data: a team namespace that holds PersistentVolumeClaims
//     or unfinished work is refused with a *HoldsDataError (ErrHoldsData),
//     nothing deleted, unless the spec it is given says ForceDestroy. The
//     check comes after the identity check: a namespace that is not the
//     caller's is left either way.
//   - Errors state facts (object, field path in spec terms, cause) and wrap
//     the sentinel or typed error callers branch on; they give no advice in
//     any caller's language (internal/diagnostics adds that).
type Reconciler[Ref, S, Obs any] interface {
	// Observe reads what the server holds at ref; found is false when it
	// does not exist. hint is the spec last known (the state, or the plan):
	// kinds whose reading depends on what was asked for (GKE's defaults,
	// the Google service account a binding names) use it; others ignore it.
	Observe(ctx context.Context, ref Ref, hint S) (actual Obs, found bool, err error)
	// Diff names the fields of actual that differ from desired; empty means
	// in sync. It reads nothing.
	Diff(desired S, actual Obs) []string
	// Create makes ref match desired, for the first time.
	Create(ctx context.Context, ref Ref, desired S) (Result[Obs], error)
	// Update makes ref, which the platform manages, match desired; prior is
	// the spec as last applied.
	Update(ctx context.Context, ref Ref, prior, desired S) (Result[Obs], error)
	// WaitReady waits until the controller reports ref ready, or ctx ends
	// (an error wrapping ErrNotReady with the controller's reason). Kinds
	// without readiness, and specs that do not expect it (a held queue),
	// return nil at once.
	WaitReady(ctx context.Context, ref Ref, desired S) error
	// Delete removes ref, as last applied (last), and what it created;
	// nothing that is gone already is an error.
	Delete(ctx context.Context, ref Ref, last S) error
}

// Result is what a Create or Update leaves.
type Result[Obs any] struct {
	Observed Obs
	// Warnings are facts the write did not fail on but that the user should
	// know (node pools that cannot serve Workload Identity tokens).
	Warnings []string
	// Partial is set with an error after some writes: Observed is what is
	// there now, and the caller should record it.
	Partial bool
}

// ErrPreflight is returned (wrapped) when a check before any write fails.
var ErrPreflight = errors.New("pre-flight check failed")
