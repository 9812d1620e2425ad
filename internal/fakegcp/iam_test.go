package fakegcp_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"cloud.google.com/go/iam"
	admin "cloud.google.com/go/iam/admin/apiv1"
	adminpb "cloud.google.com/go/iam/admin/apiv1/adminpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
)

const wiUser = iam.RoleName("roles/iam.workloadIdentityUser")

func member(ns, ksa string) string {
	return "serviceAccount:" + project + ".svc.id.goog[" + ns + "/" + ksa + "]"
}

func createSA(t *testing.T, e *env, id string) *adminpb.ServiceAccount {
	t.Helper()
	sa, err := e.ic.CreateServiceAccount(context.Background(), &adminpb.CreateServiceAccountRequest{
		Name: "projects/" + project, AccountId: id, ServiceAccount: &adminpb.ServiceAccount{DisplayName: id},
	})
	if err != nil {
		t.Fatalf("CreateServiceAccount: %v", err)
	}
	return sa
}

func TestIAMPolicyEtag(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.srv.Container.AddCluster(project, location, "c", true)
	ctx := context.Background()
	sa := createSA(t, e, "trainer-gsa")
	if want := "trainer-gsa@" + project + ".iam.gserviceaccount.com"; sa.Email != want {
		t.Fatalf("email = %q, want %q", sa.Email, want)
	}
	get := func() *iam.Policy {
		t.Helper()
		p, err := e.ic.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: "projects/-/serviceAccounts/" + sa.Email})
		if err != nil {
			t.Fatalf("GetIamPolicy: %v", err)
		}
		return p
	}
	set := func(p *iam.Policy) (*iam.Policy, error) {
		return e.ic.SetIamPolicy(ctx, &admin.SetIamPolicyRequest{Resource: sa.Name, Policy: p})
	}

	first, stale := get(), get()
	first.Add(member("ml", "a"), wiUser)
	written, err := set(first)
	if err != nil {
		t.Fatalf("read-modify-write: %v", err)
	}
	if string(written.InternalProto.Etag) == string(first.InternalProto.Etag) {
		t.Error("etag did not change on write")
	}
	// Writing with the etag read before the first write: ABORTED.
	stale.Add(member("ml", "b"), wiUser)
	_, err = set(stale)
	wantCode(t, err, codes.Aborted, "There were concurrent policy changes. Please retry the whole read-modify-write with exponential backoff.")

	// Fresh read-modify-write works.
	cur := get()
	cur.Add(member("ml", "b"), wiUser)
	if _, err := set(cur); err != nil {
		t.Fatalf("second read-modify-write: %v", err)
	}
	// No etag: blind write, replaces the policy.
	blind := &iam.Policy{InternalProto: &iampb.Policy{Bindings: []*iampb.Binding{{Role: string(wiUser), Members: []string{member("ml", "c")}}}}}
	if _, err := set(blind); err != nil {
		t.Fatalf("blind write: %v", err)
	}
	want := &iampb.Policy{Version: 1, Bindings: []*iampb.Binding{{Role: string(wiUser), Members: []string{member("ml", "c")}}}}
	if diff := cmp.Diff(want, get().InternalProto, protocmp.Transform(), protocmp.IgnoreFields(&iampb.Policy{}, "etag")); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
}

func TestIAMServiceAccountNotFound(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	ghost := "projects/" + project + "/serviceAccounts/ghost@" + project + ".iam.gserviceaccount.com"
	calls := []struct {
		name string
		call func() error
	}{
		{"GetServiceAccount", func() error {
			_, err := e.ic.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: ghost})
			return err
		}},
		{"DeleteServiceAccount", func() error {
			return e.ic.DeleteServiceAccount(ctx, &adminpb.DeleteServiceAccountRequest{Name: ghost})
		}},
		{"GetIamPolicy", func() error {
			_, err := e.ic.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: ghost})
			return err
		}},
		{"SetIamPolicy", func() error {
			_, err := e.ic.SetIamPolicy(ctx, &admin.SetIamPolicyRequest{Resource: ghost, Policy: &iam.Policy{InternalProto: &iampb.Policy{}}})
			return err
		}},
	}
	for _, tt := range calls {
		if err := tt.call(); statusCode(err) != codes.NotFound {
			t.Errorf("%s: want NotFound, got %v", tt.name, err)
		}
	}
	// Deleted accounts are gone too.
	sa := createSA(t, e, "short-lived")
	if err := e.ic.DeleteServiceAccount(ctx, &adminpb.DeleteServiceAccountRequest{Name: sa.Name}); err != nil {
		t.Fatal(err)
	}
	_, err := e.ic.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: sa.Name})
	wantCode(t, err, codes.NotFound)
	_, err = e.ic.CreateServiceAccount(ctx, &adminpb.CreateServiceAccountRequest{Name: "projects/" + project, AccountId: "x"})
	wantCode(t, err, codes.InvalidArgument)
}

// TestWorkloadIdentityPoolMustExist: binding PROJECT.svc.id.goog[ns/ksa] needs a
// cluster of PROJECT with Workload Identity.
func TestWorkloadIdentityPoolMustExist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		seed     func(e *env)
		wantCode codes.Code
	}{
		{name: "no cluster", seed: func(*env) {}, wantCode: codes.InvalidArgument},
		{name: "cluster without WI", seed: func(e *env) { e.srv.Container.AddCluster(project, location, "c", false) }, wantCode: codes.InvalidArgument},
		{name: "WI cluster in another project", seed: func(e *env) { e.srv.Container.AddCluster("other-proj", location, "c", true) }, wantCode: codes.InvalidArgument},
		{name: "WI cluster", seed: func(e *env) { e.srv.Container.AddCluster(project, location, "c", true) }, wantCode: codes.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			tt.seed(e)
			ctx := context.Background()
			sa := createSA(t, e, "workload-gsa")
			p, err := e.ic.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: sa.Name})
			if err != nil {
				t.Fatal(err)
			}
			p.Add(member("ns", "ksa"), wiUser)
			_, err = e.ic.SetIamPolicy(ctx, &admin.SetIamPolicyRequest{Resource: sa.Name, Policy: p})
			if tt.wantCode == codes.OK {
				if err != nil {
					t.Fatalf("SetIamPolicy: %v", err)
				}
				return
			}
			wantCode(t, err, tt.wantCode, "Identity Pool does not exist ("+project+".svc.id.goog)")
		})
	}
}

// PatchServiceAccount changes only the fields its update mask names, and
// refuses the rest, as IAM does.
func TestIAMPatchServiceAccount(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	sa := createSA(t, e, "patch-me")
	got, err := e.ic.PatchServiceAccount(ctx, &adminpb.PatchServiceAccountRequest{
		ServiceAccount: &adminpb.ServiceAccount{Name: sa.Name, DisplayName: "Renamed", Description: "ignored"},
		UpdateMask:     &fieldmaskpb.FieldMask{Paths: []string{"display_name"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.DisplayName != "Renamed" || got.Description != "" {
		t.Errorf("after patch: display name %q, description %q; want \"Renamed\", \"\"", got.DisplayName, got.Description)
	}
	for name, mask := range map[string][]string{"no mask": nil, "email": {"email"}} {
		_, err := e.ic.PatchServiceAccount(ctx, &adminpb.PatchServiceAccountRequest{
			ServiceAccount: &adminpb.ServiceAccount{Name: sa.Name, Email: "x@y"}, UpdateMask: &fieldmaskpb.FieldMask{Paths: mask}})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: err = %v, want InvalidArgument", name, err)
		}
	}
}

// ListServiceAccounts pages as IAM does: 20 accounts a page by default, at
// most 100 whatever is asked, a token to continue (which the official
// iterator follows), and an error for a token it did not issue.
func TestIAMListServiceAccountsPages(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	for i := range 105 {
		if _, err := e.srv.IAM.AddServiceAccount(project, fmt.Sprintf("sa-%03d", i), ""); err != nil {
			t.Fatal(err)
		}
	}
	firstPage := func(size int32) int {
		t.Helper()
		it := e.ic.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + project, PageSize: size})
		if _, err := it.Next(); err != nil {
			t.Fatal(err)
		}
		if it.PageInfo().Token == "" {
			t.Errorf("page size %d: no token to continue with", size)
		}
		return 1 + it.PageInfo().Remaining()
	}
	for size, want := range map[int32]int{0: 20, 7: 7, 100: 100, 500: 100} {
		if got := firstPage(size); got != want {
			t.Errorf("page size %d: first page of %d accounts, want %d", size, got, want)
		}
	}

	e.srv.ResetRequests()
	emails := accountEmails(t, e.ic.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + project, PageSize: 100}))
	if len(emails) != 105 || !slices.IsSorted(emails) || len(slices.Compact(slices.Clone(emails))) != 105 {
		t.Errorf("got %d accounts (sorted: %v), want each of the 105 once", len(emails), slices.IsSorted(emails))
	}
	if got := e.srv.Requests()["/google.iam.admin.v1.IAM/ListServiceAccounts"]; got != 2 {
		t.Errorf("%d ListServiceAccounts requests for 105 accounts in pages of 100, want 2", got)
	}

	_, err := e.ic.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + project, PageToken: "not-a-token"}).Next()
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("made-up token: %v, want InvalidArgument", err)
	}
}

// TestIAMListServiceAccountsScopeAndPageSize: only the named project's
// accounts are listed, and a negative page size is refused.
func TestIAMListServiceAccountsScopeAndPageSize(t *testing.T) {
	t.Parallel()
	e := start(t)
	ctx := context.Background()
	for _, p := range []string{project, "other-proj"} {
		if _, err := e.srv.IAM.AddServiceAccount(p, "trainer-gsa", ""); err != nil {
			t.Fatal(err)
		}
	}
	emails := accountEmails(t, e.ic.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + project}))
	if diff := cmp.Diff([]string{"trainer-gsa@" + project + ".iam.gserviceaccount.com"}, emails); diff != "" {
		t.Errorf("accounts of %s (-want +got):\n%s", project, diff)
	}
	_, err := e.ic.ListServiceAccounts(ctx, &adminpb.ListServiceAccountsRequest{Name: "projects/" + project, PageSize: -1}).Next()
	wantCode(t, err, codes.InvalidArgument)
}
