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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

// givenActiveClusterQueue creates a flavor and a ClusterQueue out of band and
// waits until the real Kueue manager reports the queue active.
func givenActiveClusterQueue(t *testing.T, name string) {
	t.Helper()
	_, kq := acctest.Kube(t)
	ctx := context.Background()
	rf := &kueuev1beta2.ResourceFlavor{ObjectMeta: metav1.ObjectMeta{Name: name + "-flavor"}}
	if _, err := kq.KueueV1beta2().ResourceFlavors().Create(ctx, rf, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	cq := &kueuev1beta2.ClusterQueue{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: kueuev1beta2.ClusterQueueSpec{
			NamespaceSelector: &metav1.LabelSelector{},
			ResourceGroups: []kueuev1beta2.ResourceGroup{{
				CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
				Flavors: []kueuev1beta2.FlavorQuotas{{Name: kueuev1beta2.ResourceFlavorReference(rf.Name),
					Resources: []kueuev1beta2.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: k8sresource.MustParse("8")}}}},
			}},
		},
	}
	if _, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, name, metav1.GetOptions{})
		return err == nil && meta.IsStatusConditionTrue(got.Status.Conditions, kueuev1beta2.ClusterQueueActive), nil
	})
	if err != nil {
		t.Fatalf("ClusterQueue %s never became active: %v", name, err)
	}
}

func givenNamespace(t *testing.T, name string) {
	t.Helper()
	core, _ := acctest.Kube(t)
	_, err := core.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func localQueueConfig(t *testing.T, body string) string {
	return acctest.ProviderConfig(t) + "resource \"mlplatform_local_queue\" \"gpu\" {\n  namespace = \"acc-lq-team\"\n  name = \"gpu\"\n" + body + "\n}\n"
}

func TestAccLocalQueue(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	givenNamespace(t, "acc-lq-team")
	givenActiveClusterQueue(t, "acc-lq-cq")
	_, kq := acctest.Kube(t)
	lqs := kq.KueueV1beta2().LocalQueues("acc-lq-team")
	ctx := context.Background()
	const addr = "mlplatform_local_queue.gpu"
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	active := func(*terraform.State) error {
		got, err := lqs.Get(ctx, "gpu", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(got.Status.Conditions, kueuev1beta2.LocalQueueActive) {
			return fmt.Errorf("apply returned before the queue was active: %v", got.Status.Conditions)
		}
		return nil
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := lqs.Get(ctx, "gpu", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("local queue still exists (err=%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: localQueueConfig(t, `cluster_queue = "acc-lq-cq"`),
				Check:  active,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact("acc-lq-team/gpu")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("stop_policy"), knownvalue.StringExact("None")),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: "acc-lq-team/gpu", ImportStateVerify: true},
			{ // hold the queue: an in-place update, no wait (a held queue is never active)
				Config: localQueueConfig(t, "cluster_queue = \"acc-lq-cq\"\n  stop_policy = \"Hold\""),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
			},
			{ // released again, then drained by hand: the plan shows it and apply releases it
				Config: localQueueConfig(t, `cluster_queue = "acc-lq-cq"`),
				Check:  active,
			},
			{
				PreConfig: func() {
					obj, err := lqs.Get(ctx, "gpu", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					obj.Spec.StopPolicy = ptr.To(kueuev1beta2.HoldAndDrain)
					if _, err := lqs.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: localQueueConfig(t, `cluster_queue = "acc-lq-cq"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectDrift(addr, "stop_policy", "None", "HoldAndDrain"),
						acctest.ExpectOnlyChanges(addr, "stop_policy"),
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					},
					PostApplyPostRefresh: empty,
				},
				Check: active,
			},
			{ // Kueue makes cluster_queue immutable: the plan replaces the queue
				PreConfig: func() { givenActiveClusterQueue(t, "acc-lq-cq2") },
				Config:    localQueueConfig(t, `cluster_queue = "acc-lq-cq2"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionDestroyBeforeCreate)},
					PostApplyPostRefresh: empty,
				},
				Check: active,
			},
		},
	})
}

// A queue pointing at a ClusterQueue that does not exist fails the apply with
// Kueue's reason in plain words, and the next apply succeeds once it exists.
func TestAccLocalQueueMissingClusterQueue(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	givenNamespace(t, "acc-lq-missing")
	cfg := acctest.ProviderConfig(t) + `
resource "mlplatform_local_queue" "gpu" {
  namespace      = "acc-lq-missing"
  name           = "gpu"
  cluster_queue  = "acc-lq-later"
  active_timeout = "20s" # Kueue must have reported why, also on a busy CI machine
}
`
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg, ExpectError: regexp.MustCompile(`(?s)Is Not Active.*ClusterQueue "acc-lq-later" does not\s+exist.*ClusterQueueDoesNotExist`)},
			{PreConfig: func() { givenActiveClusterQueue(t, "acc-lq-later") }, Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
		},
	})
}

func TestAccLocalQueueImportID(t *testing.T) {
	t.Parallel()
	acctest.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config:        acctest.PlanOnlyProvider() + "resource \"mlplatform_local_queue\" \"x\" {\n namespace = \"a\"\n name = \"b\"\n cluster_queue = \"c\"\n}\n",
			ResourceName:  "mlplatform_local_queue.x",
			ImportState:   true,
			ImportStateId: "just-a-name",
			ExpectError:   regexp.MustCompile(`(?s)Invalid Import ID.*NAMESPACE/NAME`),
		}},
	})
}
