package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/utils/ptr"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
)

func provisioningConfig(t *testing.T, body string) string {
	return acctest.ProviderConfig(t) + "resource \"mlplatform_provisioning_admission_check\" \"dws\" {\n  name = \"acc-dws\"\n" + body + "\n}\n"
}

const provisioningV2 = `
  managed_resources = ["nvidia.com/gpu", "cpu"]
  parameters        = { ValidUntilSeconds = "3600" }
  retry_strategy    = { backoff_limit_count = 5 }
`

func TestAccProvisioningAdmissionCheck(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	checks := kq.KueueV1beta2().AdmissionChecks()
	configs := kq.KueueV1beta2().ProvisioningRequestConfigs()
	const addr = "mlplatform_provisioning_admission_check.dws"
	const name = "acc-dws"
	ctx := context.Background()

	checkSpec := kueuev1beta2.AdmissionCheckSpec{ControllerName: "kueue.x-k8s.io/provisioning-request",
		Parameters: &kueuev1beta2.AdmissionCheckParametersReference{APIGroup: "kueue.x-k8s.io", Kind: "ProvisioningRequestConfig", Name: name}}
	gkeSelector := &kueuev1beta2.ProvisioningRequestPodSetUpdates{NodeSelector: []kueuev1beta2.ProvisioningRequestPodSetUpdatesNodeSelector{
		{Key: "autoscaling.gke.io/provisioning-request", ValueFromProvisioningClassDetail: "ResizeRequestName"},
	}}
	configV1 := kueuev1beta2.ProvisioningRequestConfigSpec{
		ProvisioningClassName: "queued-provisioning.gke.io",
		ManagedResources:      []corev1.ResourceName{"nvidia.com/gpu"},
		RetryStrategy:         &kueuev1beta2.ProvisioningRequestRetryStrategy{BackoffLimitCount: ptr.To[int32](3), BackoffBaseSeconds: ptr.To[int32](60), BackoffMaxSeconds: ptr.To[int32](1800)},
		PodSetUpdates:         gkeSelector,
	}
	configV2 := configV1
	configV2.ManagedResources = []corev1.ResourceName{"cpu", "nvidia.com/gpu"}
	configV2.Parameters = map[string]kueuev1beta2.Parameter{"ValidUntilSeconds": "3600"}
	configV2.RetryStrategy = &kueuev1beta2.ProvisioningRequestRetryStrategy{BackoffLimitCount: ptr.To[int32](5), BackoffBaseSeconds: ptr.To[int32](60), BackoffMaxSeconds: ptr.To[int32](1800)}

	serverSpec := func(want kueuev1beta2.ProvisioningRequestConfigSpec) resource.TestCheckFunc {
		return func(*terraform.State) error {
			ac, err := checks.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if diff := cmp.Diff(checkSpec, ac.Spec); diff != "" {
				return fmt.Errorf("AdmissionCheck spec (-want +got):\n%s", diff)
			}
			cfg, err := configs.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if diff := cmp.Diff(want, cfg.Spec, cmpopts.EquateEmpty()); diff != "" {
				return fmt.Errorf("ProvisioningRequestConfig spec (-want +got):\n%s", diff)
			}
			// Kueue's provisioning controller (running because the sandbox serves
			// the ProvisioningRequest API, as GKE does) activates the check.
			return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				ac, err := checks.Get(ctx, name, metav1.GetOptions{})
				return err == nil && meta.IsStatusConditionTrue(ac.Status.Conditions, kueuev1beta2.AdmissionCheckActive), nil
			})
		}
	}
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := checks.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("AdmissionCheck still exists after destroy (err=%v)", err)
			}
			if _, err := configs.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("ProvisioningRequestConfig still exists after destroy (err=%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{ // GKE DWS with every default
				Config: provisioningConfig(t, ""),
				Check:  serverSpec(configV1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("provisioning_class"), knownvalue.StringExact("queued-provisioning.gke.io")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("managed_resources"), knownvalue.SetExact([]knownvalue.Check{knownvalue.StringExact("nvidia.com/gpu")})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("retry_strategy"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"backoff_limit_count": knownvalue.Int64Exact(3), "backoff_base_seconds": knownvalue.Int64Exact(60), "backoff_max_seconds": knownvalue.Int64Exact(1800),
					})),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("pod_set_node_selector_update"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("parameters"), knownvalue.Null()),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: name, ImportStateVerify: true},
			{ // in place: more resources, a parameter, more retries (the other retry settings keep Kueue's defaults)
				Config: provisioningConfig(t, provisioningV2),
				Check:  serverSpec(configV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
			},
			{ // kubectl edit: the node selector update removed, retries lowered
				PreConfig: func() {
					obj, err := configs.Get(ctx, name, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					obj.Spec.PodSetUpdates = nil
					obj.Spec.RetryStrategy.BackoffLimitCount = ptr.To[int32](1)
					if _, err := configs.Update(ctx, obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: provisioningConfig(t, provisioningV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						acctest.ExpectDrift(addr, "pod_set_node_selector_update", true, false),
						acctest.ExpectDrift(addr, "retry_strategy",
							map[string]any{"backoff_limit_count": 5, "backoff_base_seconds": 60, "backoff_max_seconds": 1800},
							map[string]any{"backoff_limit_count": 1, "backoff_base_seconds": 60, "backoff_max_seconds": 1800}),
						acctest.ExpectOnlyChanges(addr, "pod_set_node_selector_update", "retry_strategy.backoff_limit_count"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: serverSpec(configV2),
			},
			{ // the AdmissionCheck deleted out of band (Kueue lets go of an unused one): the resource, still there in its
				// config, is updated and the check created again (a create would find the config and refuse it)
				PreConfig: func() { deleteOutOfBand(t, checks, name) },
				Config:    provisioningConfig(t, provisioningV2),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("id")),
						acctest.ExpectOnlyChanges(addr), // nothing else: id alone, unknown
					},
					PostApplyPostRefresh: empty,
				},
				Check: resource.ComposeAggregateTestCheckFunc(serverSpec(configV2), func(*terraform.State) error {
					_, err := checks.Get(ctx, name, metav1.GetOptions{})
					return err
				}),
			},
			{ // back to the defaults: parameters removed, retries and resources back to Kueue's and GKE's defaults
				Config: provisioningConfig(t, ""),
				Check:  serverSpec(configV1),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: empty,
				},
			},
		},
	})
}

func TestAccProvisioningAdmissionCheckValidation(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ name, body, want string }{
		"dotted name": {name: "dws.gke", want: `(?s)Invalid Name.*Attribute name:.*\(no\s+dots\)`},
		"negative retries": {name: "x", body: `retry_strategy = { backoff_limit_count = -1 }`,
			want: `(?s)Retry Setting Out Of Range.*Attribute retry_strategy.backoff_limit_count:.*use\s+0\s+to\s+switch\s+retries\s+off`},
		"bad class":        {name: "x", body: `provisioning_class = "Queued_Provisioning"`, want: `(?s)Invalid Provisioning Class.*Attribute provisioning_class:`},
		"bad resource":     {name: "x", body: `managed_resources = ["gpu!"]`, want: `(?s)Invalid Resource Name.*Attribute managed_resources:`},
		"long parameter":   {name: "x", body: `parameters = { k = "` + fmt.Sprintf("%0256d", 0) + `" }`, want: `(?s)Parameter Too Long.*Attribute parameters\["k"\]:`},
		"backoff overflow": {name: "x", body: `retry_strategy = { backoff_max_seconds = 4294967296 }`, want: `(?s)Retry Setting Out Of Range.*Attribute retry_strategy.backoff_max_seconds:`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config: acctest.PlanOnlyProvider() +
						"resource \"mlplatform_provisioning_admission_check\" \"x\" {\n  name = \"" + tc.name + "\"\n  " + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// Destroying a check that a ClusterQueue still lists is refused with the
// queue's name, and neither object is deleted (Kueue would otherwise keep
// the check in Terminating and the queue would stop admitting).
func TestAccProvisioningAdmissionCheckInUse(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	_, kq := acctest.Kube(t)
	cqs := kq.KueueV1beta2().ClusterQueues()
	ctx := context.Background()
	const name, queue = "acc-dws-used", "acc-dws-user"
	config := acctest.ProviderConfig(t) + `
resource "mlplatform_provisioning_admission_check" "used" {
  name = "` + name + `"
}
`
	intact := func(*terraform.State) error {
		ac, err := kq.KueueV1beta2().AdmissionChecks().Get(ctx, name, metav1.GetOptions{})
		if err != nil || ac.DeletionTimestamp != nil {
			return fmt.Errorf("AdmissionCheck should be left intact: %v %v", err, ac.GetDeletionTimestamp())
		}
		if _, err := kq.KueueV1beta2().ProvisioningRequestConfigs().Get(ctx, name, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("ProvisioningRequestConfig should be left intact: %v", err)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: config},
			{
				PreConfig: func() {
					cq := &kueuev1beta2.ClusterQueue{ObjectMeta: metav1.ObjectMeta{Name: queue}, Spec: kueuev1beta2.ClusterQueueSpec{
						AdmissionChecksStrategy: &kueuev1beta2.AdmissionChecksStrategy{AdmissionChecks: []kueuev1beta2.AdmissionCheckStrategyRule{{Name: name}}},
					}}
					if _, err := cqs.Create(ctx, cq, metav1.CreateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:      config,
				Destroy:     true,
				ExpectError: regexp.MustCompile(`(?s)Kueue still uses this object.*AdmissionCheck ` + name + ` is still used by\s+ClusterQueue\s+` + queue + `.*it was not\s+deleted`),
			},
			{
				PreConfig: func() {
					// A Check on an ExpectError step never runs: verify the refusal left both objects here.
					if err := intact(nil); err != nil {
						t.Fatal(err)
					}
					if err := cqs.Delete(ctx, queue, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config:           config,
				Check:            intact,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}
