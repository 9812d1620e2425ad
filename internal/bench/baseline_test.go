package bench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// Terraform alone plans as many resource instances as the platform it
// stands for, in as many module instances, and its second plan is empty.
func TestAccBaselineHasThePlatformsShape(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("TF_ACC unset: runs the Terraform CLI")
	}
	t.Parallel()
	const n = 3
	cli := acctest.NewCLI(context.Background(), t, filepath.Join("..", ".."))
	if err := WriteExample(cli.Dir, Baseline(n)); err != nil {
		t.Fatal(err)
	}
	cli.Run("init", "-input=false", "-no-color")
	cli.Run("plan", "-input=false", "-no-color", "-out=plan.bin")
	var plan struct {
		ResourceChanges []struct {
			Address       string `json:"address"`
			ModuleAddress string `json:"module_address"`
			Change        struct {
				Actions []string `json:"actions"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal(cli.Run("show", "-json", "plan.bin"), &plan); err != nil {
		t.Fatal(err)
	}
	modules := map[string]bool{}
	for _, rc := range plan.ResourceChanges {
		if len(rc.Change.Actions) != 1 || rc.Change.Actions[0] != "create" {
			t.Errorf("%s: actions %v, want create", rc.Address, rc.Change.Actions)
		}
		if rc.ModuleAddress != "" {
			modules[rc.ModuleAddress] = true
		}
	}
	example, err := LoadExample(filepath.Join("..", "..", Example))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(plan.ResourceChanges), Resources(example, n); got != want {
		t.Errorf("%d resource instances, want as many as %s declares at %d teams: %d", got, Example, n, want)
	}
	if len(modules) != n {
		t.Errorf("%d module instances, want one per team (%d)", len(modules), n)
	}
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color", "plan.bin")
	if out, code := cli.RunCode("plan", "-input=false", "-no-color", "-detailed-exitcode"); code != 0 {
		t.Errorf("plan after apply exited %d, want 0 (empty):\n%s", code, out)
	}
}
