// Package doctortest runs `mlplatform doctor` against the real control plane
// (kube-apiserver, etcd, the Kueue manager, the GKE fake) and breaks the
// platform one way at a time. It has an environment of its own
// (acctest.Main): one of its tests freezes Kueue, which would stall every
// other package's tests.
package doctortest

import (
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }
