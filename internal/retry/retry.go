// Package retry waits out transient unavailability within a stated bound:
// a Kueue webhook that does not answer while Kueue starts or restarts, a
// Kueue CRD not yet established, an API server answering 429 or 503, GKE or
// IAM answering UNAVAILABLE. Each failing request is retried with jittered
// exponential backoff until it succeeds, fails with an error that is not
// transient (denied, invalid: never retried), the bound passes, or its
// context ends. Every wait is logged with what it waits for. After the bound
// the last failure is returned inside an *Error that says how long it waited.
package retry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DefaultBound is how long a transient failure is waited out unless the
// provider's retry_timeout says otherwise.
const DefaultBound = 3 * time.Minute

// Policy says how long to wait out transient failures. The zero value
// (Bound 0) retries nothing.
type Policy struct {
	Bound time.Duration
	// Logf receives one line per wait (default: discarded).
	Logf func(ctx context.Context, msg string, fields map[string]any)
	// Base and Max bound the backoff between attempts (defaults 250ms, 10s).
	Base, Max time.Duration
	// Sleep and Now are injectable for tests.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
}

// Error is the last transient failure once the bound has passed.
type Error struct {
	Waiting  string // what the provider waited for, in words
	Waited   time.Duration
	Attempts int
	Err      error // the last failure
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v (waited %s, %d attempts, for %s)", e.Err, e.Waited.Round(time.Second), e.Attempts, e.Waiting)
}

func (e *Error) Unwrap() error { return e.Err }

// Classify says what a failure waits for ("" when it is not transient).
type Classify func(err error) (waiting string)

// Unavailable classifies gRPC UNAVAILABLE from service (e.g. "GKE") as
// transient.
func Unavailable(service string) Classify {
	return func(err error) string {
		if status.Code(err) == codes.Unavailable {
			return service + " to answer again (it answered UNAVAILABLE)"
		}
		return ""
	}
}

func (p Policy) backoff(attempt int) time.Duration {
	base, ceiling := p.Base, p.Max
	if base <= 0 {
		base = 250 * time.Millisecond
	}
	if ceiling <= 0 {
		ceiling = 10 * time.Second
	}
	d := base << min(attempt-1, 20)
	if d > ceiling || d <= 0 {
		d = ceiling
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func (p Policy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	return Sleep(ctx, d)
}

// Sleep waits d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Attempt is one try of Do: its failure, and what that failure waits for
// ("" when it is final).
type Attempt struct {
	Err     error
	Waiting string
}

// Loop runs try until it returns an Attempt with no Waiting, the bound has
// passed since the first attempt started, or ctx ends. A retry is never
// started past the bound, and runs with what is left of it as its deadline,
// so the whole wait ends within the bound (the first attempt, before
// anything is known to be transient, runs with ctx's own deadline). fields
// are logged with each wait. It returns the last Attempt's error, in an
// *Error when the bound or ctx ended the waiting.
//
// try gets the attempt's context and its cancel. Loop cancels it after an
// attempt that failed; after the one that succeeds, try owns it: what the
// attempt returned may still be in use (an HTTP response whose body is read
// after the round trip), so try calls cancel once that is done.
func (p Policy) Loop(ctx context.Context, fields map[string]any, try func(ctx context.Context, cancel context.CancelFunc) Attempt) error {
	start := p.now()
	var last Attempt
	for n := 1; ; n++ {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if n > 1 {
			actx, cancel = context.WithTimeout(ctx, p.Bound-p.now().Sub(start))
		}
		a := try(actx, cancel)
		cut := n > 1 && a.Err != nil && actx.Err() != nil && ctx.Err() == nil
		if a.Err != nil || a.Waiting != "" {
			cancel()
		}
		switch {
		case cut: // the bound ran out during this retry: report the failure it retried
			return &Error{Waiting: last.Waiting, Waited: p.now().Sub(start), Attempts: n, Err: last.Err}
		case a.Waiting == "" || p.Bound <= 0:
			return a.Err
		}
		last = a
		waited := p.now().Sub(start)
		d := p.backoff(n)
		if waited+d >= p.Bound {
			return &Error{Waiting: a.Waiting, Waited: waited, Attempts: n, Err: a.Err}
		}
		if p.Logf != nil {
			f := map[string]any{"waiting_for": a.Waiting, "attempt": n, "waited": waited.Round(time.Millisecond).String(),
				"bound": p.Bound.String(), "next_in": d.Round(time.Millisecond).String(), "error": a.Err.Error()}
			for k, v := range fields {
				f[k] = v
			}
			p.Logf(ctx, "waiting for "+a.Waiting, f)
		}
		if err := p.sleep(ctx, d); err != nil {
			return &Error{Waiting: a.Waiting, Waited: p.now().Sub(start), Attempts: n, Err: errors.Join(a.Err, err)}
		}
	}
}

// Do runs call until it succeeds or fails with an error classify does not
// call transient, waiting out transient failures within the bound.
func (p Policy) Do(ctx context.Context, classify Classify, call func(ctx context.Context) error) error {
	return p.Loop(ctx, nil, func(ctx context.Context, cancel context.CancelFunc) Attempt {
		err := call(ctx)
		if err == nil {
			cancel() // the call is complete: nothing of it is read later
			return Attempt{}
		}
		return Attempt{Err: err, Waiting: classify(err)}
	})
}

// Call is Do for a call with a result.
func Call[T any](ctx context.Context, p Policy, classify Classify, call func(ctx context.Context) (T, error)) (T, error) {
	var out T
	err := p.Do(ctx, classify, func(ctx context.Context) error {
		var err error
		out, err = call(ctx)
		return err
	})
	return out, err
}
