package acctest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// CLI runs the real Terraform CLI in a directory, with the provider built
// from this tree registered through dev_overrides (no registry, no init).
type CLI struct {
	t   testing.TB
	ctx context.Context
	tf  string
	Dir string
	Env []string
}

// NewCLI builds the provider from root (the repository) and prepares a CLI
// for a fresh working directory, with env added to the environment (e.g.
// MLPLATFORM_* settings for the example's empty provider block). It skips
// the test when no Terraform CLI is found.
func NewCLI(ctx context.Context, t testing.TB, root string, env ...string) *CLI {
	t.Helper()
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		var err error
		if tf, err = exec.LookPath("terraform"); err != nil {
			t.Skip("no terraform on PATH and TF_ACC_TERRAFORM_PATH unset")
		}
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "terraform-provider-mlplatform"), ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the provider: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(tmp, "terraformrc"), []byte(testenv.TerraformRC(bin)), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "work")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return &CLI{t: t, ctx: ctx, tf: tf, Dir: dir, Env: append(append(os.Environ(),
		"TF_CLI_CONFIG_FILE="+filepath.Join(tmp, "terraformrc"), "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1"), env...)}
}

// Run runs terraform with args and returns its stdout; the test fails on a
// non-zero exit.
func (c *CLI) Run(args ...string) []byte {
	c.t.Helper()
	out, code := c.RunCode(args...)
	if code != 0 {
		c.t.Fatalf("terraform %v exited %d:\n%s", args, code, out)
	}
	return out
}

// RunCode runs terraform with args and returns its output (stdout, then
// stderr) and exit code, for commands whose exit code is the result (plan
// -detailed-exitcode).
func (c *CLI) RunCode(args ...string) ([]byte, int) {
	c.t.Helper()
	cmd := exec.CommandContext(c.ctx, c.tf, args...)
	cmd.Dir, cmd.Env = c.Dir, c.Env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return append(out, stderr.Bytes()...), exit.ExitCode()
	case err != nil:
		c.t.Fatalf("terraform %v: %v", args, err)
	}
	return out, 0
}

// Started is a terraform command running in the background (Start).
type Started struct {
	Cmd *exec.Cmd
	out bytes.Buffer
}

// Start runs terraform with args in the background; Wait collects it.
func (c *CLI) Start(args ...string) *Started {
	c.t.Helper()
	s := &Started{Cmd: exec.CommandContext(c.ctx, c.tf, args...)}
	s.Cmd.Dir, s.Cmd.Env = c.Dir, c.Env
	s.Cmd.Stdout, s.Cmd.Stderr = &s.out, &s.out
	if err := s.Cmd.Start(); err != nil {
		c.t.Fatalf("terraform %v: %v", args, err)
	}
	return s
}

// Wait waits for the command and returns its output and exit code.
func (s *Started) Wait() ([]byte, int) {
	err := s.Cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return s.out.Bytes(), exit.ExitCode()
	}
	return s.out.Bytes(), 0
}

// RequiredProviders is the terraform block a configuration of this provider
// run by the CLI starts with.
const RequiredProviders = "terraform {\n  required_providers {\n    mlplatform = { source = \"mlplatform/mlplatform\" }\n  }\n}\n"

// Write writes cfg (after RequiredProviders) as the directory's main.tf.
func (c *CLI) Write(cfg string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.Dir, "main.tf"), []byte(RequiredProviders+cfg), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

// DestroyAtEnd destroys what the directory's state holds when the test
// ends (a failed destroy fails the test).
func (c *CLI) DestroyAtEnd() {
	c.t.Cleanup(func() {
		if out, code := c.RunCode("destroy", "-auto-approve", "-input=false", "-no-color"); code != 0 {
			c.t.Errorf("destroy exited %d:\n%s", code, out)
		}
	})
}

// Apply writes cfg (Write), applies it, and destroys it when the test ends.
func (c *CLI) Apply(cfg string) []byte {
	c.t.Helper()
	c.Write(cfg)
	c.DestroyAtEnd()
	return c.Run("apply", "-auto-approve", "-input=false", "-no-color")
}

// PlanChecked runs `terraform plan -out=FILE` and the plan checks on its
// JSON (`terraform show -json`), as terraform-plugin-testing's
// ConfigPlanChecks do for its own steps; a failed check fails the test. It
// returns the plan file, for `terraform apply FILE`.
func (c *CLI) PlanChecked(checks ...plancheck.PlanCheck) string {
	c.t.Helper()
	const file = "checked.tfplan"
	c.Run("plan", "-input=false", "-no-color", "-out="+file)
	var plan tfjson.Plan
	if err := json.Unmarshal(c.Run("show", "-json", file), &plan); err != nil {
		c.t.Fatalf("terraform show -json %s: %v", file, err)
	}
	for _, check := range checks {
		var resp plancheck.CheckPlanResponse
		check.CheckPlan(c.ctx, plancheck.CheckPlanRequest{Plan: &plan}, &resp)
		if resp.Error != nil {
			c.t.Errorf("plan check: %v\n%s", resp.Error, c.Run("show", "-no-color", file))
		}
	}
	if c.t.Failed() {
		c.t.FailNow()
	}
	return file
}
