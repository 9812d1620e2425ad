package kube

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

func TestDeadlineReached(t *testing.T) {
	t.Parallel()
	// The limiter's refusal, made by the limiter client-go uses and wrapped
	// as rest.Request wraps it: one token a minute, the token spent, and a
	// deadline in a second.
	bounded, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	lim := rate.NewLimiter(rate.Every(time.Minute), 1)
	lim.Allow()
	refusal := lim.Wait(bounded)
	if refusal == nil {
		t.Fatal("the limiter waited past the deadline")
	}
	refusal = fmt.Errorf("client rate limiter Wait returned an error: %w", refusal)
	done, stop := context.WithCancel(context.Background())
	stop()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"no error", bounded, nil, false},
		{"the limiter's refusal, ctx not yet done", bounded, refusal, true},
		{"the same words without a deadline are the server's", context.Background(), refusal, false},
		{"a context error, wrapped", bounded, fmt.Errorf("get: %w", context.DeadlineExceeded), true},
		{"any error once ctx is done", done, errors.New("connection reset"), true},
		{"a server's answer before the deadline", bounded, errors.New(`localqueues "q" is forbidden`), false},
	} {
		if got := DeadlineReached(tc.ctx, tc.err); got != tc.want {
			t.Errorf("%s: DeadlineReached = %v, want %v", tc.name, got, tc.want)
		}
	}
}
