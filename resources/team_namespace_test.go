package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func teamNamespaceConfig(t *testing.T, extra string) string {
	return acctest.ProviderConfig(t) + `
resource "mlplatform_team_namespace" "vision" {
  name        = "acc-ns-vision"
  team        = "vision"
  owner       = "alice"
  labels      = { "cost-center" = "ml-123" }
  annotations = { "mlplatform.dev/description" = "Vision team" }
` + extra + `
}
`
}

func TestAccTeamNamespace(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	core, _ := acctest.Kube(t)
	nss := core.CoreV1().Namespaces()
	ctx := context.Background()
	const addr = "mlplatform_team_namespace.vision"
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	labelsAre := func(want map[string]string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			ns, err := nss.Get(ctx, "acc-ns-vision", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if diff := cmp.Diff(want, ns.Labels); diff != "" {
				return fmt.Errorf("namespace labels (-want +got):\n%s", diff)
			}
			return nil
		}
	}
	base := map[string]string{"kubernetes.io/metadata.name": "acc-ns-vision", "mlplatform.dev/team": "vision", "mlplatform.dev/owner": "alice",
		"app.kubernetes.io/managed-by": "mlplatform", "pod-security.kubernetes.io/enforce": "restricted", "cost-center": "ml-123"}
	with := func(kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := nss.Get(ctx, "acc-ns-vision", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("namespace still exists after destroy returned (err=%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: teamNamespaceConfig(t, ""),
				Check:  labelsAre(base),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("pod_security_level"), knownvalue.StringExact("restricted")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("selector").AtMapKey("match_labels").AtMapKey("mlplatform.dev/team"), knownvalue.StringExact("vision")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ // an import manages the platform's labels; extra labels and annotations join once configured
				ResourceName: addr, ImportState: true, ImportStateId: "acc-ns-vision", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"labels", "annotations"},
			},
			{
				Config: teamNamespaceConfig(t, `pod_security_level = "baseline"`),
				Check:  labelsAre(with("pod-security.kubernetes.io/enforce", "baseline")),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
			},
			{ // kubectl label: a managed label changed and Pod Security loosened show as drift and are restored; a foreign label stays
				PreConfig: func() {
					ns, err := nss.Get(ctx, "acc-ns-vision", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					ns.Labels["cost-center"] = "ml-999"
					ns.Labels["pod-security.kubernetes.io/enforce"] = "privileged"
					ns.Labels["istio-injection"] = "enabled"
					if _, err := nss.Update(ctx, ns, metav1.UpdateOptions{FieldManager: "kubectl-label"}); err != nil {
						t.Fatal(err)
					}
					if _, err := core.CoreV1().ConfigMaps("acc-ns-vision").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "data"}}, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: teamNamespaceConfig(t, `pod_security_level = "baseline"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectDrift(addr, "pod_security_level", "baseline", "privileged"),
						acctest.ExpectDriftAt(addr, []any{"labels", "cost-center"}, "ml-123", "ml-999"),
						acctest.ExpectOnlyChanges(addr, "pod_security_level", "labels.cost-center"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: labelsAre(with("pod-security.kubernetes.io/enforce", "baseline", "istio-injection", "enabled")),
			},
		},
	})
}

func TestAccTeamNamespaceValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ body, want string }{
		"reserved label":  {"name = \"a\"\n team = \"vision\"\n labels = { \"mlplatform.dev/team\" = \"x\" }", `(?s)Reserved Label.*Attribute labels\["mlplatform.dev/team"\]`},
		"email as owner":  {"name = \"a\"\n team = \"vision\"\n owner = \"alice@example.com\"", `(?s)Invalid Owner.*Attribute owner`},
		"namespace name":  {"name = \"Team.Vision\"\n team = \"vision\"", `(?s)Invalid Namespace Name.*Attribute name`},
		"pod security":    {"name = \"a\"\n team = \"vision\"\n pod_security_level = \"strict\"", `(?s)Invalid Pod Security Level.*Attribute pod_security_level`},
		"team with space": {"name = \"a\"\n team = \"computer vision\"", `(?s)Invalid Team.*Attribute team`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config:      acctest.PlanOnlyProvider() + "resource \"mlplatform_team_namespace\" \"x\" {\n" + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
