package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func clusterQueueConfig(t *testing.T, l4GPUs string) string {
	return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_resource_flavor" "l4" {
  name        = "acc-cq-l4"
  node_labels = { "cloud.google.com/gke-nodepool" = "l4" }
  tolerations = [{ key = "nvidia.com/gpu", operator = "Exists", effect = "NoSchedule" }]
}

resource "mlplatform_resource_flavor" "h100" {
  name        = "acc-cq-h100"
  node_labels = { "cloud.google.com/gke-nodepool" = "h100" }
}

resource "mlplatform_cluster_queue" "team_a" {
  name   = "acc-cq-team-a"
  cohort = "acc-cq-research"
  namespace_selector = {
    match_labels = { "mlplatform.dev/team" = "team-a" }
  }
  resource_groups = [{
    covered_resources = ["cpu", "memory", "nvidia.com/gpu"]
    flavors = [
      {
        name = mlplatform_resource_flavor.l4.name
        resources = [
          { name = "cpu", nominal_quota = "48" },
          { name = "memory", nominal_quota = "1024Mi" },
          { name = "nvidia.com/gpu", nominal_quota = %q, borrowing_limit = "4" },
        ]
      },
      {
        name = mlplatform_resource_flavor.h100.name
        resources = [
          { name = "cpu", nominal_quota = "96" },
          { name = "memory", nominal_quota = "1Ti" },
          { name = "nvidia.com/gpu", nominal_quota = "16", lending_limit = "8" },
        ]
      },
    ]
  }]
  preemption = {
    reclaim_within_cohort = "Any"
    within_cluster_queue  = "LowerPriority"
  }
}
`, l4GPUs)
}

func TestAccClusterQueue(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	cqs := kq.KueueV1beta2().ClusterQueues()
	ctx := context.Background()
	const addr = "mlplatform_cluster_queue.team_a"
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	gpu := func(flavor int) []any {
		return []any{"resource_groups", 0, "flavors", flavor, "resources", 2, "nominal_quota"}
	}

	serverGPUs := func(flavor int, want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			got, err := cqs.Get(ctx, "acc-cq-team-a", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if !meta.IsStatusConditionTrue(got.Status.Conditions, kueuev1beta2.ClusterQueueActive) {
				return fmt.Errorf("queue not active after apply: %v", got.Status.Conditions)
			}
			q := got.Spec.ResourceGroups[0].Flavors[flavor].Resources[2].NominalQuota
			if q.Cmp(k8sresource.MustParse(want)) != 0 {
				return fmt.Errorf("server has %s GPUs on flavor %d, want %s", q.String(), flavor, want)
			}
			if got.Spec.FairSharing != nil {
				return fmt.Errorf("fairSharing set by hand is still there: %v", got.Spec.FairSharing)
			}
			return nil
		}
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := cqs.Get(ctx, "acc-cq-team-a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("cluster queue still exists (err=%v)", err)
			}
			for _, f := range []string{"acc-cq-l4", "acc-cq-h100"} {
				if _, err := kq.KueueV1beta2().ResourceFlavors().Get(ctx, f, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("flavor %s still exists (err=%v)", f, err)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{ // Kueue stores 1024Mi as 1Gi: compared by value, the plan stays empty
				Config: clusterQueueConfig(t, "8"),
				Check:  serverGPUs(0, "8"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("resource_groups").AtSliceIndex(0).AtMapKey("flavors").AtSliceIndex(0).
						AtMapKey("resources").AtSliceIndex(1).AtMapKey("nominal_quota"), knownvalue.StringExact("1024Mi")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("queueing_strategy"), knownvalue.StringExact("BestEffortFIFO")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("preemption").AtMapKey("borrow_within_cohort").AtMapKey("policy"), knownvalue.StringExact("Never")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ // an import reads the server's canonical spelling (1Gi): the same quantity
				ResourceName: addr, ImportState: true, ImportStateId: "acc-cq-team-a", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"resource_groups.0.flavors.0.resources.1.nominal_quota"},
			},
			{ // one quota change is one changed attribute in the plan
				Config: clusterQueueConfig(t, "12"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges(addr, "resource_groups.0.flavors.0.resources.2.nominal_quota"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: serverGPUs(0, "12"),
			},
			{ // edited by hand: H100 quota raised and a fair-sharing weight added; the plan shows both, apply undoes both
				PreConfig: func() {
					obj, err := cqs.Get(ctx, "acc-cq-team-a", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					obj.Spec.ResourceGroups[0].Flavors[1].Resources[2].NominalQuota = k8sresource.MustParse("24")
					obj.Spec.FairSharing = &kueuev1beta2.FairSharing{Weight: ptr.To(k8sresource.MustParse("2"))}
					if _, err := cqs.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: clusterQueueConfig(t, "12"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectDriftAt(addr, gpu(1), "16", "24"),
						acctest.ExpectDrift(addr, "fair_sharing_weight", nil, "2"),
						acctest.ExpectOnlyChanges(addr, "resource_groups.0.flavors.1.resources.2.nominal_quota", "fair_sharing_weight"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: serverGPUs(1, "16"),
			},
			{ // another manager's fields are left alone: its label and annotation are no drift and survive an update
				PreConfig: func() {
					patch := `{"metadata":{"labels":{"example.com/owner":"quota-bot"},"annotations":{"example.com/ticket":"OPS-42"}}}`
					if _, err := cqs.Patch(ctx, "acc-cq-team-a", types.MergePatchType, []byte(patch), metav1.PatchOptions{FieldManager: "quota-bot"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: clusterQueueConfig(t, "16"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges(addr, "resource_groups.0.flavors.0.resources.2.nominal_quota"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: resource.ComposeTestCheckFunc(serverGPUs(0, "16"), func(*terraform.State) error {
					got, err := cqs.Get(ctx, "acc-cq-team-a", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if got.Labels["example.com/owner"] != "quota-bot" || got.Annotations["example.com/ticket"] != "OPS-42" {
						return fmt.Errorf("another manager's label and annotation were removed: labels %v, annotations %v", got.Labels, got.Annotations)
					}
					return nil
				}),
			},
		},
	})
}

// gpuQueue is a ClusterQueue named name with 8 GPUs of one flavor, for every
// namespace, plus the attribute lines extra.
func gpuQueue(name, flavor, extra string) string {
	return fmt.Sprintf(`
resource "mlplatform_cluster_queue" "q" {
  name               = %q
  namespace_selector = {}
  %s
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = %q, resources = [{ name = "nvidia.com/gpu", nominal_quota = "8" }] }]
  }]
}
`, name, extra, flavor)
}

// A queue naming a flavor that does not exist fails the apply with Kueue's
// reason, and succeeds once the flavor exists.
func TestAccClusterQueueMissingFlavor(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	// 20s: Kueue must have reported why, also on a busy CI machine
	queue := gpuQueue("acc-cq-missing", "acc-cq-later", `active_timeout = "20s"`)
	flavor := `
resource "mlplatform_resource_flavor" "later" {
  name = "acc-cq-later"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: acctest.ProviderConfig(t) + queue, ExpectError: regexp.MustCompile(`(?s)Is Not Active.*ResourceFlavor that does not\s+exist.*FlavorNotFound`)},
			{Config: acctest.ProviderConfig(t) + queue + flavor,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

// wait_for_active = false opts out of the wait: the apply succeeds while
// Kueue reports the queue inactive, and that status is no drift.
func TestAccClusterQueueWaitOptOut(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	queue := gpuQueue("acc-cq-nowait", "acc-cq-never", "wait_for_active = false")
	inactive := func(*terraform.State) error {
		ctx := context.Background()
		deadline := time.Now().Add(30 * time.Second)
		for {
			got, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-cq-nowait", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if c := meta.FindStatusCondition(got.Status.Conditions, kueuev1beta2.ClusterQueueActive); c != nil {
				if c.Status != metav1.ConditionFalse || c.Reason != "FlavorNotFound" {
					return fmt.Errorf("queue condition %s=%s (%s), want False (FlavorNotFound)", c.Type, c.Status, c.Reason)
				}
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("Kueue reported no Active condition within 30s: %v", got.Status.Conditions)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + queue,
			Check:  inactive,
			ConfigPlanChecks: resource.ConfigPlanChecks{
				PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
			},
		}},
	})
}

// Destroying a flavor that a queue still uses is refused with the queue's
// name (the flavor is left intact), never a hang on Kueue's finalizer.
func TestAccResourceFlavorInUse(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	queue := gpuQueue("acc-cq-user", "acc-cq-used", "")
	flavor := `
resource "mlplatform_resource_flavor" "used" {
  name = "acc-cq-used"
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: acctest.ProviderConfig(t) + flavor + queue},
			{
				Config:      acctest.ProviderConfig(t) + queue,
				ExpectError: regexp.MustCompile(`(?s)Kueue still uses this object.*ResourceFlavor acc-cq-used is still used by\s+ClusterQueue\s+acc-cq-user.*it was not\s+deleted.*create_before_destroy`),
			},
			{ // (a Check on an ExpectError step never runs, so the refusal is verified here)
				PreConfig: func() {
					rf, err := kq.KueueV1beta2().ResourceFlavors().Get(context.Background(), "acc-cq-used", metav1.GetOptions{})
					if err != nil || rf.DeletionTimestamp != nil {
						t.Fatalf("the refused delete should leave the flavor intact, not Terminating: err=%v deletionTimestamp=%v", err, rf.GetDeletionTimestamp())
					}
				},
				Config:           acctest.ProviderConfig(t) + flavor + queue,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

func TestAccClusterQueueValidation(t *testing.T) {
	t.Parallel()
	group := func(quotas string) string {
		return `resource_groups = [{
  covered_resources = ["cpu", "nvidia.com/gpu"]
  flavors = [{ name = "f", resources = [` + quotas + `] }]
}]`
	}
	ok := `{ name = "cpu", nominal_quota = "8" }, { name = "nvidia.com/gpu", nominal_quota = "4" }`
	cases := map[string]struct{ body, want string }{
		"borrowing without cohort": {group(`{ name = "cpu", nominal_quota = "8" }, { name = "nvidia.com/gpu", nominal_quota = "4", borrowing_limit = "2" }`),
			`Attribute resource_groups\[0\].flavors\[0\].resources\[1\].borrowing_limit`},
		"lending above nominal": {"cohort = \"c\"\n" + group(`{ name = "cpu", nominal_quota = "8" }, { name = "nvidia.com/gpu", nominal_quota = "4", lending_limit = "5" }`),
			`Attribute resource_groups\[0\].flavors\[0\].resources\[1\].lending_limit`},
		"resources out of order": {group(`{ name = "nvidia.com/gpu", nominal_quota = "4" }, { name = "cpu", nominal_quota = "8" }`),
			`Attribute resource_groups\[0\].flavors\[0\].resources`},
		"resource missing": {group(`{ name = "cpu", nominal_quota = "8" }`), `Attribute resource_groups\[0\].flavors\[0\].resources`},
		"quantity not a number": {group(`{ name = "cpu", nominal_quota = "lots" }, { name = "nvidia.com/gpu", nominal_quota = "4" }`),
			`Attribute resource_groups\[0\].flavors\[0\].resources\[0\].nominal_quota`},
		"negative quota": {group(`{ name = "cpu", nominal_quota = "-1" }, { name = "nvidia.com/gpu", nominal_quota = "4" }`),
			`Attribute resource_groups\[0\].flavors\[0\].resources\[0\].nominal_quota`},
		"flavor in two groups": {`resource_groups = [
  { covered_resources = ["cpu"], flavors = [{ name = "f", resources = [{ name = "cpu", nominal_quota = "1" }] }] },
  { covered_resources = ["memory"], flavors = [{ name = "f", resources = [{ name = "memory", nominal_quota = "1Gi" }] }] },
]`, `Attribute resource_groups\[1\].flavors\[0\].name`},
		"resource in two groups": {`resource_groups = [
  { covered_resources = ["cpu"], flavors = [{ name = "a", resources = [{ name = "cpu", nominal_quota = "1" }] }] },
  { covered_resources = ["cpu"], flavors = [{ name = "b", resources = [{ name = "cpu", nominal_quota = "1" }] }] },
]`, `Attribute resource_groups\[1\].covered_resources`},
		"preference without TryNextFlavor": {group(ok) + "\nflavor_fungibility = { preference = \"BorrowingOverPreemption\" }",
			`(?s)Preference Needs TryNextFlavor.*Attribute flavor_fungibility.preference`},
		"borrowing preemption without reclaim": {"cohort = \"c\"\n" + group(ok) + "\npreemption = { borrow_within_cohort = { policy = \"LowerPriority\" } }",
			`(?s)Borrowing Preemption Needs Reclaim.*Attribute preemption.borrow_within_cohort.policy`},
		"threshold without policy": {group(ok) + "\npreemption = { borrow_within_cohort = { max_priority_threshold = 100 } }",
			`Attribute preemption.borrow_within_cohort.max_priority_threshold`},
		"In without values": {group(ok) + "\nnamespace_selector = { match_expressions = [{ key = \"team\", operator = \"In\" }] }",
			`(?s)Values Required.*Attribute namespace_selector.match_expressions\[0\].values`},
		"Exists with values": {group(ok) + "\nnamespace_selector = { match_expressions = [{ key = \"team\", operator = \"Exists\", values = [\"a\"] }] }",
			`(?s)Values Not Allowed.*Attribute namespace_selector.match_expressions\[0\].values`},
		"check on a flavor the queue lacks": {group(ok) + "\nadmission_checks = { dws = { on_flavors = [\"h100-flex\"] } }",
			`(?s)Unknown Flavor.*Attribute admission_checks\["dws"\].on_flavors\[0\].*use one of f`},
		"negative fair sharing weight": {group(ok) + "\nfair_sharing_weight = \"-1\"", `Attribute fair_sharing_weight`},
		"cohort name":                  {group(ok) + "\ncohort = \"Research_Team\"", `(?s)Invalid Name.*Attribute cohort`},
		"queueing strategy": {group(ok) + "\nqueueing_strategy = \"LIFO\"",
			`(?s)Invalid Queueing Strategy.*Attribute queueing_strategy:.*"LIFO"\s+is\s+not\s+one\s+of\s+BestEffortFIFO,\s+StrictFIFO`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config: acctest.PlanOnlyProvider() +
						"resource \"mlplatform_cluster_queue\" \"x\" {\n  name = \"x\"\n" + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
