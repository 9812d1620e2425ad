package report_test

import (
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// With TF_ACC set, one local control plane (etcd, kube-apiserver, Kueue and
// the GKE/IAM fake) serves every acceptance test of this package.
func TestMain(m *testing.M) { acctest.Main(m) }
