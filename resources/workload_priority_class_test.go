package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func wpcConfig(t *testing.T, name string, value int, description string) string {
	desc := ""
	if description != "" {
		desc = fmt.Sprintf("description = %q", description)
	}
	return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_workload_priority_class" "this" {
  name  = %q
  value = %d
  %s
}
`, name, value, desc)
}

func TestAccWorkloadPriorityClass(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	wpcs := kq.KueueV1beta2().WorkloadPriorityClasses()
	const addr = "mlplatform_workload_priority_class.this"
	ctx := context.Background()

	// serverHas checks the object in the cluster, not just Terraform's state.
	serverHas := func(name string, value int32, description string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := wpcs.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got.Value != value || got.Description != description {
				return fmt.Errorf("server has value=%d description=%q, want %d %q", got.Value, got.Description, value, description)
			}
			for _, mf := range got.ManagedFields {
				if mf.Manager == "mlplatform" && mf.Operation == metav1.ManagedFieldsOperationApply {
					return nil
				}
			}
			return fmt.Errorf("no server-side apply entry of field manager mlplatform in %v", got.ManagedFields)
		}
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			for _, n := range []string{"acc-high", "acc-urgent"} {
				if _, err := wpcs.Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("WorkloadPriorityClass %s still exists after destroy (err=%v)", n, err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{ // create
				Config: wpcConfig(t, "acc-high", 1000, "Production training runs"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("acc-high")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.Int64Exact(1000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.StringExact("Production training runs")),
				},
				Check: serverHas("acc-high", 1000, "Production training runs"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
			{ // import by name
				ResourceName:      addr,
				ImportState:       true,
				ImportStateId:     "acc-high",
				ImportStateVerify: true,
			},
			{ // update in place, description removed
				Config: wpcConfig(t, "acc-high", 2000, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("value"), knownvalue.Int64Exact(2000)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("description"), knownvalue.Null()),
				},
				Check: serverHas("acc-high", 2000, ""),
			},
			{ // out-of-band edit (as kubectl edit would): the plan shows it field by field, apply restores it
				PreConfig: func() {
					obj, err := wpcs.Get(ctx, "acc-high", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					obj.Value = 42
					obj.Description = "edited by hand"
					if _, err := wpcs.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: wpcConfig(t, "acc-high", 2000, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectDrift(addr, "value", 2000, 42),
						acctest.ExpectDrift(addr, "description", nil, "edited by hand"),
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: serverHas("acc-high", 2000, ""),
			},
			{ // deleted out of band: the plan recreates it
				PreConfig: func() {
					if err := wpcs.Delete(ctx, "acc-high", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: wpcConfig(t, "acc-high", 2000, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: serverHas("acc-high", 2000, ""),
			},
			{ // a new name replaces the class, and the old one is deleted
				Config: wpcConfig(t, "acc-urgent", 2000, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
				},
				Check: resource.ComposeTestCheckFunc(serverHas("acc-urgent", 2000, ""), func(*terraform.State) error {
					if _, err := wpcs.Get(ctx, "acc-high", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("acc-high should be gone after the rename, got err=%v", err)
					}
					return nil
				}),
			},
		},
	})
}

// Bad input is rejected at plan time with the attribute path and a remedy,
// before any request: the provider here points at a cluster that does not exist.
func TestAccWorkloadPriorityClassValidation(t *testing.T) {
	t.Parallel()
	unreachable := acctest.PlanOnlyProvider()
	cases := map[string]struct {
		body string
		want string
	}{
		"name not a DNS subdomain": {`name = "High_Priority"` + "\n value = 1", `(?s)Invalid Name.*Attribute name:.*"High_Priority" is not a valid.*high-priority`},
		"value beyond int32":       {`name = "big"` + "\n value = 3000000000", `(?s)Priority Out Of Range.*Attribute value:.*between\s+-2147483648\s+and\s+2147483647`},
		"description too long":     {`name = "long"` + "\n value = 1\n description = \"" + strings.Repeat("x", 2049) + `"`, `(?s)Description Too Long.*Attribute description:.*2049 characters`},
		"empty description":        {`name = "empty"` + "\n value = 1\n description = \"\"", `(?s)Empty Description.*Attribute description: description is set to ""`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config:      unreachable + "resource \"mlplatform_workload_priority_class\" \"x\" {\n" + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// A plan of new objects needs no cluster connection at all.
func TestAccWorkloadPriorityClassPlanWithoutCluster(t *testing.T) {
	t.Parallel()
	acctest.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: acctest.PlanOnlyProvider() + `
resource "mlplatform_workload_priority_class" "x" {
  name  = "offline"
  value = 10
}
`,
			PlanOnly:           true,
			ExpectNonEmptyPlan: true,
		}},
	})
}
