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
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// The root cohort spells its quotas the way people write them ("12000m",
// "1024Gi"); the server keeps them canonical ("12", "1Ti"), which must never
// show as drift. The child is imported, so it spells them canonically.
const cohortRoot = `
resource "mlplatform_cohort" "root" {
  name                = "acc-research"
  fair_sharing_weight = "2"
  resource_groups = [{
    covered_resources = ["cpu", "memory"]
    flavors = [{
      name = "acc-cpu"
      resources = [
        { name = "cpu", nominal_quota = "12000m" },
        { name = "memory", nominal_quota = "1024Gi" },
      ]
    }]
  }]
}
`

func cohortChild(gpus, extra string) string {
	return fmt.Sprintf(`
resource "mlplatform_cohort" "vision" {
  name   = "acc-vision"
  parent = mlplatform_cohort.root.name
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{
      name      = "acc-h100"
      resources = [{ name = "nvidia.com/gpu", nominal_quota = %q, lending_limit = "4"%s }]
    }]
  }]
}
`, gpus, extra)
}

// gpuGroups is the child's resource_groups as the plan JSON shows it.
func gpuGroups(nominal string, borrowing any) []any {
	return []any{map[string]any{
		"covered_resources": []any{"nvidia.com/gpu"},
		"flavors": []any{map[string]any{"name": "acc-h100", "resources": []any{map[string]any{
			"name": "nvidia.com/gpu", "nominal_quota": nominal, "borrowing_limit": borrowing, "lending_limit": "4",
		}}}},
	}}
}

func TestAccCohort(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	cohorts := kq.KueueV1beta2().Cohorts()
	const root, child = "mlplatform_cohort.root", "mlplatform_cohort.vision"
	ctx := context.Background()
	config := func(gpus, extra string) string {
		return acctest.ProviderConfig(t) + cohortRoot + cohortChild(gpus, extra)
	}

	q := apiresource.MustParse
	qp := func(s string) *apiresource.Quantity { v := q(s); return &v }
	serverSpec := func(name string, want kueuev1beta2.CohortSpec) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := cohorts.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if diff := cmp.Diff(want, got.Spec, cmpopts.EquateEmpty(), cmp.Comparer(func(a, b apiresource.Quantity) bool { return a.Cmp(b) == 0 })); diff != "" {
				return fmt.Errorf("server spec of %s (-want +got):\n%s", name, diff)
			}
			return nil
		}
	}
	childSpec := func(nominal string, borrowing *apiresource.Quantity) kueuev1beta2.CohortSpec {
		return kueuev1beta2.CohortSpec{ParentName: "acc-research", ResourceGroups: []kueuev1beta2.ResourceGroup{{
			CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
			Flavors: []kueuev1beta2.FlavorQuotas{{Name: "acc-h100", Resources: []kueuev1beta2.ResourceQuota{
				{Name: "nvidia.com/gpu", NominalQuota: q(nominal), BorrowingLimit: borrowing, LendingLimit: qp("4")},
			}}},
		}}}
	}
	rootSpec := kueuev1beta2.CohortSpec{
		FairSharing: &kueuev1beta2.FairSharing{Weight: qp("2")},
		ResourceGroups: []kueuev1beta2.ResourceGroup{{
			CoveredResources: []corev1.ResourceName{"cpu", "memory"},
			Flavors: []kueuev1beta2.FlavorQuotas{{Name: "acc-cpu", Resources: []kueuev1beta2.ResourceQuota{
				{Name: "cpu", NominalQuota: q("12")}, {Name: "memory", NominalQuota: q("1Ti")},
			}}},
		}},
	}
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	var resourceVersion string
	cohortVersion := func(t *testing.T, name string) string {
		obj, err := cohorts.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return obj.ResourceVersion
	}
	nominal := func() tfjsonpath.Path {
		return tfjsonpath.New("resource_groups").AtSliceIndex(0).AtMapKey("flavors").AtSliceIndex(0).AtMapKey("resources").AtSliceIndex(0).AtMapKey("nominal_quota")
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			for _, n := range []string{"acc-research", "acc-vision"} {
				if _, err := cohorts.Get(ctx, n, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("cohort %s still exists after destroy (err=%v)", n, err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config("16", ""),
				Check:  resource.ComposeTestCheckFunc(serverSpec("acc-research", rootSpec), serverSpec("acc-vision", childSpec("16", nil))),
				ConfigStateChecks: []statecheck.StateCheck{
					// the configured spelling stays in state; the server holds "12"
					statecheck.ExpectKnownValue(root, nominal(), knownvalue.StringExact("12000m")),
					statecheck.ExpectKnownValue(child, tfjsonpath.New("parent"), knownvalue.StringExact("acc-research")),
					statecheck.ExpectKnownValue(child, tfjsonpath.New("fair_sharing_weight"), knownvalue.Null()),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ResourceName: child, ImportState: true, ImportStateId: "acc-vision", ImportStateVerify: true},
			{ // in place: a borrowing limit added, more GPUs
				Config: config("24", `, borrowing_limit = "8"`),
				Check:  serverSpec("acc-vision", childSpec("24", qp("8"))),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(child, plancheck.ResourceActionUpdate), plancheck.ExpectResourceAction(root, plancheck.ResourceActionNoop)},
					PostApplyPostRefresh: empty,
				},
			},
			{ // kubectl edit: the GPU quota changed from 24 to 32 and the borrowing limit removed
				PreConfig: func() {
					obj, err := cohorts.Get(ctx, "acc-vision", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					rq := &obj.Spec.ResourceGroups[0].Flavors[0].Resources[0]
					rq.NominalQuota, rq.BorrowingLimit = q("32"), nil
					if _, err := cohorts.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: config("24", `, borrowing_limit = "8"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(child, plancheck.ResourceActionUpdate),
						acctest.ExpectDrift(child, "resource_groups", gpuGroups("24", "8"), gpuGroups("32", nil)),
						acctest.ExpectOnlyChanges(child, "resource_groups.0.flavors.0.resources.0.nominal_quota",
							"resource_groups.0.flavors.0.resources.0.borrowing_limit"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: serverSpec("acc-vision", childSpec("24", qp("8"))),
			},
			{ // deleted out of band: recreated
				PreConfig: func() { deleteOutOfBand(t, cohorts, "acc-vision") },
				Config:    config("24", `, borrowing_limit = "8"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(child, plancheck.ResourceActionCreate)},
					PostApplyPostRefresh: empty,
				},
				Check: serverSpec("acc-vision", childSpec("24", qp("8"))),
			},
			{ // the same quantities respelled: only the state's spelling changes; the server is not written
				PreConfig: func() { resourceVersion = cohortVersion(t, "acc-vision") },
				Config:    config("24000m", `, borrowing_limit = "8000m"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(child, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
				Check: func(*terraform.State) error {
					if v := cohortVersion(t, "acc-vision"); v != resourceVersion {
						return fmt.Errorf("the cohort was written (resourceVersion %s → %s) though only the spelling changed", resourceVersion, v)
					}
					return nil
				},
			},
		},
	})
}

func TestAccCohortValidation(t *testing.T) {
	t.Parallel()
	group := func(covered, resources string) string {
		return `resource_groups = [{ covered_resources = ` + covered + `, flavors = [{ name = "f", resources = ` + resources + ` }] }]`
	}
	const q0 = `resource_groups[0].flavors[0].resources`
	cases := map[string]struct{ body, want string }{
		"lending limit without parent": {group(`["nvidia.com/gpu"]`, `[{ name = "nvidia.com/gpu", nominal_quota = "8", lending_limit = "4" }]`),
			`(?s)Limit Needs A Parent.*Attribute ` + regexp.QuoteMeta(q0+`[0].lending_limit`) + `:.*set\s+parent`},
		"resources out of order": {group(`["cpu", "memory"]`, `[{ name = "memory", nominal_quota = "1Gi" }, { name = "cpu", nominal_quota = "1" }]`),
			`(?s)Resources Out Of Order.*Attribute ` + regexp.QuoteMeta(q0) + `:.*must\s+follow\s+covered_resources:\s+cpu,\s+memory`},
		"missing resource": {group(`["cpu", "memory"]`, `[{ name = "cpu", nominal_quota = "1" }]`),
			`(?s)Missing Resource Quota.*Attribute ` + regexp.QuoteMeta(q0) + `:.*Add\s+\{\s+name\s+=\s+"memory",\s+nominal_quota\s+=\s+"0"\s+\}\s+as\s+resources\[1\]`},
		"resource not covered": {group(`["cpu"]`, `[{ name = "cpu", nominal_quota = "1" }, { name = "memory", nominal_quota = "1" }]`),
			`(?s)Resource Not Covered.*Attribute ` + regexp.QuoteMeta(q0+`[1].name`) + `:`},
		"bad quantity": {group(`["nvidia.com/gpu"]`, `[{ name = "nvidia.com/gpu", nominal_quota = "8 GPUs" }]`),
			`(?s)Invalid Quantity.*Attribute ` + regexp.QuoteMeta(q0+`[0].nominal_quota`) + `:`},
		"negative quota": {group(`["nvidia.com/gpu"]`, `[{ name = "nvidia.com/gpu", nominal_quota = "-2" }]`),
			`(?s)Negative Quantity.*Attribute ` + regexp.QuoteMeta(q0+`[0].nominal_quota`) + `:`},
		"flavor in two groups": {`resource_groups = [
    { covered_resources = ["cpu"], flavors = [{ name = "f", resources = [{ name = "cpu", nominal_quota = "1" }] }] },
    { covered_resources = ["nvidia.com/gpu"], flavors = [{ name = "f", resources = [{ name = "nvidia.com/gpu", nominal_quota = "1" }] }] },
  ]`, `(?s)Flavor In Several Groups.*Attribute ` + regexp.QuoteMeta(`resource_groups[1].flavors[0].name`) + `:`},
		"resource in two groups": {`resource_groups = [
    { covered_resources = ["cpu"], flavors = [{ name = "a", resources = [{ name = "cpu", nominal_quota = "1" }] }] },
    { covered_resources = ["cpu"], flavors = [{ name = "b", resources = [{ name = "cpu", nominal_quota = "1" }] }] },
  ]`, `(?s)Resource In Several Groups.*Attribute ` + regexp.QuoteMeta(`resource_groups[1].covered_resources[0]`) + `:`},
		"no covered resources": {group(`[]`, `[{ name = "cpu", nominal_quota = "1" }]`),
			`(?s)No Covered Resources.*Attribute ` + regexp.QuoteMeta(`resource_groups[0].covered_resources`) + `:`},
		"own parent":       {`parent = "x"`, `(?s)Cohort Is Its Own Parent.*Attribute parent:`},
		"tiny weight":      {`fair_sharing_weight = "1n"`, `(?s)Fair Sharing Weight Too Small.*Attribute fair_sharing_weight:`},
		"invalid name use": {`parent = "Research"`, `(?s)Invalid Name.*Attribute parent:`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config: acctest.PlanOnlyProvider() +
						"resource \"mlplatform_cohort\" \"x\" {\n  name = \"x\"\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
