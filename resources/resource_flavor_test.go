package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func flavorConfig(t *testing.T, body string) string {
	return acctest.ProviderConfig(t) + "resource \"mlplatform_resource_flavor\" \"h100\" {\n  name = \"acc-h100-spot\"\n" + body + "\n}\n"
}

const flavorV1 = `
  node_labels = {
    "cloud.google.com/gke-nodepool" = "h100-spot"
    "cloud.google.com/gke-spot"     = "true"
  }
  tolerations = [
    { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" },
  ]
`

const flavorV2 = `
  node_labels = {
    "cloud.google.com/gke-nodepool"   = "h100-spot"
    "cloud.google.com/gke-spot"       = "true"
    "cloud.google.com/gke-accelerator" = "nvidia-h100-80gb"
  }
  node_taints = [
    { key = "cloud.google.com/gke-spot", value = "true", effect = "NoSchedule" },
  ]
  tolerations = [
    { key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" },
    { key = "cloud.google.com/gke-spot", operator = "Equal", value = "true", effect = "NoSchedule" },
  ]
`

func TestAccResourceFlavor(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	rfs := kq.KueueV1beta2().ResourceFlavors()
	const addr = "mlplatform_resource_flavor.h100"
	const name = "acc-h100-spot"
	ctx := context.Background()

	serverSpec := func(want kueuev1beta2.ResourceFlavorSpec) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := rfs.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if diff := cmp.Diff(want, got.Spec, cmpopts.EquateEmpty()); diff != "" {
				return fmt.Errorf("server spec (-want +got):\n%s", diff)
			}
			return nil
		}
	}
	gpuToleration := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	specV1 := kueuev1beta2.ResourceFlavorSpec{
		NodeLabels:  map[string]string{"cloud.google.com/gke-nodepool": "h100-spot", "cloud.google.com/gke-spot": "true"},
		Tolerations: []corev1.Toleration{gpuToleration},
	}
	specV2 := kueuev1beta2.ResourceFlavorSpec{
		NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": "h100-spot", "cloud.google.com/gke-spot": "true",
			"cloud.google.com/gke-accelerator": "nvidia-h100-80gb"},
		NodeTaints: []corev1.Taint{{Key: "cloud.google.com/gke-spot", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
		Tolerations: []corev1.Toleration{gpuToleration,
			{Key: "cloud.google.com/gke-spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}},
	}
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := rfs.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("flavor still exists after destroy (err=%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: flavorConfig(t, flavorV1),
				Check:  serverSpec(specV1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_labels").AtMapKey("cloud.google.com/gke-nodepool"), knownvalue.StringExact("h100-spot")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("node_taints"), knownvalue.Null()),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: name, ImportStateVerify: true},
			{ // in place: a label, a taint and a toleration added
				Config: flavorConfig(t, flavorV2),
				Check:  serverSpec(specV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
			},
			{ // kubectl edit: one label added, one changed, the taints removed
				PreConfig: func() {
					obj, err := rfs.Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					obj.Spec.NodeLabels["team"] = "vision"
					obj.Spec.NodeLabels["cloud.google.com/gke-spot"] = "false"
					obj.Spec.NodeTaints = nil
					if _, err := rfs.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: flavorConfig(t, flavorV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectDrift(addr, "node_labels", map[string]any{
							"cloud.google.com/gke-accelerator": "nvidia-h100-80gb", "cloud.google.com/gke-nodepool": "h100-spot", "cloud.google.com/gke-spot": "true",
						}, map[string]any{
							"cloud.google.com/gke-accelerator": "nvidia-h100-80gb", "cloud.google.com/gke-nodepool": "h100-spot", "cloud.google.com/gke-spot": "false", "team": "vision",
						}),
						acctest.ExpectOnlyChanges(addr, "node_labels.team", "node_labels.cloud.google.com/gke-spot", "node_taints"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: serverSpec(specV2), // the label kubectl added is gone again
			},
			{ // deleted out of band (Kueue lets go of an unused flavor): recreated
				PreConfig: func() { deleteOutOfBand(t, rfs, name) },
				Config:    flavorConfig(t, flavorV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: empty,
				},
				Check: serverSpec(specV2),
			},
			{ // adding a topology is an update; Kueue then freezes labels, tolerations and topology
				Config: flavorConfig(t, flavorV2+`  topology_name = "gke-default"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
			},
			{ // so changing labels now replaces the flavor instead of failing at apply
				Config: flavorConfig(t, flavorV1+`  topology_name = "gke-default"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: empty,
				},
			},
		},
	})
}

func TestAccResourceFlavorValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ body, want string }{
		"nine node labels": {`node_labels = { a = "1", b = "2", c = "3", d = "4", e = "5", f = "6", g = "7", h = "8", i = "9" }`,
			`(?s)Too Many Entries.*Attribute node_labels: 9 entries.*at most 8`},
		"bad label key":   {`node_labels = { "-bad" = "x" }`, `(?s)Invalid Label Key.*Attribute node_labels\["-bad"\]:`},
		"bad label value": {`node_labels = { "pool" = "has space" }`, `(?s)Invalid Label Value.*Attribute node_labels\["pool"\]:`},
		"taint effect": {`node_taints = [{ key = "k", effect = "NoRun" }]`,
			`(?s)Invalid Taint Effect.*Attribute node_taints\[0\].effect:.*"NoRun"\s+is\s+not\s+one\s+of\s+NoSchedule`},
		"exists with value": {`tolerations = [{ key = "k", operator = "Exists", value = "v" }]`,
			`(?s)Toleration Value With Exists.*Attribute tolerations\[0\].value:`},
		"seconds without NoExecute": {`tolerations = [{ key = "k", operator = "Exists", effect = "NoSchedule", toleration_seconds = 30 }]`,
			`(?s)Need NoExecute.*Attribute tolerations\[0\].toleration_seconds:`},
		"empty key with Equal":    {`tolerations = [{ operator = "Equal", value = "v" }]`, `(?s)Must Use Exists.*Attribute tolerations\[0\].operator:`},
		"topology without labels": {`topology_name = "gke-default"`, `(?s)Topology Needs Node Labels.*Attribute topology_name:`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config: acctest.PlanOnlyProvider() +
						"resource \"mlplatform_resource_flavor\" \"x\" {\n  name = \"x\"\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
