package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// jsonList writes a list of strings as a JSON array, which is HCL too.
func jsonList(t *testing.T, ss []string) string {
	t.Helper()
	b, err := json.Marshal(ss)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func topologyConfig(t *testing.T, name string, levels ...string) string {
	return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_topology" "this" {
  name   = %q
  levels = %s
}
`, name, jsonList(t, levels))
}

var gkeLevels = []string{"cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-subblock", "cloud.google.com/gce-topology-host", "kubernetes.io/hostname"}

// Create, no drift, import, what Kueue refuses out of band, a deletion out
// of band, a change of levels (a replacement) and a rename.
func TestAccTopology(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	topologies := kq.KueueV1beta2().Topologies()
	const addr = "mlplatform_topology.this"
	ctx := context.Background()

	serverHas := func(name string, levels ...string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := topologies.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			var have []string
			for _, l := range got.Spec.Levels {
				have = append(have, l.NodeLabel)
			}
			if !slices.Equal(have, levels) {
				return fmt.Errorf("server has levels %v, want %v", have, levels)
			}
			for _, mf := range got.ManagedFields {
				if mf.Manager == "mlplatform" {
					return nil
				}
			}
			return fmt.Errorf("no entry of field manager mlplatform in %v", got.ManagedFields)
		}
	}
	blockHost := []string{"cloud.google.com/gce-topology-block", "cloud.google.com/gce-topology-host"}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			for _, n := range []string{"acc-topo", "acc-topo-renamed"} {
				if _, err := topologies.Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("Topology %s still exists after destroy (err=%v)", n, err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{ // create
				Config: topologyConfig(t, "acc-topo", gkeLevels...),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("acc-topo")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("levels").AtSliceIndex(0), knownvalue.StringExact(gkeLevels[0])),
				},
				Check:            serverHas("acc-topo", gkeLevels...),
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{ // import by name
				ResourceName: addr, ImportState: true, ImportStateId: "acc-topo", ImportStateVerify: true,
			},
			{ // Kueue refuses an edit of the levels out of band (kubectl edit): there is no such drift to show
				PreConfig: func() {
					obj, err := topologies.Get(ctx, "acc-topo", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					obj.Spec.Levels = obj.Spec.Levels[1:]
					_, err = topologies.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
					if !apierrors.IsInvalid(err) || !regexp.MustCompile(`field is immutable`).MatchString(err.Error()) {
						t.Fatalf("Kueue should refuse an edit of a Topology's levels as immutable, got %v", err)
					}
				},
				Config:           topologyConfig(t, "acc-topo", gkeLevels...),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{ // deleted out of band: the plan recreates it
				PreConfig: func() {
					if err := topologies.Delete(ctx, "acc-topo", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
					waitGone(t, func() error { _, err := topologies.Get(ctx, "acc-topo", metav1.GetOptions{}); return err })
				},
				Config: topologyConfig(t, "acc-topo", gkeLevels...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: serverHas("acc-topo", gkeLevels...),
			},
			{ // new levels: Kueue cannot change them, so the Topology is replaced
				Config: topologyConfig(t, "acc-topo", blockHost...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: serverHas("acc-topo", blockHost...),
			},
			{ // a new name replaces it, and the old one is deleted
				Config: topologyConfig(t, "acc-topo-renamed", blockHost...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeTestCheckFunc(serverHas("acc-topo-renamed", blockHost...), func(*terraform.State) error {
					if _, err := topologies.Get(ctx, "acc-topo", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("acc-topo should be gone after the rename, got err=%v", err)
					}
					return nil
				}),
			},
		},
	})
}

// Destroying a Topology that a flavor still names is refused with the
// flavor's name, and the Topology is left intact (not Terminating).
func TestAccTopologyInUse(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	topology := `
resource "mlplatform_topology" "used" {
  name   = "acc-topo-used"
  levels = ["cloud.google.com/gce-topology-block", "kubernetes.io/hostname"]
}
`
	flavor := `
resource "mlplatform_resource_flavor" "tas" {
  name          = "acc-topo-flavor"
  node_labels   = { "cloud.google.com/gke-nodepool" = "h200" }
  topology_name = "acc-topo-used"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: acctest.ProviderConfig(t) + topology + flavor},
			{
				Config:      acctest.ProviderConfig(t) + flavor,
				ExpectError: regexp.MustCompile(`(?s)Kueue still uses this object.*Topology acc-topo-used is still used by\s+ResourceFlavor\s+acc-topo-flavor.*it was not\s+deleted`),
			},
			{ // (a Check on an ExpectError step never runs, so the refusal is verified here)
				PreConfig: func() {
					got, err := kq.KueueV1beta2().Topologies().Get(context.Background(), "acc-topo-used", metav1.GetOptions{})
					if err != nil || got.DeletionTimestamp != nil {
						t.Fatalf("the refused delete should leave the Topology intact, not Terminating: err=%v deletionTimestamp=%v", err, got.GetDeletionTimestamp())
					}
					if !slices.Contains(got.Finalizers, kueuev1beta2.ResourceInUseFinalizerName) {
						t.Errorf("Kueue should hold the Topology a flavor names (finalizer %s), has %v", kueuev1beta2.ResourceInUseFinalizerName, got.Finalizers)
					}
				},
				Config:           acctest.ProviderConfig(t) + topology + flavor,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// A change of levels is a replacement, and the plan says so with what to do
// when flavors name the Topology (the real CLI: plan -json's diagnostics).
func TestAccTopologyReplacementWarns(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, cli := newCLI(t)
	cli.Apply(topologyConfig(t, "acc-topo-warn", gkeLevels...))
	if _, warned := planWarnings(t, cli.Run("plan", "-input=false", "-json"))["Topology Replaced"]; warned {
		t.Fatal("warning Topology Replaced with nothing to change")
	}
	cli.Write(topologyConfig(t, "acc-topo-warn", gkeLevels[0], gkeLevels[3]))
	ws := planWarnings(t, cli.Run("plan", "-input=false", "-json"))
	d, ok := ws["Topology Replaced"]
	if !ok {
		t.Fatalf("no warning Topology Replaced for new levels; warnings: %v", ws)
	}
	for _, s := range []string{"deletes the Topology and creates it again", "create a Topology with a new name and point the flavors at it"} {
		if !strings.Contains(d, s) {
			t.Errorf("the warning does not say %q:\n%s", s, d)
		}
	}
}

// waitGone polls get until it reports the object not found (Kueue removes
// its finalizer first), for at most 30 s.
func waitGone(t *testing.T, get func() error) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if err := get(); apierrors.IsNotFound(err) {
			return
		}
	}
	t.Fatal("the object was still there 30 s after its deletion")
}
