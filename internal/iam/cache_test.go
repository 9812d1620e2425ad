package iam_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
)

// An apply reads the binding's parts (the cache learns: no account, no
// member), creates the account, grants, and re-reads at once: every read
// after a write sees it.
func TestReadsAfterWritesAreFresh(t *testing.T) {
	t.Parallel()
	c := newClient(t, startFake(t, true)).EnableReadCache() // as the provider's own client
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	email := "team-a@proj.iam.gserviceaccount.com"
	member := iam.WorkloadIdentityMember("proj", "team-a", "trainer")
	var got []string
	read := func() {
		sa, found, err := c.ServiceAccount(ctx, email)
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			got = append(got, "no account")
			return
		}
		granted, err := c.HasMember(ctx, iam.ServiceAccountResource(email), iam.WorkloadIdentityUser, member)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%q granted=%v", sa.GetDisplayName(), granted))
	}
	read()
	read()
	sa, err := c.CreateServiceAccount(ctx, "proj", "team-a", "Team A", "")
	if err != nil {
		t.Fatal(err)
	}
	read()
	if err := c.AddMember(ctx, iam.ServiceAccountResource(email), iam.WorkloadIdentityUser, member); err != nil {
		t.Fatal(err)
	}
	read()
	if _, err := c.DescribeServiceAccount(ctx, sa, "Team A trainers", ""); err != nil {
		t.Fatal(err)
	}
	read()
	if err := c.RemoveMember(ctx, iam.ServiceAccountResource(email), iam.WorkloadIdentityUser, member); err != nil {
		t.Fatal(err)
	}
	read()
	if err := c.DeleteServiceAccount(ctx, email); err != nil {
		t.Fatal(err)
	}
	read()
	want := []string{"no account", "no account", `"Team A" granted=false`, `"Team A" granted=true`,
		`"Team A trainers" granted=true`, `"Team A trainers" granted=false`, "no account"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
}

// Many bindings on one Google service account (a plan): one listing of its
// project's accounts and one GetIamPolicy, however many ask at once.
func TestSharedAccountIsReadOnce(t *testing.T) {
	t.Parallel()
	srv := startFake(t, true)
	email := givenAccount(t, srv, "shared")
	c := newClient(t, srv).EnableReadCache() // as the provider's own client
	ctx := context.Background()
	for i := range 3 {
		if err := c.AddMember(ctx, iam.ServiceAccountResource(email), iam.WorkloadIdentityUser, iam.WorkloadIdentityMember("proj", fmt.Sprint("team-", i), "trainer")); err != nil {
			t.Fatal(err)
		}
	}
	srv.ResetRequests()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, found, err := c.ServiceAccount(ctx, email); err != nil || !found {
				t.Errorf("ServiceAccount: found=%v err=%v", found, err)
			}
			ok, err := c.HasMember(ctx, iam.ServiceAccountResource(email), iam.WorkloadIdentityUser, iam.WorkloadIdentityMember("proj", fmt.Sprint("team-", i%3), "trainer"))
			if err != nil || !ok {
				t.Errorf("HasMember team-%d: %v %v", i%3, ok, err)
			}
		})
	}
	wg.Wait()
	want := map[string]int{"/google.iam.admin.v1.IAM/ListServiceAccounts": 1, "/google.iam.admin.v1.IAM/GetIamPolicy": 1}
	if diff := cmp.Diff(want, srv.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// A plan reading the accounts of many teams of one project lists the
// project once; an account the list does not hold is asked for, to confirm
// it is absent.
func TestAccountsOfAProjectAreListedOnce(t *testing.T) {
	t.Parallel()
	srv := startFake(t, true)
	var emails []string
	for i := range 5 {
		emails = append(emails, givenAccount(t, srv, fmt.Sprint("team-", i)))
	}
	c := newClient(t, srv).EnableReadCache()
	ctx := context.Background()
	srv.ResetRequests()
	var wg sync.WaitGroup
	for _, email := range emails {
		wg.Go(func() {
			if sa, found, err := c.ServiceAccount(ctx, email); err != nil || !found || sa.GetEmail() != email {
				t.Errorf("ServiceAccount %s: %v found=%v err=%v", email, sa, found, err)
			}
		})
	}
	wg.Wait()
	if _, found, err := c.ServiceAccount(ctx, "gone@proj.iam.gserviceaccount.com"); err != nil || found {
		t.Errorf("absent account: found=%v err=%v", found, err)
	}
	want := map[string]int{"/google.iam.admin.v1.IAM/ListServiceAccounts": 1, "/google.iam.admin.v1.IAM/GetServiceAccount": 1}
	if diff := cmp.Diff(want, srv.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	// A listed account changed by this client is read anew, not from the list.
	sa, _, err := c.ServiceAccount(ctx, emails[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.DescribeServiceAccount(ctx, sa, "renamed", ""); err != nil {
		t.Fatal(err)
	}
	if sa, _, err := c.ServiceAccount(ctx, emails[0]); err != nil || sa.GetDisplayName() != "renamed" {
		t.Errorf("after the rename, read %q, %v", sa.GetDisplayName(), err)
	}
}

// A client that did not enable the cache (a test's, an operator tool's)
// sees what others wrote since its last read.
func TestWithoutReadCacheOthersWritesAreSeen(t *testing.T) {
	t.Parallel()
	srv := startFake(t, true)
	email := givenAccount(t, srv, "plain-reader")
	reader, writer := newClient(t, srv), newClient(t, srv)
	ctx := context.Background()
	res, member := iam.ServiceAccountResource(email), iam.WorkloadIdentityMember("proj", "team-a", "trainer")
	for _, want := range []bool{false, true} {
		if want {
			if err := writer.AddMember(ctx, res, iam.WorkloadIdentityUser, member); err != nil {
				t.Fatal(err)
			}
		}
		got, err := reader.HasMember(ctx, res, iam.WorkloadIdentityUser, member)
		if err != nil || got != want {
			t.Errorf("HasMember = %v, %v; want %v", got, err, want)
		}
	}
}

// A project with more accounts than a page holds is listed page by page:
// an account on the last page is found in the listing, not asked for.
func TestAccountListingFollowsPages(t *testing.T) {
	t.Parallel()
	srv := startFake(t, true)
	var last string
	for i := range 250 {
		last = givenAccount(t, srv, fmt.Sprintf("team-%03d", i))
	}
	c := newClient(t, srv).EnableReadCache()
	srv.ResetRequests()
	if sa, found, err := c.ServiceAccount(context.Background(), last); err != nil || !found || sa.GetEmail() != last {
		t.Fatalf("ServiceAccount %s: %v found=%v err=%v", last, sa, found, err)
	}
	want := map[string]int{"/google.iam.admin.v1.IAM/ListServiceAccounts": 3} // pages of 100
	if diff := cmp.Diff(want, srv.Requests()); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
