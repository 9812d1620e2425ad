package main

import (
	"context"
	"io"
	"os"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
)

// doctorCmd runs `mlplatform doctor` (internal/doctor) and returns its exit
// code: 0 all checks passed, 1 could not run, 2 usage, 6 findings (as the
// report's --fail-on checks).
func doctorCmd(args []string, stdout, stderr io.Writer) int {
	return doctor.Command(context.Background(), args, stdout, stderr, os.Getenv)
}
