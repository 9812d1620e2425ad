package resources_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/iam/apiv1/iampb"
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
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
)

const gsaAnnotation = "iam.gke.io/gcp-service-account"

// givenGSA seeds a Google service account in the fake and returns its e-mail.
func givenGSA(t *testing.T, project, accountID string) string {
	t.Helper()
	sa, err := acctest.Env(t).GCP.IAM.AddServiceAccount(project, accountID, accountID)
	if err != nil {
		t.Fatal(err)
	}
	return sa.Email
}

// iamClient is an out-of-band IAM client (as gcloud would be), through the
// official client.
func iamClient(t *testing.T) *iam.Client {
	t.Helper()
	c, err := iam.New(context.Background(), acctest.Env(t).GCP.ClientOptions()...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// expectMember checks whether member holds the Workload Identity role on gsa.
func expectMember(t *testing.T, ic *iam.Client, gsa, member string, want bool) error {
	t.Helper()
	got, err := ic.HasMember(context.Background(), iam.ServiceAccountResource(gsa), iam.WorkloadIdentityUser, member)
	if err != nil {
		return err
	}
	if got != want {
		return fmt.Errorf("member %s on %s: granted=%v, want %v", member, gsa, got, want)
	}
	return nil
}

func workloadIdentityConfig(t *testing.T, body string) string {
	return acctest.ProviderConfig(t) + `
resource "mlplatform_workload_identity" "trainer" {
  namespace                  = "acc-wi-vision"
  kubernetes_service_account = "trainer"
  project_number             = "123456789012"
` + body + `
}
`
}

func TestAccWorkloadIdentity(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	givenNamespace(t, "acc-wi-vision")
	gsa := givenGSA(t, e.Project, "acc-wi-existing")
	ic := iamClient(t)
	ctx := context.Background()
	// Someone else's member on the same GSA: never touched.
	other := iam.WorkloadIdentityMember(e.Project, "other-team", "runner")
	if err := ic.AddMember(ctx, iam.ServiceAccountResource(gsa), iam.WorkloadIdentityUser, other); err != nil {
		t.Fatal(err)
	}
	core, _ := acctest.Kube(t)
	ksas := core.CoreV1().ServiceAccounts("acc-wi-vision")
	const addr = "mlplatform_workload_identity.trainer"
	member := iam.WorkloadIdentityMember(e.Project, "acc-wi-vision", "trainer")
	created := "acc-wi-created@" + e.Project + ".iam.gserviceaccount.com"
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	annotated := func(want string) resource.TestCheckFunc {
		return func(*terraform.State) error {
			ksa, err := ksas.Get(ctx, "trainer", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got := ksa.Annotations[gsaAnnotation]; got != want {
				return fmt.Errorf("KSA annotation %s = %q, want %q", gsaAnnotation, got, want)
			}
			return nil
		}
	}
	granted := func(gsa string, want bool) resource.TestCheckFunc {
		return func(*terraform.State) error { return expectMember(t, ic, gsa, member, want) }
	}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := ksas.Get(ctx, "trainer", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("KSA still exists after destroy (err=%v)", err)
			}
			if _, found, err := ic.ServiceAccount(ctx, created); err != nil || found {
				return fmt.Errorf("created GSA %s still exists after destroy (err=%v)", created, err)
			}
			return expectMember(t, ic, gsa, other, true)
		},
		Steps: []resource.TestStep{
			{
				Config: workloadIdentityConfig(t, fmt.Sprintf("google_service_account = %q", gsa)),
				Check:  resource.ComposeTestCheckFunc(annotated(gsa), granted(gsa, true)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("member"), knownvalue.StringExact(member)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("principal"), knownvalue.StringExact(
						"principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/"+e.Project+".svc.id.goog/subject/ns/acc-wi-vision/sa/trainer")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("iam_member_granted"), knownvalue.Bool(true)),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{ // wiring needs these known at plan time
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("member"), knownvalue.StringExact(member)),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("kubernetes_service_account_annotation"), knownvalue.StringExact(gsa)),
					},
					PostApplyPostRefresh: empty,
				},
			},
			{
				ResourceName: addr, ImportState: true, ImportStateId: "acc-wi-vision/trainer", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"project_number", "principal"}, // not held by the cluster or IAM
			},
			{ // gcloud removes the grant, kubectl re-points the annotation: both show, field by field, and apply restores them
				PreConfig: func() {
					if err := ic.RemoveMember(ctx, iam.ServiceAccountResource(gsa), iam.WorkloadIdentityUser, member); err != nil {
						t.Fatal(err)
					}
					ksa, err := ksas.Get(ctx, "trainer", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					ksa.Annotations[gsaAnnotation] = "someone-else@" + e.Project + ".iam.gserviceaccount.com"
					if _, err := ksas.Update(ctx, ksa, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: workloadIdentityConfig(t, fmt.Sprintf("google_service_account = %q", gsa)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectDrift(addr, "iam_member_granted", true, false),
						acctest.ExpectDrift(addr, "kubernetes_service_account_annotation", gsa, "someone-else@"+e.Project+".iam.gserviceaccount.com"),
						acctest.ExpectOnlyChanges(addr, "iam_member_granted", "kubernetes_service_account_annotation"),
					},
					PostApplyPostRefresh: empty,
				},
				Check: resource.ComposeTestCheckFunc(annotated(gsa), granted(gsa, true)),
			},
			{ // kubectl delete serviceaccount: shows as a KSA to create again
				PreConfig: func() { deleteOutOfBand(t, ksas, "trainer") },
				Config:    workloadIdentityConfig(t, fmt.Sprintf("google_service_account = %q", gsa)),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectUnknownValue(addr, tfjsonpath.New("kubernetes_service_account_uid")),
						acctest.ExpectOnlyChanges(addr, "kubernetes_service_account_annotation"), // and the uid, unknown until created
					},
					PostApplyPostRefresh: empty,
				},
				Check: annotated(gsa),
			},
			{ // switch to a created GSA: in place; the grant moves, the old one is revoked
				Config: workloadIdentityConfig(t, `create_google_service_account = { account_id = "acc-wi-created", display_name = "Vision trainer" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
						plancheck.ExpectKnownValue(addr, tfjsonpath.New("google_service_account"), knownvalue.StringExact(created)),
					},
					PostApplyPostRefresh: empty,
				},
				Check: resource.ComposeTestCheckFunc(annotated(created), granted(created, true), granted(gsa, false)),
			},
			{ // the console renames the created GSA: drift shown and restored
				PreConfig: func() {
					sa, _, err := ic.ServiceAccount(ctx, created)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := ic.DescribeServiceAccount(ctx, sa, "renamed", ""); err != nil {
						t.Fatal(err)
					}
				},
				Config: workloadIdentityConfig(t, `create_google_service_account = { account_id = "acc-wi-created", display_name = "Vision trainer" }`),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						acctest.ExpectDriftAt(addr, []any{"create_google_service_account", "display_name"}, "Vision trainer", "renamed"),
						acctest.ExpectOnlyChanges(addr, "create_google_service_account.display_name"),
					},
					PostApplyPostRefresh: empty,
				},
			},
		},
	})
}

// An adopted KSA keeps everything but the annotation, which delete removes;
// direct mode grants nothing and exposes the principal.
func TestAccWorkloadIdentityAdoptAndDirect(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	givenNamespace(t, "acc-wi-adopt")
	gsa := givenGSA(t, e.Project, "acc-wi-adopted")
	core, _ := acctest.Kube(t)
	ksas := core.CoreV1().ServiceAccounts("acc-wi-adopt")
	ctx := context.Background()
	for _, name := range []string{"runner", "direct"} {
		_, err := ksas.Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"app": "runner"}, Annotations: map[string]string{"owner": "platform-team"}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
	}
	config := acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_workload_identity" "runner" {
  namespace                         = "acc-wi-adopt"
  kubernetes_service_account        = "runner"
  create_kubernetes_service_account = false
  google_service_account            = %q
}

resource "mlplatform_workload_identity" "direct" {
  namespace                         = "acc-wi-adopt"
  kubernetes_service_account        = "direct"
  create_kubernetes_service_account = false
  mode                              = "direct"
  project_number                    = "123456789012"
}
`, gsa)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			for _, name := range []string{"runner", "direct"} {
				ksa, err := ksas.Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return fmt.Errorf("adopted KSA %s deleted: %v", name, err)
				}
				want := map[string]string{"owner": "platform-team"}
				if diff := cmp.Diff(want, ksa.Annotations); diff != "" {
					return fmt.Errorf("annotations of adopted KSA %s after destroy (-want +got):\n%s", name, diff)
				}
				if diff := cmp.Diff(map[string]string{"app": "runner"}, ksa.Labels); diff != "" {
					return fmt.Errorf("labels of adopted KSA %s after destroy (-want +got):\n%s", name, diff)
				}
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("mlplatform_workload_identity.direct", tfjsonpath.New("principal"), knownvalue.StringExact(
						"principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/"+e.Project+".svc.id.goog/subject/ns/acc-wi-adopt/sa/direct")),
					statecheck.ExpectKnownValue("mlplatform_workload_identity.direct", tfjsonpath.New("iam_member_granted"), knownvalue.Null()),
					statecheck.ExpectKnownValue("mlplatform_workload_identity.runner", tfjsonpath.New("iam_member_granted"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error {
					ksa, err := ksas.Get(ctx, "runner", metav1.GetOptions{})
					if err != nil {
						return err
					}
					want := map[string]string{"owner": "platform-team", gsaAnnotation: gsa}
					if diff := cmp.Diff(want, ksa.Annotations); diff != "" {
						return fmt.Errorf("annotations (-want +got):\n%s", diff)
					}
					return nil
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
			{ResourceName: "mlplatform_workload_identity.runner", ImportState: true, ImportStateId: "acc-wi-adopt/runner", ImportStateVerify: true},
			{ResourceName: "mlplatform_workload_identity.direct", ImportState: true, ImportStateId: "acc-wi-adopt/direct", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"project_number", "principal"}},
		},
	})
}

// A cluster without a workload pool fails the apply before anything is
// written, with the remedy.
func TestAccWorkloadIdentityNoWorkloadPool(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	const project = "acc-no-pool"
	e.GCP.Container.AddCluster(project, e.Location, "plain", false)
	gsa := givenGSA(t, project, "acc-wi-nopool")
	givenNamespace(t, "acc-wi-nopool")
	core, _ := acctest.Kube(t)
	ic := iamClient(t)
	provider := strings.NewReplacer(fmt.Sprintf("%q", e.Project), fmt.Sprintf("%q", project), fmt.Sprintf("%q", e.Cluster), `"plain"`).Replace(acctest.ProviderConfig(t))
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{
				Config: provider + fmt.Sprintf(`
resource "mlplatform_workload_identity" "x" {
  namespace                  = "acc-wi-nopool"
  kubernetes_service_account = "trainer"
  google_service_account     = %q
}
`, gsa),
				ExpectError: regexp.MustCompile(`(?s)cluster\s+projects/acc-no-pool/locations/us-central1/clusters/plain\s+has\s+no\s+Workload\s+Identity\s+pool;\s+enable\s+it\s+on\s+the\s+cluster\s+first`),
			},
			{ // nothing was written: no KSA, no IAM policy change, nothing in state
				PreConfig: func() {
					if _, err := core.CoreV1().ServiceAccounts("acc-wi-nopool").Get(context.Background(), "trainer", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						t.Errorf("KSA was created before the pre-flight check failed (err=%v)", err)
					}
					p, err := ic.Admin.GetIamPolicy(context.Background(), &iampb.GetIamPolicyRequest{Resource: iam.ServiceAccountResource(gsa)})
					if err != nil {
						t.Fatal(err)
					}
					if roles := p.Roles(); len(roles) != 0 {
						t.Errorf("IAM policy written before the pre-flight check failed: roles %v", roles)
					}
				},
				Config:           provider,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
			},
		},
	})
}

// Twenty bindings to one GSA in one apply (parallelism 10), while another
// writer keeps adding and removing its own member on the same policy: every
// etag conflict is retried, and nothing of anyone's is lost.
func TestAccWorkloadIdentityConcurrentBindings(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	givenNamespace(t, "acc-wi-many")
	gsa := givenGSA(t, e.Project, "acc-wi-shared")
	ic := iamClient(t)
	ctx := context.Background()
	res := iam.ServiceAccountResource(gsa)
	outsider := "serviceAccount:outsider@" + e.Project + ".iam.gserviceaccount.com"
	const n = 20
	config := acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_workload_identity" "rank" {
  count                      = %d
  namespace                  = "acc-wi-many"
  kubernetes_service_account = "rank-${count.index}"
  google_service_account     = %q
}
`, n, gsa)

	var (
		stop      = make(chan struct{})
		done      = make(chan struct{})
		mu        sync.Mutex
		lastAdded bool
		writes    int
	)
	churn := func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			var err error
			if i%2 == 0 {
				err = ic.AddMember(ctx, res, "roles/iam.serviceAccountTokenCreator", outsider)
			} else {
				err = ic.RemoveMember(ctx, res, "roles/iam.serviceAccountTokenCreator", outsider)
			}
			if err != nil {
				t.Errorf("outside writer: %v", err)
				return
			}
			mu.Lock()
			lastAdded, writes = i%2 == 0, writes+1
			mu.Unlock()
		}
	}
	allBound := func(want bool) error {
		var errs []string
		for i := range n {
			if err := expectMember(t, ic, gsa, iam.WorkloadIdentityMember(e.Project, "acc-wi-many", fmt.Sprintf("rank-%d", i)), want); err != nil {
				errs = append(errs, err.Error())
			}
		}
		if len(errs) > 0 {
			return fmt.Errorf("%d of %d bindings wrong:\n%s", len(errs), n, strings.Join(errs, "\n"))
		}
		return nil
	}
	var stopOnce sync.Once
	halt := func() { stopOnce.Do(func() { close(stop) }); <-done }
	var started atomic.Bool
	t.Cleanup(func() {
		if started.Load() {
			halt() // also when the apply failed before the check stopped the writer
		}
	})
	outsiderIntact := func() error {
		halt()
		got, err := ic.HasMember(ctx, res, "roles/iam.serviceAccountTokenCreator", outsider)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		if writes < 2 {
			return fmt.Errorf("the outside writer wrote only %d times during the apply: no contention was tested", writes)
		}
		if got != lastAdded {
			return fmt.Errorf("outside member granted=%v after the apply, but its last write left it %v", got, lastAdded)
		}
		return nil
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             func(*terraform.State) error { return allBound(false) },
		Steps: []resource.TestStep{{
			PreConfig:        func() { started.Store(true); go churn() },
			Config:           config,
			Check:            func(*terraform.State) error { return errors.Join(allBound(true), outsiderIntact()) },
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
		}},
	})
}

// No credential, token or key reaches the state, the logs (TF_LOG=trace,
// CLI and provider) or the errors.
func TestAccWorkloadIdentityNoSecretsInStateOrLogs(t *testing.T) {
	e := acctest.Env(t)
	logFile := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	givenNamespace(t, "acc-wi-secrets")
	gsa := givenGSA(t, e.Project, "acc-wi-secrets")
	kubeconfig, err := os.ReadFile(e.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	secrets := acctest.CredentialMarkers(t, string(kubeconfig))
	var state string
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_workload_identity" "x" {
  namespace                  = "acc-wi-secrets"
  kubernetes_service_account = "trainer"
  google_service_account     = %q
}
`, gsa),
			Check: func(s *terraform.State) error { state = s.String(); return nil },
		}},
	})
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	// Both sides must be in the log, or the check below proves nothing: the
	// CLI's lines and the provider's own (terraform-plugin-framework's).
	for _, side := range []string{"mlplatform_workload_identity", "sdk.framework"} {
		if !strings.Contains(string(logs), side) {
			t.Fatalf("the trace log %s has no %q lines: the check below would prove nothing", logFile, side)
		}
	}
	for what, text := range map[string]string{"state": state, "trace log": string(logs)} {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s contains a credential (%.12s…)", what, s)
			}
		}
		for _, marker := range []string{"PRIVATE KEY", "private_key", "Bearer ", "ya29."} {
			if strings.Contains(text, marker) {
				t.Errorf("%s contains %q", what, marker)
			}
		}
	}
}

// Bad bindings are refused at plan, naming the attribute, with no connection.
func TestAccWorkloadIdentityValidation(t *testing.T) {
	t.Parallel()
	const ksa = "namespace = \"vision\"\n kubernetes_service_account = \"trainer\"\n"
	cases := map[string]struct{ body, want string }{
		"no GSA":         {ksa, `(?s)Missing Google Service Account.*Attribute google_service_account`},
		"both GSAs":      {ksa + `google_service_account = "a-gsa@p.iam.gserviceaccount.com"` + "\n create_google_service_account = { account_id = \"vision-trainer\" }", `(?s)Conflicting Google Service Accounts.*Attribute create_google_service_account`},
		"user as GSA":    {ksa + `google_service_account = "alice@example.com"`, `(?s)Invalid Google Service Account.*Attribute google_service_account`},
		"short id":       {ksa + `create_google_service_account = { account_id = "ml" }`, `(?s)Invalid Account ID.*Attribute create_google_service_account.account_id`},
		"direct, no num": {ksa + `mode = "direct"`, `(?s)Missing Project Number.*Attribute project_number`},
		"direct and GSA": {ksa + "mode = \"direct\"\n project_number = \"1\"\n google_service_account = \"a-gsa@p.iam.gserviceaccount.com\"", `(?s)Google Service Account In Direct Mode.*Attribute google_service_account`},
		"mode typo":      {ksa + `mode = "impersonate"`, `(?s)Invalid Mode.*Attribute mode: "impersonate" is not a mode`},
		"KSA name":       {"namespace = \"vision\"\n kubernetes_service_account = \"Trainer_1\"\n google_service_account = \"a-gsa@p.iam.gserviceaccount.com\"", `(?s)Invalid Kubernetes Service Account Name.*Attribute kubernetes_service_account`},
		"project number": {ksa + "project = \"123456789012\"\n google_service_account = \"a-gsa@p.iam.gserviceaccount.com\"", `(?s)Invalid Project.*Attribute project`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			acctest.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				Steps: []resource.TestStep{{
					Config: acctest.PlanOnlyProvider(`project = "ml-prod"`) +
						"resource \"mlplatform_workload_identity\" \"x\" {\n" + tc.body + "\n}\n",
					PlanOnly:    true,
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// Reading and deleting a binding need no GKE cluster (only an apply checks
// its workload pool first), so a provider configured with a kubeconfig and
// no cluster can still plan and destroy.
func TestAccWorkloadIdentityReadAndDeleteWithoutCluster(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	givenNamespace(t, "acc-wi-nocluster")
	gsa := givenGSA(t, e.Project, "acc-wi-nocluster")
	ic := iamClient(t)
	body := fmt.Sprintf(`
resource "mlplatform_workload_identity" "x" {
  namespace                  = "acc-wi-nocluster"
  kubernetes_service_account = "trainer"
  google_service_account     = %q
}
`, gsa)
	withoutCluster := regexp.MustCompile(`(?m)^\s*(cluster|location)\s*=.*\n`).ReplaceAllString(acctest.ProviderConfig(t), "")
	member := iam.WorkloadIdentityMember(e.Project, "acc-wi-nocluster", "trainer")
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy:             func(*terraform.State) error { return expectMember(t, ic, gsa, member, false) },
		Steps: []resource.TestStep{
			{Config: acctest.ProviderConfig(t) + body},
			{Config: withoutCluster + body, PlanOnly: true}, // refresh and plan: empty, no GKE needed
			{Config: withoutCluster},                        // destroy
		},
	})
}
