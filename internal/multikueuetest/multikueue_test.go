package multikueuetest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	kueueclient "sigs.k8s.io/kueue/client-go/clientset/versioned"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// providers is the provider block of the manager (default) and, with
// aliases, one alias per worker (worker1, worker2), each with its own
// kubeconfig, all with the one GKE fake. The Google token every API server
// accepts comes from GOOGLE_OAUTH_ACCESS_TOKEN (TestMain), as a user's would,
// so it is in no configuration the test framework logs. Aliases need the CLI with the provider binary (one plugin
// process per provider configuration, as in production): served in-process
// by terraform-plugin-testing, all configurations share one provider server,
// and the last configured wins.
func providers(m *testenv.Multi, extra string, aliases bool) string {
	var b strings.Builder
	envs := m.Envs()
	if !aliases {
		envs = envs[:1]
	} else {
		b.WriteString("terraform {\n  required_providers {\n    mlplatform = { source = \"mlplatform/mlplatform\" }\n  }\n}\n\n")
	}
	for i, e := range envs {
		alias := ""
		if i > 0 {
			alias = fmt.Sprintf("worker%d", i)
		}
		b.WriteString(acctest.ProviderBlock(e, m.Manager.GCP.Addr(), e.Kubeconfig, alias, extra))
	}
	return b.String()
}

// workers is worker-1 named by its GKE cluster (endpoint and CA from the
// GKE fake, the Google token) and worker-2 by a kubeconfig file; check lists
// the given workers.
func workers(m *testenv.Multi, w1Extra string, check ...string) string {
	return fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "w1" {
  name   = "worker-1"
  worker = { gke_cluster = { location = %q, name = %q } }
%s}

resource "mlplatform_multikueue_cluster" "w2" {
  name   = "worker-2"
  worker = { kubeconfig = %q }
}

resource "mlplatform_multikueue_check" "regions" {
  name     = "multikueue"
  clusters = [%s]
}
`, m.Workers[0].Location, m.Workers[0].Cluster, w1Extra, m.Workers[1].Kubeconfig, strings.Join(check, ", "))
}

const (
	w1    = "mlplatform_multikueue_cluster.w1"
	w2    = "mlplatform_multikueue_cluster.w2"
	check = "mlplatform_multikueue_check.regions"
	both  = "mlplatform_multikueue_cluster.w1.name, mlplatform_multikueue_cluster.w2.name"
)

func clients(t *testing.T, e *testenv.Env) (kubernetes.Interface, kueueclient.Interface) {
	t.Helper()
	return kubernetes.NewForConfigOrDie(e.REST), kueueclient.NewForConfigOrDie(e.REST)
}

// secretToken reads the token in a worker's kubeconfig Secret.
func secretToken(ctx context.Context, core kubernetes.Interface, name string) (token, sha string, err error) {
	s, err := core.CoreV1().Secrets("kueue-system").Get(ctx, name+"-kubeconfig", metav1.GetOptions{})
	if err != nil {
		return "", "", err
	}
	data := s.Data["kubeconfig"]
	sum := sha256.Sum256(data)
	cfg, err := clientcmd.Load(data)
	if err != nil {
		return "", "", err
	}
	for _, a := range cfg.AuthInfos {
		token = a.Token
	}
	return token, hex.EncodeToString(sum[:]), nil
}

// active waits until Kueue reports the MultiKueueCluster Active.
func active(ctx context.Context, kq kueueclient.Interface, name string) error {
	var last []metav1.Condition
	err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		c, err := kq.KueueV1beta2().MultiKueueClusters().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil //nolint:nilerr // retried until the deadline
		}
		last = c.Status.Conditions
		return meta.IsStatusConditionTrue(last, kueuev1beta2.MultiKueueClusterActive), nil
	})
	if err != nil {
		return fmt.Errorf("MultiKueueCluster %s not Active: %+v: %w", name, last, err)
	}
	return nil
}

// TestAccMultiKueueWorkers gives the manager access to two workers (one
// named by its GKE cluster, one by a kubeconfig), checks the plan is empty,
// restores a deleted and an edited kubeconfig Secret and a deleted worker
// ClusterRole (each shown as exactly that drift), removes a worker from the
// check, imports each resource, and rotates the token, and keeps every token
// out of the state.
func TestAccMultiKueueWorkers(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	mgr, mq := clients(t, m.Manager)
	w1core, _ := clients(t, m.Workers[0])
	cfg := providers(m, "", false) + workers(m, "", both)
	var firstSHA, formerToken string
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{
				Config: cfg,
				// The Secret's name is known at plan; its hash and the token's
				// expiry only after apply.
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(w1, tfjsonpath.New("kubeconfig_secret").AtMapKey("name"), knownvalue.StringExact("worker-1-kubeconfig")),
					plancheck.ExpectUnknownValue(w1, tfjsonpath.New("kubeconfig_secret").AtMapKey("sha256")),
					plancheck.ExpectUnknownValue(w1, tfjsonpath.New("kubeconfig_secret").AtMapKey("token_expires_at")),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(w1, "worker_access", "granted"),
					resource.TestCheckResourceAttr(w1, "kubeconfig_secret.name", "worker-1-kubeconfig"),
					resource.TestMatchResourceAttr(w1, "kubeconfig_secret.sha256", regexp.MustCompile(`^[0-9a-f]{64}$`)),
					resource.TestMatchResourceAttr(w1, "kubeconfig_secret.token_expires_at", regexp.MustCompile(`^20\d\d-`)),
					resource.TestCheckResourceAttr(w1, "worker_endpoint", m.Workers[0].REST.Host),
					resource.TestCheckResourceAttr(w1, "worker.gke_cluster.project", m.Manager.Project),
					resource.TestCheckResourceAttr(w2, "worker_endpoint", m.Workers[1].REST.Host),
					resource.TestCheckResourceAttr(check, "clusters.#", "2"),
					func(s *terraform.State) error {
						for _, name := range []string{"worker-1", "worker-2"} {
							token, sha, err := secretToken(ctx, mgr, name)
							if err != nil {
								return err
							}
							addr := map[string]string{"worker-1": w1, "worker-2": w2}[name]
							if got := s.RootModule().Resources[addr].Primary.Attributes["kubeconfig_secret.sha256"]; got != sha {
								return fmt.Errorf("%s: state sha256 %s, Secret hashes to %s", name, got, sha)
							}
							if token == "" || stateHas(s, token) {
								return fmt.Errorf("%s: the token is empty or in the state", name)
							}
							if err := active(ctx, mq, name); err != nil {
								return err
							}
						}
						_, firstSHA, _ = secretToken(ctx, mgr, "worker-1")
						return nil
					},
				),
			},
			{
				// Deleted out of band: shown as exactly that, restored with a new token.
				PreConfig: func() {
					if err := mgr.CoreV1().Secrets("kueue-system").Delete(ctx, "worker-1-kubeconfig", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(w1, plancheck.ResourceActionUpdate),
					acctest.ExpectOnlyChanges(w1, "kubeconfig_secret.sha256", "kubeconfig_secret.token_expires_at"),
					plancheck.ExpectResourceAction(w2, plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction(check, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					_, sha, err := secretToken(ctx, mgr, "worker-1")
					if err != nil {
						return fmt.Errorf("the Secret was not restored: %w", err)
					}
					if sha == firstSHA {
						return fmt.Errorf("the restored Secret has the old token")
					}
					return active(ctx, mq, "worker-1")
				},
			},
			{
				// Edited to a wrong token: Kueue v0.17 keeps reporting the cluster
				// Active, so only the hash shows it; restored.
				PreConfig: func() {
					s, err := mgr.CoreV1().Secrets("kueue-system").Get(ctx, "worker-1-kubeconfig", metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					s.Data["kubeconfig"] = []byte(strings.Replace(string(s.Data["kubeconfig"]), "token: ", "token: x", 1))
					if _, err := mgr.CoreV1().Secrets("kueue-system").Update(ctx, s, metav1.UpdateOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w1, "kubeconfig_secret.sha256", "kubeconfig_secret.token_expires_at"),
					plancheck.ExpectResourceAction(w2, plancheck.ResourceActionNoop),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestMatchResourceAttr(w1, "kubeconfig_secret.sha256", regexp.MustCompile(`^[0-9a-f]{64}$`)),
					func(*terraform.State) error {
						token, _, err := secretToken(ctx, mgr, "worker-1")
						if err != nil || strings.HasPrefix(token, "x") {
							return fmt.Errorf("the edited token was not replaced (err %v)", err)
						}
						return nil
					}),
			},
			{
				// The worker's ClusterRole deleted out of band: shown as worker_access.
				PreConfig: func() {
					if err := w1core.RbacV1().ClusterRoles().Delete(ctx, "mlplatform-multikueue", metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w1, "worker_access"),
					acctest.ExpectDrift(w1, "worker_access", "granted", "ClusterRole mlplatform-multikueue missing"),
				}},
				Check: func(*terraform.State) error {
					_, err := w1core.RbacV1().ClusterRoles().Get(ctx, "mlplatform-multikueue", metav1.GetOptions{})
					return err
				},
			},
			{
				// The MultiKueueConfig edited out of band (worker-2 dropped): drift
				// of exactly clusters, restored.
				PreConfig: func() {
					patch := []byte(`{"spec":{"clusters":["worker-1"]}}`)
					if _, err := mq.KueueV1beta2().MultiKueueConfigs().Patch(ctx, "multikueue", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(check, plancheck.ResourceActionUpdate),
					acctest.ExpectDrift(check, "clusters", []any{"worker-1", "worker-2"}, []any{"worker-1"}),
					acctest.ExpectOnlyChanges(check, "clusters"),
					plancheck.ExpectResourceAction(w1, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					c, err := mq.KueueV1beta2().MultiKueueConfigs().Get(ctx, "multikueue", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if strings.Join(c.Spec.Clusters, ",") != "worker-1,worker-2" {
						return fmt.Errorf("MultiKueueConfig lists %v after apply, want both workers", c.Spec.Clusters)
					}
					return nil
				},
			},
			{
				// The same workers reordered out of band: the order is the
				// dispatcher's preference (Kueue v0.19), so it is drift of
				// exactly clusters, restored to the configured order.
				PreConfig: func() {
					patch := []byte(`{"spec":{"clusters":["worker-2","worker-1"]}}`)
					if _, err := mq.KueueV1beta2().MultiKueueConfigs().Patch(ctx, "multikueue", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(check, plancheck.ResourceActionUpdate),
					acctest.ExpectDrift(check, "clusters", []any{"worker-1", "worker-2"}, []any{"worker-2", "worker-1"}),
					acctest.ExpectOnlyChanges(check, "clusters.0", "clusters.1"), // a list: each reordered place is a change
				}},
				Check: clustersInOrder(ctx, mq, "worker-1", "worker-2"),
			},
			{
				// Reordered in the configuration: an in-place update of the
				// MultiKueueConfig to that order, then an empty plan.
				Config: providers(m, "", false) + workers(m, "", "mlplatform_multikueue_cluster.w2.name", "mlplatform_multikueue_cluster.w1.name"),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(check, plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges(check, "clusters.0", "clusters.1"),
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: resource.ComposeTestCheckFunc(clustersInOrder(ctx, mq, "worker-2", "worker-1"),
					resource.TestCheckResourceAttr(check, "clusters.0", "worker-2"), resource.TestCheckResourceAttr(check, "clusters.1", "worker-1")),
			},
			{
				// A worker removed from the config: one changed attribute; the
				// MultiKueueConfig lists one cluster and the check is Active.
				Config: providers(m, "", false) + workers(m, "", "mlplatform_multikueue_cluster.w1.name"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(check, plancheck.ResourceActionUpdate),
					plancheck.ExpectResourceAction(w2, plancheck.ResourceActionNoop),
				}},
				Check: func(*terraform.State) error {
					c, err := mq.KueueV1beta2().MultiKueueConfigs().Get(ctx, "multikueue", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if strings.Join(c.Spec.Clusters, ",") != "worker-1" {
						return fmt.Errorf("MultiKueueConfig lists %v, want [worker-1]", c.Spec.Clusters)
					}
					return nil
				},
			},
			{
				// A new service account for worker-2: written with a new token,
				// then the former one (and its RBAC) deleted in the worker.
				Config: providers(m, "", false) + strings.Replace(workers(m, "", "mlplatform_multikueue_cluster.w1.name"),
					"  worker = { kubeconfig", "  worker_service_account = \"mlplatform-multikueue-b\"\n  worker = { kubeconfig", 1),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w2, "worker_service_account", "kubeconfig_secret.sha256", "kubeconfig_secret.token_expires_at"),
				}},
				Check: func(*terraform.State) error {
					w2core, _ := clients(t, m.Workers[1])
					if _, err := w2core.CoreV1().ServiceAccounts("kueue-system").Get(ctx, "mlplatform-multikueue", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("the former service account is still in worker-2 (err %v)", err)
					}
					if _, err := w2core.RbacV1().ClusterRoles().Get(ctx, "mlplatform-multikueue", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
						return fmt.Errorf("the former ClusterRole is still in worker-2 (err %v)", err)
					}
					if _, err := w2core.CoreV1().ServiceAccounts("kueue-system").Get(ctx, "mlplatform-multikueue-b", metav1.GetOptions{}); err != nil {
						return fmt.Errorf("the new service account: %w", err)
					}
					return active(ctx, mq, "worker-2")
				},
			},
			{ResourceName: check, ImportState: true, ImportStateId: "multikueue", ImportStateVerify: true},
			{ResourceName: w1, ImportState: true, ImportStateId: "worker-1", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"worker."}},
			{ResourceName: w2, ImportState: true, ImportStateId: "worker-2", ImportStateVerify: true,
				ImportStateVerifyIgnore: []string{"worker."}},
			{
				// A short token: changing the validity writes a new one.
				Config: providers(m, "", false) + workers(m, "  token_validity = \"20m\"\n  rotate_before  = \"10m\"\n", both),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w1, "kubeconfig_secret.sha256", "kubeconfig_secret.token_expires_at", "token_validity", "rotate_before"),
				}},
				Check: func(s *terraform.State) error {
					exp, err := time.Parse(time.RFC3339, s.RootModule().Resources[w1].Primary.Attributes["kubeconfig_secret.token_expires_at"])
					if err != nil {
						return err
					}
					if d := time.Until(exp); d < 18*time.Minute || d > 21*time.Minute {
						return fmt.Errorf("token expires in %s, want about 20m", d)
					}
					_, firstSHA, _ = secretToken(ctx, mgr, "worker-1")
					return nil
				},
			},
			{
				// Within rotate_before of expiry, a plan rotates the token, and
				// the former token is revoked in the worker. The window opens
				// 20 s after a token is written: the new token must still be
				// outside it when the refresh after this apply runs (with a 2 s
				// gap, a loaded machine took longer and planned a rotation again).
				PreConfig: func() {
					time.Sleep(21 * time.Second)
					formerToken, _, _ = secretToken(ctx, mgr, "worker-1")
				},
				Config: providers(m, "", false) + workers(m, "  token_validity = \"20m\"\n  rotate_before  = \"19m40s\"\n", both),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w1, "kubeconfig_secret.sha256", "kubeconfig_secret.token_expires_at", "rotate_before"),
				}},
				Check: func(*terraform.State) error {
					token, sha, _ := secretToken(ctx, mgr, "worker-1")
					if sha == firstSHA {
						return fmt.Errorf("the token was not rotated")
					}
					if err := workerTakes(ctx, m.Workers[0], token); err != nil {
						return fmt.Errorf("the new token: %w", err)
					}
					return active(ctx, mq, "worker-1")
				},
				// (the former token's revocation is checked in the next step: a
				// slow check here would bring the next rotation into the window)
			},
			{
				// The Secret the token is bound to deleted in the worker: the token
				// is revoked, shown as worker_access; apply writes a new one.
				PreConfig: func() {
					// The former token is revoked (the API server caches a
					// token's authentication for 10 s).
					var err error
					for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Second) {
						if err = workerTakes(ctx, m.Workers[0], formerToken); apierrors.IsUnauthorized(err) {
							break
						}
					}
					if !apierrors.IsUnauthorized(err) {
						t.Fatalf("the former token still works in worker-1 30 s after the rotation (err %v)", err)
					}
					holders, err := w1core.CoreV1().Secrets("kueue-system").List(ctx, metav1.ListOptions{LabelSelector: "mlplatform.dev/multikueue-token-of"})
					if err != nil || len(holders.Items) != 1 {
						t.Fatalf("want exactly one token Secret in worker-1 after rotation, got %v (err %v)", holders, err)
					}
					if err := w1core.CoreV1().Secrets("kueue-system").Delete(ctx, holders.Items[0].Name, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: providers(m, "", false) + workers(m, "  token_validity = \"20m\"\n  rotate_before  = \"10m\"\n", both),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w1, "worker_access", "kubeconfig_secret.sha256", "kubeconfig_secret.token_expires_at", "rotate_before"),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(w1, "worker_access", "granted"),
					func(*terraform.State) error {
						token, _, _ := secretToken(ctx, mgr, "worker-1")
						return workerTakes(ctx, m.Workers[0], token)
					}),
			},
			{
				// Outside the window, the same token stays: only rotate_before changes.
				Config: providers(m, "", false) + workers(m, "  token_validity = \"20m\"\n  rotate_before  = \"11m\"\n", both),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					acctest.ExpectOnlyChanges(w1, "rotate_before"),
				}},
			},
		},
		CheckDestroy: func(*terraform.State) error {
			for _, name := range []string{"worker-1", "worker-2"} {
				if _, err := mq.KueueV1beta2().MultiKueueClusters().Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("MultiKueueCluster %s not deleted (err %v)", name, err)
				}
				if _, err := mgr.CoreV1().Secrets("kueue-system").Get(ctx, name+"-kubeconfig", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					return fmt.Errorf("Secret %s-kubeconfig not deleted (err %v)", name, err)
				}
			}
			if _, err := w1core.CoreV1().ServiceAccounts("kueue-system").Get(ctx, "mlplatform-multikueue", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the worker's service account was not deleted (err %v)", err)
			}
			return nil
		},
	})
}

// workerTakes reports whether the worker's API server takes token (an
// Unauthorized error when it does not).
func workerTakes(ctx context.Context, worker *testenv.Env, token string) error {
	cfg := &rest.Config{Host: worker.REST.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: worker.REST.CAData}}
	_, err := kueueclient.NewForConfigOrDie(cfg).KueueV1beta2().Workloads("").List(ctx, metav1.ListOptions{Limit: 1})
	return err
}

// stateHas reports whether any attribute of any resource contains s.
func stateHas(st *terraform.State, s string) bool {
	for _, r := range st.RootModule().Resources {
		for _, v := range r.Primary.Attributes {
			if strings.Contains(v, s) {
				return true
			}
		}
	}
	return false
}

// TestAccMultiKueueRefusesTakeover: a create never writes over a Secret (or
// worker service account) someone else made.
func TestAccMultiKueueRefusesTakeover(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	mgr, _ := clients(t, m.Manager)
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "theirs-kubeconfig", Namespace: "kueue-system"},
		Data: map[string][]byte{"kubeconfig": []byte("not ours")}}
	if _, err := mgr.CoreV1().Secrets("kueue-system").Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mgr.CoreV1().Secrets("kueue-system").Delete(ctx, theirs.Name, metav1.DeleteOptions{}) }()
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: providers(m, "", false) + fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "theirs" {
  name   = "theirs"
  worker = { kubeconfig = %q }
}
`, m.Workers[1].Kubeconfig),
			ExpectError: regexp.MustCompile(`(?s)Secret kueue-system/theirs-kubeconfig already exists.*not created by\s+mlplatform`),
		}},
	})
	got, err := mgr.CoreV1().Secrets("kueue-system").Get(ctx, theirs.Name, metav1.GetOptions{})
	if err != nil || string(got.Data["kubeconfig"]) != "not ours" {
		t.Fatalf("their Secret was changed (err %v): %q", err, got.Data["kubeconfig"])
	}
	w2core, _ := clients(t, m.Workers[1])
	if _, err := w2core.CoreV1().ServiceAccounts("kueue-system").Get(ctx, "mlplatform-multikueue", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a refused create wrote the worker's service account (err %v)", err)
	}
}

// No credential reaches the state or the logs (TF_LOG=trace, CLI and
// provider): not the tokens written into the kubeconfig Secrets, not the
// Google access token the provider reaches worker-1 with, not the test
// kubeconfigs' client keys.
func TestAccMultiKueueNoSecretsInStateOrLogs(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	mgr, _ := clients(t, m.Manager)
	logFile := filepath.Join(t.TempDir(), "trace.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_ACC_LOG_PATH", logFile)
	var secrets []string
	for _, e := range m.Envs() {
		kc, err := os.ReadFile(e.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		secrets = append(secrets, acctest.CredentialMarkers(t, string(kc))...)
	}
	secrets = append(secrets, m.Manager.GoogleAccessToken)
	var state string
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: providers(m, "", false) + workers(m, "", both),
			Check: func(s *terraform.State) error {
				state = s.String()
				for _, name := range []string{"worker-1", "worker-2"} {
					token, _, err := secretToken(ctx, mgr, name)
					if err != nil || token == "" {
						return fmt.Errorf("no token in %s's Secret (err %v): the check would prove nothing", name, err)
					}
					secrets = append(secrets, token)
				}
				return nil
			},
		}},
	})
	logs, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"mlplatform_multikueue_cluster", "sdk.framework"} {
		if !strings.Contains(string(logs), side) {
			t.Fatalf("the trace log %s has no %q lines: the check below would prove nothing", logFile, side)
		}
	}
	for what, text := range map[string]string{"state": state, "trace log": string(logs)} {
		for _, s := range secrets {
			if i := strings.Index(text, s); i >= 0 {
				t.Errorf("%s contains a credential (%.12s…) after %q", what, s, text[max(0, i-200):i])
			}
		}
		for _, marker := range []string{"PRIVATE KEY", "private_key", "Bearer ", "ya29.", "eyJhbGciOi"} {
			if strings.Contains(text, marker) {
				t.Errorf("%s contains %q", what, marker)
			}
		}
	}
}

// TestAccMultiKueueCheckSaysWhy: a check whose workers do not connect fails
// its apply within active_timeout, naming each worker with the real Kueue's
// reason in plain words: no MultiKueueCluster, a kubeconfig Kueue rejects
// (an exec plugin), a token the worker refuses, a service account without
// RBAC, an API server that is not there.
func TestAccMultiKueueCheckSaysWhy(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	mgr, mq := clients(t, m.Manager)
	host := m.Workers[1].REST.Host
	ca := string(m.Workers[1].REST.CAData)
	bad := map[string]string{
		"exec-plugin": fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: %q, certificate-authority-data: %q}}]\n"+
			"users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: gke-gcloud-auth-plugin}}}]\n"+
			"contexts: [{name: w, context: {cluster: w, user: u}}]\ncurrent-context: w\n", host, b64(ca)),
		"bad-token": fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: %q, certificate-authority-data: %q}}]\n"+
			"users: [{name: u, user: {token: not-a-token}}]\ncontexts: [{name: w, context: {cluster: w, user: u}}]\ncurrent-context: w\n", host, b64(ca)),
		"nowhere": fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: \"https://127.0.0.1:1\", certificate-authority-data: %q}}]\n"+
			"users: [{name: u, user: {token: x}}]\ncontexts: [{name: w, context: {cluster: w, user: u}}]\ncurrent-context: w\n", b64(ca)),
	}
	// A token the worker accepts, of a service account without RBAC.
	w2core, _ := clients(t, m.Workers[1])
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "no-rbac", Namespace: "kueue-system"}}
	if _, err := w2core.CoreV1().ServiceAccounts("kueue-system").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = w2core.CoreV1().ServiceAccounts("kueue-system").Delete(ctx, sa.Name, metav1.DeleteOptions{})
	}()
	tr, err := w2core.CoreV1().ServiceAccounts("kueue-system").CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad["no-rbac"] = fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters: [{name: w, cluster: {server: %q, certificate-authority-data: %q}}]\n"+
		"users: [{name: u, user: {token: %q}}]\ncontexts: [{name: w, context: {cluster: w, user: u}}]\ncurrent-context: w\n", host, b64(ca), tr.Status.Token)
	for name, kc := range bad {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: "kueue-system"}, Data: map[string][]byte{"kubeconfig": []byte(kc)}}
		if _, err := mgr.CoreV1().Secrets("kueue-system").Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		c := &kueuev1beta2.MultiKueueCluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: kueuev1beta2.MultiKueueClusterSpec{ClusterSource: kueuev1beta2.ClusterSource{
			KubeConfig: &kueuev1beta2.KubeConfig{Location: s.Name, LocationType: kueuev1beta2.SecretLocationType}}}}
		if _, err := mq.KueueV1beta2().MultiKueueClusters().Create(ctx, c, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = mq.KueueV1beta2().MultiKueueClusters().Delete(ctx, name, metav1.DeleteOptions{})
			_ = mgr.CoreV1().Secrets("kueue-system").Delete(ctx, s.Name, metav1.DeleteOptions{})
		}()
	}
	t0 := time.Now()
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: providers(m, "", false) + `
resource "mlplatform_multikueue_check" "broken" {
  name           = "broken"
  clusters       = ["exec-plugin", "bad-token", "nowhere", "missing", "no-rbac"]
  active_timeout = "20s"
}
`,
			ExpectError: regexp.MustCompile(`(?s)MultiKueue\s+AdmissionCheck\s+broken\s+is\s+not\s+active\s+after\s+2\ds.*` +
				`worker\s+bad-token:\s+the\s+worker\s+rejects\s+the\s+manager's\s+token.*ClientConnectionFailed.*` +
				`worker\s+exec-plugin:\s+Kueue\s+rejected\s+its\s+kubeconfig.*InsecureKubeConfig.*` +
				`worker\s+missing:\s+there\s+is\s+no\s+MultiKueueCluster\s+missing.*` +
				`worker\s+no-rbac:\s+the\s+manager's\s+service\s+account\s+lacks\s+RBAC\s+in\s+the\s+worker.*forbidden.*` +
				`worker\s+nowhere:\s+the\s+worker's\s+API\s+server\s+is\s+unreachable\s+from\s+the\s+manager.*ClientConnectionFailed.*` +
				`NoUsableClusters`),
		}},
	})
	if d := time.Since(t0); d > 60*time.Second {
		t.Errorf("the failed apply took %s; its bound is active_timeout (20s)", d)
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// An update that would switch the manager to a service account someone else
// made in the worker is refused before any write; theirs stays unmarked
// and without the platform's RBAC.
func TestAccMultiKueueUpdateRefusesTheirServiceAccount(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	w2core, _ := clients(t, m.Workers[1])
	theirs := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "their-sa", Namespace: "kueue-system"}}
	if _, err := w2core.CoreV1().ServiceAccounts("kueue-system").Create(ctx, theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = w2core.CoreV1().ServiceAccounts("kueue-system").Delete(ctx, theirs.Name, metav1.DeleteOptions{})
	}()
	config := func(sa string) string {
		return providers(m, "", false) + fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "w2" {
  name                   = "worker-2"
  worker                 = { kubeconfig = %q }
  worker_service_account = %q
}
`, m.Workers[1].Kubeconfig, sa)
	}
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: config("mlplatform-multikueue")},
			{Config: config("their-sa"), ExpectError: regexp.MustCompile(`(?s)ServiceAccount kueue-system/their-sa already exists.*not created by\s+mlplatform`)},
			{Config: config("mlplatform-multikueue")},
		},
	})
	got, err := w2core.CoreV1().ServiceAccounts("kueue-system").Get(ctx, theirs.Name, metav1.GetOptions{})
	if err != nil || len(got.Labels) > 0 {
		t.Fatalf("their service account was changed (err %v): labels %v", err, got.Labels)
	}
	if _, err := w2core.RbacV1().ClusterRoles().Get(ctx, theirs.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("a refused update wrote a ClusterRole for their service account (err %v)", err)
	}
}

// Import is the door to a MultiKueueCluster someone made: destroying the
// imported worker removes it and the Secret it reads, but not an unrelated
// Secret that happens to be called NAME-kubeconfig.
func TestAccMultiKueueImportedDestroyKeepsOthersSecrets(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	mgr, mq := clients(t, m.Manager)
	for _, name := range []string{"legacy-secret", "legacy-kubeconfig"} {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kueue-system"}, Data: map[string][]byte{"kubeconfig": []byte("x")}}
		if _, err := mgr.CoreV1().Secrets("kueue-system").Create(ctx, s, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = mgr.CoreV1().Secrets("kueue-system").Delete(ctx, name, metav1.DeleteOptions{}) }()
	}
	c := &kueuev1beta2.MultiKueueCluster{ObjectMeta: metav1.ObjectMeta{Name: "legacy"}, Spec: kueuev1beta2.MultiKueueClusterSpec{ClusterSource: kueuev1beta2.ClusterSource{
		KubeConfig: &kueuev1beta2.KubeConfig{Location: "legacy-secret", LocationType: kueuev1beta2.SecretLocationType}}}}
	if _, err := mq.KueueV1beta2().MultiKueueClusters().Create(ctx, c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = mq.KueueV1beta2().MultiKueueClusters().Delete(ctx, "legacy", metav1.DeleteOptions{}) }()
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{{
			Config: providers(m, "", false) + fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "legacy" {
  name   = "legacy"
  worker = { kubeconfig = %q }
}
`, m.Workers[1].Kubeconfig),
			ResourceName: "mlplatform_multikueue_cluster.legacy", ImportState: true, ImportStateId: "legacy", ImportStatePersist: true,
		}},
		CheckDestroy: func(*terraform.State) error {
			if _, err := mq.KueueV1beta2().MultiKueueClusters().Get(ctx, "legacy", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the imported MultiKueueCluster was not deleted (err %v)", err)
			}
			if _, err := mgr.CoreV1().Secrets("kueue-system").Get(ctx, "legacy-secret", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the Secret the imported MultiKueueCluster read was not deleted (err %v)", err)
			}
			if _, err := mgr.CoreV1().Secrets("kueue-system").Get(ctx, "legacy-kubeconfig", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("destroy deleted legacy-kubeconfig, a Secret it neither created nor imported: %w", err)
			}
			return nil
		},
	})
}

// Two configurations giving the manager access to the same worker under the
// same names: the second's creates fail, naming what mlplatform made for
// the first and the import; nothing of the first's is written or deleted
// (their UIDs and contents stay), and the first's plan stays empty.
func TestAccMultiKueueTwoConfigurationsNeverShare(t *testing.T) {
	m := envs(t)
	ctx := context.Background()
	mgr, mq := clients(t, m.Manager)
	w2core, _ := clients(t, m.Workers[1])
	cfg := providers(m, "", false) + fmt.Sprintf(`
resource "mlplatform_multikueue_cluster" "w2" {
  name                   = "two-w2"
  worker                 = { kubeconfig = %q }
  worker_service_account = "mlplatform-mk-two"
}

resource "mlplatform_multikueue_check" "two" {
  name     = "multikueue-two"
  clusters = [mlplatform_multikueue_cluster.w2.name]
}
`, m.Workers[1].Kubeconfig)
	objects := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		add := func(name string, o metav1.Object, err error) {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = string(o.GetUID()) + " " + o.GetResourceVersion()
		}
		s, err := mgr.CoreV1().Secrets("kueue-system").Get(ctx, "two-w2-kubeconfig", metav1.GetOptions{})
		add("kubeconfig Secret", s, err)
		c, err := mq.KueueV1beta2().MultiKueueConfigs().Get(ctx, "multikueue-two", metav1.GetOptions{})
		add("MultiKueueConfig", c, err)
		sa, err := w2core.CoreV1().ServiceAccounts("kueue-system").Get(ctx, "mlplatform-mk-two", metav1.GetOptions{})
		add("worker ServiceAccount", sa, err)
		r, err := w2core.RbacV1().ClusterRoles().Get(ctx, "mlplatform-mk-two", metav1.GetOptions{})
		add("worker ClusterRole", r, err)
		b, err := w2core.RbacV1().ClusterRoleBindings().Get(ctx, "mlplatform-mk-two", metav1.GetOptions{})
		add("worker ClusterRoleBinding", b, err)
		mkc, err := mq.KueueV1beta2().MultiKueueClusters().Get(ctx, "two-w2", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out["MultiKueueCluster"] = string(mkc.UID) + " " + mkc.Annotations["mlplatform.dev/kubeconfig-sha256"]
		ac, err := mq.KueueV1beta2().AdmissionChecks().Get(ctx, "multikueue-two", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		spec, err := json.Marshal(ac.Spec)
		if err != nil {
			t.Fatal(err)
		}
		out["AdmissionCheck"] = string(ac.UID) + " " + string(spec)
		return out
	}
	acctest.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: cfg},
			{
				PreConfig: func() {
					before := objects()
					acctest.Test(t, resource.TestCase{ // the second configuration: a state of its own
						ProtoV6ProviderFactories: acctest.Factories(),
						Steps: []resource.TestStep{{Config: cfg, ExpectError: regexp.MustCompile(
							`(?s)ServiceAccount kueue-system/mlplatform-mk-two Already Exists.*mlplatform\s+created\s+it\s+on.*but\s+no\s+state\s+of\s+this\s+resource\s+records\s+it.*` +
								`terraform import ADDRESS two-w2`)}},
					})
					acctest.Test(t, resource.TestCase{
						ProtoV6ProviderFactories: acctest.Factories(),
						Steps: []resource.TestStep{{Config: providers(m, "", false) + `
resource "mlplatform_multikueue_check" "two" {
  name     = "multikueue-two"
  clusters = ["two-w2"]
}
`, ExpectError: regexp.MustCompile(`(?s)MultiKueueConfig multikueue-two Already Exists.*mlplatform\s+created\s+it\s+on.*terraform import ADDRESS multikueue-two`)}},
					})
					if diff := cmp.Diff(before, objects()); diff != "" {
						t.Errorf("the second configuration changed the first's objects (-before +after):\n%s", diff)
					}
				},
				Config:   cfg,
				PlanOnly: true, // the first's plan is empty
			},
		},
	})
}

// clustersInOrder checks that the MultiKueueConfig lists exactly want, in
// that order.
func clustersInOrder(ctx context.Context, mq kueueclient.Interface, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		c, err := mq.KueueV1beta2().MultiKueueConfigs().Get(ctx, "multikueue", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.Equal(c.Spec.Clusters, want) {
			return fmt.Errorf("MultiKueueConfig lists %v, want %v in that order", c.Spec.Clusters, want)
		}
		return nil
	}
}
