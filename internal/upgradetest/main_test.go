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

func TestMain(m *testing.M) {
	acctest.MainWith(m, func(o *testenv.Options) error {
		o.KueueBinDir = os.Getenv(testenv.EnvBinsOldest)
		if o.KueueBinDir == "" {
			return fmt.Errorf("%s is not set: run scripts/tools.sh (make tools) and source the tools.env it writes", testenv.EnvBinsOldest)
		}
		return nil
	})
}
