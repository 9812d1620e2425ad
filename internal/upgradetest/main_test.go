// Package upgradetest runs the upgrade users take: a platform applied with
// the oldest supported Kueue, then Kueue replaced by the newest on the same
// etcd and API server. Its environment starts on the oldest Kueue, so it is
// a package of its own.
package upgradetest

import (
	"fmt"
	"os"
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// TestMain runs the package on the oldest supported Kueue, which `make
// compat` builds (scripts/tools.sh compat). Without it (`make testacc` from a
// cold cache builds the newest Kueue only) the package says so and runs
// nothing.
func TestMain(m *testing.M) {
	if os.Getenv("TF_ACC") != "" && os.Getenv(testenv.EnvBinsOldest) == "" {
		fmt.Printf("upgradetest: %s is not set, so the upgrade from the oldest supported Kueue is not tested here: run make compat\n", testenv.EnvBinsOldest)
		os.Exit(0)
	}
	acctest.MainWith(m, func(o *testenv.Options) error {
		o.KueueBinDir = os.Getenv(testenv.EnvBinsOldest)
		return nil
	})
}
