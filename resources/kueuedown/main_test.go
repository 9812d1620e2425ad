// Package kueuedown tests how applies ride out a Kueue manager that stops
// answering. It has an environment of its own (acctest.Main): freezing
// Kueue would stall every other package's tests.
package kueuedown

import (
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func TestMain(m *testing.M) { acctest.Main(m) }
