package resources_test

import (
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }
