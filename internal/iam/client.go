// Package iam talks to the IAM admin API (service accounts and their IAM
// policies) through the official gRPC client (cloud.google.com/go/iam/admin/apiv1).
package iam

import (
	"context"
	"fmt"

	admin "cloud.google.com/go/iam/admin/apiv1"
	"google.golang.org/api/option"
)

// Client is the IAM admin API client.
type Client struct {
	Admin *admin.IamClient
}

// New builds the client; opts come from platform's client options.
func New(ctx context.Context, opts ...option.ClientOption) (*Client, error) {
	c, err := admin.NewIamClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("build the IAM client: %w", err)
	}
	return &Client{Admin: c}, nil
}

// Close releases the connection.
func (c *Client) Close() error { return c.Admin.Close() }
