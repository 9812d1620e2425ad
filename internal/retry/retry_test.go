package retry

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// fakeClock advances only when the policy sleeps.
type fakeClock struct{ t time.Time }

func (c *fakeClock) policy(bound time.Duration, logged *[]string) Policy {
	return Policy{
		Bound: bound, Base: time.Second, Max: 8 * time.Second,
		Now:   func() time.Time { return c.t },
		Sleep: func(_ context.Context, d time.Duration) error { c.t = c.t.Add(d); return nil },
		Logf:  func(_ context.Context, msg string, _ map[string]any) { *logged = append(*logged, msg) },
	}
}

func TestDo(t *testing.T) {
	t.Parallel()
	unavailable := status.Error(codes.Unavailable, "The service is currently unavailable.")
	denied := status.Error(codes.PermissionDenied, "denied")
	cases := map[string]struct {
		bound     time.Duration
		failures  []error // returned by successive calls, then success
		wantCalls int
		wantErr   error // errors.Is target; nil = success
		wantGave  bool  // a *Error (gave up after the bound)
		wantLogs  int
	}{
		"success":                      {bound: time.Minute, wantCalls: 1},
		"unavailable twice, then fine": {bound: time.Minute, failures: []error{unavailable, unavailable}, wantCalls: 3, wantLogs: 2},
		"denied is never retried":      {bound: time.Minute, failures: []error{denied}, wantCalls: 1, wantErr: denied},
		"no bound, no retries":         {failures: []error{unavailable}, wantCalls: 1, wantErr: unavailable},
		"gives up after the bound": {bound: 10 * time.Second, wantErr: unavailable, wantGave: true,
			failures: []error{unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable, unavailable}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clock := &fakeClock{t: time.Unix(0, 0)}
			var logged []string
			calls := 0
			err := clock.policy(tc.bound, &logged).Do(context.Background(), Unavailable("GKE"), func(context.Context) error {
				calls++
				if calls <= len(tc.failures) {
					return tc.failures[calls-1]
				}
				return nil
			})
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			var gave *Error
			if errors.As(err, &gave) != tc.wantGave {
				t.Fatalf("err = %#v: gave up = %v, want %v", err, !tc.wantGave, tc.wantGave)
			}
			if gave != nil {
				if gave.Waited > tc.bound {
					t.Errorf("waited %s, more than the bound %s", gave.Waited, tc.bound)
				}
				if diff := cmp.Diff("GKE to answer again (it answered UNAVAILABLE)", gave.Waiting); diff != "" {
					t.Errorf("waiting (-want +got):\n%s", diff)
				}
				if status.Code(err) != codes.Unavailable {
					t.Errorf("status.Code = %s: the gRPC code must survive the wrapping", status.Code(err))
				}
				return
			}
			if calls != tc.wantCalls {
				t.Errorf("%d calls, want %d", calls, tc.wantCalls)
			}
			if len(logged) != tc.wantLogs {
				t.Errorf("%d waits logged (%q), want %d", len(logged), logged, tc.wantLogs)
			}
		})
	}
}

func TestLoopStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p := Policy{Bound: time.Hour, Base: time.Millisecond}
	calls := 0
	err := p.Do(ctx, Unavailable("IAM"), func(context.Context) error {
		calls++
		if calls == 2 {
			cancel()
		}
		return status.Error(codes.Unavailable, "down")
	})
	var gave *Error
	if !errors.As(err, &gave) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a *Error that wraps context.Canceled", err)
	}
}

// A retry runs with what is left of the bound: one that would run past it
// is cut there, and the failure it retried is reported.
func TestLoopEndsWithinTheBound(t *testing.T) {
	t.Parallel()
	p := Policy{Bound: 200 * time.Millisecond, Base: time.Millisecond, Max: time.Millisecond}
	unavailable := status.Error(codes.Unavailable, "down")
	calls := 0
	start := time.Now()
	err := p.Do(context.Background(), Unavailable("GKE"), func(ctx context.Context) error {
		calls++
		if calls == 1 {
			return unavailable
		}
		<-ctx.Done() // a retry that hangs, as a request to a frozen webhook does
		return ctx.Err()
	})
	var gave *Error
	if !errors.As(err, &gave) || !errors.Is(err, unavailable) {
		t.Fatalf("err = %v, want a *Error around the first UNAVAILABLE", err)
	}
	// The retry that hangs is cut at the bound: without it the test would
	// never end. Only an order of magnitude is asserted (a loaded CI machine
	// once took 271 ms for the 200 ms bound); speed is for benchmarks.
	if elapsed := time.Since(start); elapsed > 5*time.Second || gave.Waited > 5*time.Second {
		t.Errorf("gave up after %s (waited %s), want about the bound (%s)", elapsed, gave.Waited, p.Bound)
	}
}
