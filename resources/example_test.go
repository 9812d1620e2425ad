package resources_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/bench"
)

// examples/training-cluster, as `make demo` runs it, with the real CLI:
// applied, a second plan is empty; a quota edited with client-go shows in
// the next plan as that one attribute of that team's queue; destroyed at
// the end.
func TestAccTrainingClusterExample(t *testing.T) {
	e := acctest.Env(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel) // after the destroy below (cleanups run last first)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	cli := acctest.NewCLI(ctx, t, root,
		"MLPLATFORM_KUBECONFIG="+e.Kubeconfig, "MLPLATFORM_PROJECT="+e.Project, "MLPLATFORM_LOCATION="+e.Location,
		"MLPLATFORM_CLUSTER="+e.Cluster, "MLPLATFORM_CONTAINER_ENDPOINT="+e.GCP.Addr(), "MLPLATFORM_IAM_ENDPOINT="+e.GCP.Addr(),
		"MLPLATFORM_INSECURE_ENDPOINTS=true")
	example, err := bench.LoadExample(filepath.Join(root, bench.Example))
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.WriteExample(cli.Dir, example); err != nil {
		t.Fatal(err)
	}
	cli.Run("get", "-no-color")
	t.Cleanup(func() {
		if out, code := cli.RunCode("destroy", "-auto-approve", "-input=false", "-no-color"); code != 0 {
			t.Errorf("destroy exited %d:\n%s", code, out)
		}
	})
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("plan after apply exited %d (2: not empty):\n%s", code, out)
	}

	// Out of band: team vision's H100 spot GPUs, 16 → 24.
	_, kq := acctest.Kube(t)
	patch := `[{"op":"test","path":"/spec/resourceGroups/0/flavors/1/resources/2/nominalQuota","value":"16"},` +
		`{"op":"replace","path":"/spec/resourceGroups/0/flavors/1/resources/2/nominalQuota","value":"24"}]`
	if _, err := kq.KueueV1beta2().ClusterQueues().Patch(ctx, "team-vision", types.JSONPatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color")
	if code != 2 {
		t.Fatalf("plan after an out-of-band quota edit exited %d, want 2 (changes):\n%s", code, out)
	}
	for _, want := range []string{
		`module.team["vision"].mlplatform_cluster_queue.this will be updated in-place`,
		`~ nominal_quota = "24" -> "16"`,
		"Plan: 0 to add, 1 to change, 0 to destroy.",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
}
