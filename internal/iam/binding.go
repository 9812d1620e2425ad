package iam

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	gcpiam "cloud.google.com/go/iam"
	admin "cloud.google.com/go/iam/admin/apiv1"
	"cloud.google.com/go/iam/apiv1/iampb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// WorkloadIdentityUser is the role that lets a Kubernetes service account act
// as a Google service account.
const WorkloadIdentityUser = "roles/iam.workloadIdentityUser"

// ServiceAccountResource is the IAM resource name of a Google service account.
func ServiceAccountResource(email string) string { return "projects/-/serviceAccounts/" + email }

// WorkloadIdentityMember is the IAM member of a Kubernetes service account.
func WorkloadIdentityMember(project, namespace, ksa string) string {
	return fmt.Sprintf("serviceAccount:%s.svc.id.goog[%s/%s]", project, namespace, ksa)
}

// ErrPolicyContention is returned (wrapped) when the policy kept changing
// under every read-modify-write attempt.
var ErrPolicyContention = errors.New("IAM policy kept changing")

// PolicyRetryBudget bounds how long a read-modify-write is retried on ABORTED
// (a stale etag: someone else wrote the policy between our read and write).
// The context's deadline, when sooner, wins.
const PolicyRetryBudget = 2 * time.Minute

// Backoff between attempts grows exponentially from policyBackoffBase to
// policyBackoffCap, with full jitter: writers that collided once must not
// retry in lock step and collide again.
const (
	policyBackoffBase = 20 * time.Millisecond
	policyBackoffCap  = 2 * time.Second
)

// AddMember grants role to member on the service account, touching nothing
// else in its policy (non-authoritative). The policy is read, changed and
// written with its etag; a concurrent writer makes the write fail with
// ABORTED, and the whole read-modify-write is retried, so no grant of ours
// or theirs is lost.
func (c *Client) AddMember(ctx context.Context, resource, role, member string) error {
	return c.modify(ctx, resource, func(p *gcpiam.Policy) bool {
		if p.HasRole(member, gcpiam.RoleName(role)) {
			return false
		}
		p.Add(member, gcpiam.RoleName(role))
		return true
	})
}

// RemoveMember revokes role from member only; other members keep theirs.
func (c *Client) RemoveMember(ctx context.Context, resource, role, member string) error {
	return c.modify(ctx, resource, func(p *gcpiam.Policy) bool {
		if !p.HasRole(member, gcpiam.RoleName(role)) {
			return false
		}
		p.Remove(member, gcpiam.RoleName(role))
		return true
	})
}

// HasMember reports whether member holds role on the service account.
func (c *Client) HasMember(ctx context.Context, resource, role, member string) (bool, error) {
	p, err := c.policies.Get(ctx, resource, func(ctx context.Context) (*gcpiam.Policy, error) {
		return c.getPolicy(ctx, resource)
	})
	if err != nil {
		return false, fmt.Errorf("read the IAM policy of %s: %w", resource, err)
	}
	return p.HasRole(member, gcpiam.RoleName(role)), nil // reads only: the cached policy is shared
}

func (c *Client) modify(ctx context.Context, resource string, change func(*gcpiam.Policy) bool) error {
	start := time.Now()
	backoff := policyBackoffBase
	for attempt := 1; ; attempt++ {
		// Always read fresh, never from the cache: the write carries this
		// read's etag.
		p, err := c.getPolicy(ctx, resource)
		if err != nil {
			return fmt.Errorf("read the IAM policy of %s: %w", resource, err)
		}
		if !change(p) {
			return nil // already as wanted: no write
		}
		c.policies.Invalidate()
		_, err = call(ctx, c, func(ctx context.Context) (*gcpiam.Policy, error) {
			return c.Admin.SetIamPolicy(ctx, &admin.SetIamPolicyRequest{Resource: resource, Policy: p})
		})
		c.policies.Invalidate()
		if status.Code(err) != codes.Aborted {
			if err != nil {
				return fmt.Errorf("write the IAM policy of %s: %w", resource, err)
			}
			return nil
		}
		wait := rand.N(backoff) + time.Millisecond
		if elapsed := time.Since(start); elapsed+wait > PolicyRetryBudget {
			return fmt.Errorf("the IAM policy of %s changed under each of %d read-modify-write attempts over %s (other writers are busy on it); "+
				"run the apply again: %w (last error: %v)", resource, attempt, elapsed.Round(time.Second), ErrPolicyContention, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("write the IAM policy of %s after %d attempts: %w (last error: %v)", resource, attempt, ctx.Err(), err)
		case <-time.After(wait):
		}
		backoff = min(2*backoff, policyBackoffCap)
	}
}

// getPolicy reads a policy, waiting out UNAVAILABLE.
func (c *Client) getPolicy(ctx context.Context, resource string) (*gcpiam.Policy, error) {
	return call(ctx, c, func(ctx context.Context) (*gcpiam.Policy, error) {
		return c.Admin.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: resource})
	})
}
