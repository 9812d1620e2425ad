package iam

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"google.golang.org/api/iterator"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

// ServiceAccount reads a Google service account by e-mail; found is false
// (with a nil error) when it does not exist.
//
// With the read cache on, the first read of an account of a project lists
// the project's accounts (one request, or one per 100 accounts, instead of
// one per account: IAM quota is per project), and an account the list does
// not hold is read with a GET, so absence is always confirmed.
func (c *Client) ServiceAccount(ctx context.Context, email string) (sa *adminpb.ServiceAccount, found bool, err error) {
	sa, err = c.accounts.Get(ctx, email, func(ctx context.Context) (*adminpb.ServiceAccount, error) {
		if listed := c.listedAccount(ctx, email); listed != nil {
			return listed, nil
		}
		return call(ctx, c, func(ctx context.Context) (*adminpb.ServiceAccount, error) {
			return c.Admin.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: ServiceAccountResource(email)})
		})
	})
	switch {
	case status.Code(err) == codes.NotFound:
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read Google service account %s: %w", email, err)
	}
	return proto.Clone(sa).(*adminpb.ServiceAccount), true, nil
}

// listedAccount looks email up in one listing of its project's accounts
// (cached with the accounts); nil when the cache is off, the e-mail names
// no project (user-managed accounts are ACCOUNT@PROJECT.iam.gserviceaccount.com),
// the list fails or does not hold it.
func (c *Client) listedAccount(ctx context.Context, email string) *adminpb.ServiceAccount {
	_, domain, ok := strings.Cut(email, "@")
	project, isProject := strings.CutSuffix(domain, ".iam.gserviceaccount.com")
	if c.projects.Bypass || !ok || !isProject || project == "" {
		return nil
	}
	byEmail, err := c.projects.Get(ctx, project, func(ctx context.Context) (map[string]*adminpb.ServiceAccount, error) {
		return call(ctx, c, func(ctx context.Context) (map[string]*adminpb.ServiceAccount, error) { // a failed page lists again
			m := map[string]*adminpb.ServiceAccount{}
			it := c.Admin.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + project, PageSize: 100})
			for {
				sa, err := it.Next()
				if errors.Is(err, iterator.Done) {
					return m, nil
				}
				if err != nil {
					return nil, err
				}
				m[sa.GetEmail()] = sa
			}
		})
	})
	if err != nil {
		return nil
	}
	return byEmail[email]
}

// ErrRetriedCreate is joined to the ALREADY_EXISTS error of a create that
// was sent again after an attempt IAM answered UNAVAILABLE: that attempt
// may have been served, so the account found may be the one it made.
var ErrRetriedCreate = errors.New("the create was retried after an attempt IAM may have served")

// CreateServiceAccount creates ACCOUNT_ID@PROJECT.iam.gserviceaccount.com.
// An ALREADY_EXISTS answer to a retried attempt wraps ErrRetriedCreate too.
func (c *Client) CreateServiceAccount(ctx context.Context, project, accountID, displayName, description string) (*adminpb.ServiceAccount, error) {
	c.invalidateAccounts()
	defer c.invalidateAccounts()
	attempts := 0
	sa, err := call(ctx, c, func(ctx context.Context) (*adminpb.ServiceAccount, error) {
		attempts++
		return c.Admin.CreateServiceAccount(ctx, &adminpb.CreateServiceAccountRequest{
			Name: "projects/" + project, AccountId: accountID,
			ServiceAccount: &adminpb.ServiceAccount{DisplayName: displayName, Description: description},
		})
	})
	if status.Code(err) == codes.AlreadyExists && attempts > 1 {
		err = errors.Join(err, ErrRetriedCreate)
	}
	if err != nil {
		return nil, fmt.Errorf("create Google service account %s in project %s: %w", accountID, project, err)
	}
	return sa, nil
}

// DescribeServiceAccount sets the display name and description of sa. IAM
// answers a patch with the account's name and the patched fields only (no
// e-mail, etag or ids): read the account again for the rest.
func (c *Client) DescribeServiceAccount(ctx context.Context, sa *adminpb.ServiceAccount, displayName, description string) (*adminpb.ServiceAccount, error) {
	c.invalidateAccounts()
	defer c.invalidateAccounts()
	out, err := call(ctx, c, func(ctx context.Context) (*adminpb.ServiceAccount, error) {
		return c.Admin.PatchServiceAccount(ctx, &adminpb.PatchServiceAccountRequest{
			ServiceAccount: &adminpb.ServiceAccount{Name: sa.GetName(), DisplayName: displayName, Description: description, Etag: sa.GetEtag()},
			UpdateMask:     &fieldmaskpb.FieldMask{Paths: []string{"display_name", "description"}},
		})
	})
	if err != nil {
		return nil, fmt.Errorf("update Google service account %s: %w", sa.GetEmail(), err)
	}
	return out, nil
}

// DeleteServiceAccount deletes the account; one already gone is no error.
func (c *Client) DeleteServiceAccount(ctx context.Context, email string) error {
	// The account's policy goes with it.
	c.invalidateAccounts()
	c.policies.Invalidate()
	defer c.invalidateAccounts()
	defer c.policies.Invalidate()
	_, err := call(ctx, c, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.Admin.DeleteServiceAccount(ctx, &adminpb.DeleteServiceAccountRequest{Name: ServiceAccountResource(email)})
	})
	if err != nil && status.Code(err) != codes.NotFound {
		return fmt.Errorf("delete Google service account %s: %w", email, err)
	}
	return nil
}

// invalidateAccounts drops every account read and every project listing;
// writers of accounts call it before and after each write.
func (c *Client) invalidateAccounts() {
	c.accounts.Invalidate()
	c.projects.Invalidate()
}
