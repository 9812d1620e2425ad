package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The test binary doubles as the sandbox supervisor: `sandbox up` re-executes
// os.Executable() with "sandbox serve".
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "sandbox" && os.Args[2] == "serve" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line, ok := strings.CutPrefix(s.Text(), "export ")
		if !ok {
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		out[k] = v
	}
	return out
}

func TestSandboxUpDown(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("starts the real control plane: run with TF_ACC=1 (make testacc)")
	}
	dir := filepath.Join(t.TempDir(), "sandbox")
	providerDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(providerDir, "terraform-provider-mlplatform"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"sandbox", "up", "--dir", dir, "--provider-dir", providerDir}, &out, &out); code != 0 {
		t.Fatalf("sandbox up exited %d:\n%s", code, out.String())
	}
	t.Log(out.String())
	supervisor, ok := readPid(filepath.Join(dir, pidFile))
	if !ok {
		t.Fatal("no supervisor pid file")
	}
	t.Cleanup(func() { _ = syscall.Kill(supervisor, syscall.SIGKILL) })

	env := readEnvFile(t, filepath.Join(dir, envFile))
	for _, k := range []string{"KUBECONFIG", "MLPLATFORM_CONTAINER_ENDPOINT", "MLPLATFORM_IAM_ENDPOINT", "MLPLATFORM_PROJECT",
		"MLPLATFORM_LOCATION", "MLPLATFORM_CLUSTER", "TF_CLI_CONFIG_FILE", "MLPLATFORM_INSECURE_ENDPOINTS"} {
		if env[k] == "" {
			t.Errorf("env file lacks %s: %v", k, env)
		}
	}
	rc, err := os.ReadFile(env["TF_CLI_CONFIG_FILE"])
	if err != nil || !strings.Contains(string(rc), `"registry.terraform.io/mlplatform/mlplatform" = "`+providerDir+`"`) {
		t.Errorf("terraformrc has no dev_overrides for %s: %s (%v)", providerDir, rc, err)
	}
	// The kubeconfig it wrote reaches a working apiserver.
	cfg, err := clientcmd.BuildConfigFromFlags("", env["KUBECONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Namespaces().Get(context.Background(), "kueue-system", metav1.GetOptions{}); err != nil {
		t.Errorf("sandbox apiserver: %v", err)
	}
	// A second up is a no-op that points at the running sandbox.
	out.Reset()
	if code := run([]string{"sandbox", "up", "--dir", dir, "--provider-dir", providerDir}, &out, &out); code != 0 || !strings.Contains(out.String(), "already running") {
		t.Errorf("second up: exit %d, %s", code, out.String())
	}

	children := map[string]int{}
	data, _ := os.ReadFile(filepath.Join(dir, childrenFile))
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		name, pid, _ := strings.Cut(line, " ")
		children[name], _ = strconv.Atoi(pid)
	}
	if len(children) != 4 {
		t.Errorf("want 4 children recorded, got %v", children)
	}

	out.Reset()
	if code := run([]string{"sandbox", "down", "--dir", dir}, &out, &out); code != 0 {
		t.Fatalf("sandbox down exited %d: %s", code, out.String())
	}
	if !strings.Contains(out.String(), "no process left running") {
		t.Errorf("down: %s", out.String())
	}
	for name, pid := range children {
		if alive(pid) {
			t.Errorf("%s (pid %d) still running after down", name, pid)
		}
	}
	if alive(supervisor) {
		t.Errorf("supervisor %d still running after down", supervisor)
	}
}
