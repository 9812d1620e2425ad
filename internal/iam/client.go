// Package iam talks to the IAM admin API (service accounts and their IAM
// policies) through the official gRPC client (cloud.google.com/go/iam/admin/apiv1).
package iam

import (
	"context"
	"fmt"

	gcpiam "cloud.google.com/go/iam"
	admin "cloud.google.com/go/iam/admin/apiv1"
	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"google.golang.org/api/option"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/readcache"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
)

// Client is the IAM admin API client.
type Client struct {
	Admin *admin.IamClient

	// Reads shared by the resources of one provider process: a service
	// account and an IAM policy are each read once per plan, however many
	// bindings use them. Every write of the kind drops the whole cache
	// (internal/readcache), so a read after a write sees it.
	accounts readcache.Cache[string, *adminpb.ServiceAccount]            // by e-mail
	projects readcache.Cache[string, map[string]*adminpb.ServiceAccount] // a project's accounts by e-mail
	policies readcache.Cache[string, *gcpiam.Policy]                     // by resource

	retry retry.Policy // waits out UNAVAILABLE (WithRetry); zero: no retries
}

// WithRetry makes every call wait out UNAVAILABLE within p's bound, and
// returns the client.
func (c *Client) WithRetry(p retry.Policy) *Client {
	c.retry = p
	return c
}

// call runs one RPC, waiting out UNAVAILABLE.
func call[T any](ctx context.Context, c *Client, rpc func(context.Context) (T, error)) (T, error) {
	return retry.Call(ctx, c.retry, retry.Unavailable("IAM"), rpc)
}

// New builds the client; opts come from platform's client options.
func New(ctx context.Context, opts ...option.ClientOption) (*Client, error) {
	c, err := admin.NewIamClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("build the IAM client: %w", err)
	}
	out := &Client{Admin: c}
	out.accounts.Bypass, out.projects.Bypass, out.policies.Bypass = true, true, true
	return out, nil
}

// EnableReadCache makes the client remember what it read and returns it.
// Only the provider's own clients, built once per provider process, do
// this: a long-lived client, like a test's or an operator tool's, would not
// see writes made by others.
func (c *Client) EnableReadCache() *Client {
	c.accounts.Bypass, c.projects.Bypass, c.policies.Bypass = false, false, false
	return c
}

// Close releases the connection.
func (c *Client) Close() error { return c.Admin.Close() }
