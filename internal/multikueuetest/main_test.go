// Package multikueuetest runs the MultiKueue acceptance tests: a manager and
// two worker clusters (three API servers, three Kueue managers, one GKE fake
// holding the three clusters with their endpoints), started once for the
// package, so the single-cluster packages stay as fast as they are.
package multikueuetest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

var multi *testenv.Multi

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	if os.Getenv("TF_ACC") == "" {
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	flag.Parse()
	opts := testenv.Options{}
	if testing.Verbose() {
		opts.Log = os.Stderr
	}
	mu, err := testenv.StartMulti(ctx, opts, 2)
	if err != nil {
		fmt.Fprintln(os.Stderr, "MultiKueue acceptance tests: could not start the manager and workers:", err)
		return 1
	}
	defer mu.Stop()
	multi = mu
	// The provider's access_token, from the environment: the token every API
	// server accepts in place of GKE's IAM-authenticated access.
	_ = os.Setenv("GOOGLE_OAUTH_ACCESS_TOKEN", mu.Manager.GoogleAccessToken)
	return m.Run()
}

// envs returns the manager and workers, skipping the test without TF_ACC.
func envs(t *testing.T) *testenv.Multi {
	t.Helper()
	if multi == nil {
		t.Skip("acceptance test: set TF_ACC=1 (make testacc) to run against a local manager and two workers")
	}
	return multi
}
