package iam_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/fakegcp"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
)

// startFake serves the GKE/IAM fake with one cluster, with or without a
// Workload Identity pool.
func startFake(t *testing.T, workloadIdentity bool) *fakegcp.Server {
	t.Helper()
	srv := fakegcp.New()
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.Container.AddCluster("proj", "us-central1", "training", workloadIdentity)
	return srv
}

// newClient is an IAM client of srv, closed when the test ends.
func newClient(t *testing.T, srv *fakegcp.Server) *iam.Client {
	t.Helper()
	c, err := iam.New(context.Background(), srv.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// givenAccount seeds ACCOUNT_ID@proj.iam.gserviceaccount.com.
func givenAccount(t *testing.T, srv *fakegcp.Server, accountID string) string {
	t.Helper()
	sa, err := srv.IAM.AddServiceAccount("proj", accountID, accountID)
	if err != nil {
		t.Fatal(err)
	}
	return sa.Email
}

func setup(t *testing.T, workloadIdentity bool) (*iam.Client, string) {
	t.Helper()
	srv := startFake(t, workloadIdentity)
	return newClient(t, srv), iam.ServiceAccountResource(givenAccount(t, srv, "trainer"))
}

// Many writers bind their own members at once: every stale-etag write is
// retried, and no binding is lost.
func TestAddMemberConcurrentWritersLoseNothing(t *testing.T) {
	t.Parallel()
	c, sa := setup(t, true)
	ctx := context.Background()
	const writers = 24
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- c.AddMember(ctx, sa, iam.WorkloadIdentityUser, iam.WorkloadIdentityMember("proj", fmt.Sprintf("team-%d", i), "trainer"))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("AddMember: %v", err)
		}
	}
	for i := range writers {
		m := iam.WorkloadIdentityMember("proj", fmt.Sprintf("team-%d", i), "trainer")
		if ok, err := c.HasMember(ctx, sa, iam.WorkloadIdentityUser, m); err != nil || !ok {
			t.Errorf("binding of %s lost (err=%v)", m, err)
		}
	}
}

func TestRemoveMemberLeavesOthers(t *testing.T) {
	t.Parallel()
	c, sa := setup(t, true)
	ctx := context.Background()
	mine, theirs := iam.WorkloadIdentityMember("proj", "vision", "trainer"), iam.WorkloadIdentityMember("proj", "nlp", "trainer")
	for _, m := range []string{mine, theirs} {
		if err := c.AddMember(ctx, sa, iam.WorkloadIdentityUser, m); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.RemoveMember(ctx, sa, iam.WorkloadIdentityUser, mine); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.HasMember(ctx, sa, iam.WorkloadIdentityUser, mine); ok {
		t.Error("own member still bound")
	}
	if ok, _ := c.HasMember(ctx, sa, iam.WorkloadIdentityUser, theirs); !ok {
		t.Error("another member's binding was removed")
	}
	if err := c.RemoveMember(ctx, sa, iam.WorkloadIdentityUser, mine); err != nil {
		t.Errorf("removing an absent member should be a no-op: %v", err)
	}
}

// Without a workload pool the grant fails with IAM's own words, unretried.
func TestAddMemberWithoutWorkloadPool(t *testing.T) {
	t.Parallel()
	c, sa := setup(t, false)
	err := c.AddMember(context.Background(), sa, iam.WorkloadIdentityUser, iam.WorkloadIdentityMember("proj", "vision", "trainer"))
	if err == nil || !strings.Contains(err.Error(), "Identity Pool does not exist (proj.svc.id.goog)") {
		t.Fatalf("want Identity Pool does not exist, got %v", err)
	}
}
