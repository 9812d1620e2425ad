package iam

import (
	"context"
	"fmt"

	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// ServiceAccount reads a Google service account by e-mail; found is false
// (with a nil error) when it does not exist.
func (c *Client) ServiceAccount(ctx context.Context, email string) (sa *adminpb.ServiceAccount, found bool, err error) {
	sa, err = c.accounts.Get(ctx, email, func(ctx context.Context) (*adminpb.ServiceAccount, error) {
		return c.Admin.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: ServiceAccountResource(email)})
	})
	switch {
	case status.Code(err) == codes.NotFound:
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read Google service account %s: %w", email, err)
	}
	return proto.Clone(sa).(*adminpb.ServiceAccount), true, nil
}

// CreateServiceAccount creates ACCOUNT_ID@PROJECT.iam.gserviceaccount.com.
func (c *Client) CreateServiceAccount(ctx context.Context, project, accountID, displayName, description string) (*adminpb.ServiceAccount, error) {
	c.accounts.Invalidate()
	defer c.accounts.Invalidate()
	sa, err := c.Admin.CreateServiceAccount(ctx, &adminpb.CreateServiceAccountRequest{
		Name: "projects/" + project, AccountId: accountID,
		ServiceAccount: &adminpb.ServiceAccount{DisplayName: displayName, Description: description},
	})
	if err != nil {
		return nil, fmt.Errorf("create Google service account %s in project %s: %w", accountID, project, err)
	}
	return sa, nil
}

// DescribeServiceAccount sets the display name and description of sa.
func (c *Client) DescribeServiceAccount(ctx context.Context, sa *adminpb.ServiceAccount, displayName, description string) (*adminpb.ServiceAccount, error) {
	c.accounts.Invalidate()
	defer c.accounts.Invalidate()
	out, err := c.Admin.PatchServiceAccount(ctx, &adminpb.PatchServiceAccountRequest{
		ServiceAccount: &adminpb.ServiceAccount{Name: sa.GetName(), DisplayName: displayName, Description: description, Etag: sa.GetEtag()},
		UpdateMask:     &fieldmaskpb.FieldMask{Paths: []string{"display_name", "description"}},
	})
	if err != nil {
		return nil, fmt.Errorf("update Google service account %s: %w", sa.GetEmail(), err)
	}
	return out, nil
}

// DeleteServiceAccount deletes the account; one already gone is no error.
func (c *Client) DeleteServiceAccount(ctx context.Context, email string) error {
	// The account's policy goes with it.
	c.accounts.Invalidate()
	c.policies.Invalidate()
	defer c.accounts.Invalidate()
	defer c.policies.Invalidate()
	err := c.Admin.DeleteServiceAccount(ctx, &adminpb.DeleteServiceAccountRequest{Name: ServiceAccountResource(email)})
	if err != nil && status.Code(err) != codes.NotFound {
		return fmt.Errorf("delete Google service account %s: %w", email, err)
	}
	return nil
}
