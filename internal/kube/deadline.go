package kube

import (
	"context"
	"errors"
	"strings"
)

// DeadlineReached says whether a request failed because ctx's deadline
// came: ctx is done, the error wraps a context error, or client-go's rate
// limiter refused to wait past the deadline. The last comes a moment
// before the deadline, or after it before ctx's timer has fired, so
// ctx.Err() is still nil, and it wraps nothing: golang.org/x/time/rate's
// Limiter.Wait returns "rate: Wait(n=1) would exceed context deadline",
// which client-go's rest.Request wraps as "client rate limiter Wait
// returned an error". A caller that bounds its reads with ctx (a readiness
// wait, a check's timeout) treats such a failure as its bound reached, not
// as the server's answer.
func DeadlineReached(ctx context.Context, err error) bool {
	if err == nil {
		return false
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	_, bounded := ctx.Deadline()
	return bounded && strings.Contains(err.Error(), "would exceed context deadline")
}
