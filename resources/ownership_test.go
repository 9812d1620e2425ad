package resources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/container/apiv1/containerpb"
	gcpiam "cloud.google.com/go/iam"
	"cloud.google.com/go/iam/admin/apiv1/adminpb"
	"cloud.google.com/go/iam/apiv1/iampb"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
)

// Labels and annotations Helm puts on what it installs.
func helmMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name,
		Labels:      map[string]string{"app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": "platform"},
		Annotations: map[string]string{"meta.helm.sh/release-name": "platform", "meta.helm.sh/release-namespace": "default"}}
}

// Field managers of the tools that pre-create the objects.
var (
	asKubectl = metav1.CreateOptions{FieldManager: "kubectl-create"}
	asHelm    = metav1.CreateOptions{FieldManager: "helm"}
)

// version reads what must not change: for a Kubernetes object, what a writer
// other than its controllers could change (its spec, labels, annotations and
// the fields the provider's field manager owns; not status, finalizers or the
// resourceVersion, which Kueue moves whenever it writes status); a service
// account's or policy's etag, a node pool's etag.
type version func(t *testing.T) string

func rv[O metav1.Object](get func(ctx context.Context, name string, opts metav1.GetOptions) (O, error), name string) version {
	return func(t *testing.T) string {
		t.Helper()
		o, err := get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s is gone: %v", name, err)
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		var ours []metav1.ManagedFieldsEntry
		for _, f := range o.GetManagedFields() {
			if f.Manager == kube.FieldManager {
				ours = append(ours, f)
			}
		}
		delete(u, "status")
		delete(u, "metadata")
		b, err := json.Marshal(map[string]any{"object": u, "labels": o.GetLabels(), "annotations": o.GetAnnotations(), "provider's fields": ours})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
}

// TestAccCreateNeverTakesOver pre-creates, for every kind the provider
// writes, an object the way another tool would (kubectl, Helm, the IAM and
// GKE APIs), then applies a configuration that would create it. The create
// must fail naming the object and `terraform import`, write nothing (the
// object's resourceVersion or etag is unchanged, and no other part of the
// resource is created), and the destroy at the end of the test must leave
// the object as it was.
func TestAccCreateNeverTakesOver(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	core, kq := acctest.Kube(t)
	ic := iamClient(t)
	gc := gkeClient(t, env.GCP)
	ctx := context.Background()
	gsaEmail := func(id string) string { return id + "@" + env.Project + ".iam.gserviceaccount.com" }

	cases := map[string]struct {
		given func(t *testing.T) version // creates the object, returns how to read its version
		hcl   string
		want  string // the error, after "Error: "
		// untouched, when set, fails if the create wrote some other part of
		// the resource.
		untouched func(t *testing.T)
	}{
		"namespace, with a ConfigMap in it": {
			given: func(t *testing.T) version {
				if _, err := core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acc-own-ns"}}, asKubectl); err != nil {
					t.Fatal(err)
				}
				if _, err := core.CoreV1().ConfigMaps("acc-own-ns").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "data"},
					Data: map[string]string{"k": "v"}}, asKubectl); err != nil {
					t.Fatal(err)
				}
				ns, cm := rv(core.CoreV1().Namespaces().Get, "acc-own-ns"), rv(core.CoreV1().ConfigMaps("acc-own-ns").Get, "data")
				return func(t *testing.T) string { return ns(t) + "/" + cm(t) }
			},
			hcl: `resource "mlplatform_team_namespace" "x" {
  name = "acc-own-ns"
  team = "x"
}`,
			want: `(?s)Namespace acc-own-ns Already Exists.*terraform import ADDRESS acc-own-ns`,
		},
		"ClusterQueue installed by Helm": {
			given: func(t *testing.T) version {
				cq := &kueuev1beta2.ClusterQueue{ObjectMeta: helmMeta("acc-own-cq"), Spec: kueuev1beta2.ClusterQueueSpec{
					NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"team": "legacy"}},
					ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
						Flavors: []kueuev1beta2.FlavorQuotas{{Name: "acc-own-cq-h100",
							Resources: []kueuev1beta2.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: k8sresource.MustParse("32")}}}}}},
				}}
				if _, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, asHelm); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().ClusterQueues().Get, "acc-own-cq")
			},
			hcl:  gpuQueue("acc-own-cq", "acc-own-cq-h100", ""),
			want: `(?s)ClusterQueue acc-own-cq Already Exists.*terraform import ADDRESS acc-own-cq.*labelled app.kubernetes.io/managed-by=Helm; it was written by helm\)`,
		},
		"LocalQueue": {
			given: func(t *testing.T) version {
				givenNamespace(t, "acc-own-lq")
				lq := &kueuev1beta2.LocalQueue{ObjectMeta: metav1.ObjectMeta{Name: "gpu", Namespace: "acc-own-lq"},
					Spec: kueuev1beta2.LocalQueueSpec{ClusterQueue: "someone-elses"}}
				if _, err := kq.KueueV1beta2().LocalQueues("acc-own-lq").Create(ctx, lq, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().LocalQueues("acc-own-lq").Get, "gpu")
			},
			hcl: `resource "mlplatform_local_queue" "x" {
  namespace       = "acc-own-lq"
  name            = "gpu"
  cluster_queue   = "acc-own-lq-cq"
  wait_for_active = false
}`,
			want: `(?s)LocalQueue acc-own-lq/gpu Already Exists.*terraform import ADDRESS acc-own-lq/gpu.*written by kubectl-create`,
		},
		"ResourceFlavor installed by Helm": {
			given: func(t *testing.T) version {
				rf := &kueuev1beta2.ResourceFlavor{ObjectMeta: helmMeta("acc-own-rf"),
					Spec: kueuev1beta2.ResourceFlavorSpec{NodeLabels: map[string]string{"cloud.google.com/gke-nodepool": "legacy"}}}
				if _, err := kq.KueueV1beta2().ResourceFlavors().Create(ctx, rf, asHelm); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().ResourceFlavors().Get, "acc-own-rf")
			},
			hcl: `resource "mlplatform_resource_flavor" "x" {
  name        = "acc-own-rf"
  node_labels = { "cloud.google.com/gke-nodepool" = "new" }
}`,
			want: `(?s)ResourceFlavor acc-own-rf Already Exists.*terraform import ADDRESS acc-own-rf`,
		},
		"Cohort": {
			given: func(t *testing.T) version {
				if _, err := kq.KueueV1beta2().Cohorts().Create(ctx, &kueuev1beta2.Cohort{ObjectMeta: metav1.ObjectMeta{Name: "acc-own-cohort"}}, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().Cohorts().Get, "acc-own-cohort")
			},
			hcl:  `resource "mlplatform_cohort" "x" { name = "acc-own-cohort" }`,
			want: `(?s)Cohort acc-own-cohort Already Exists.*terraform import ADDRESS acc-own-cohort`,
		},
		"Topology": {
			given: func(t *testing.T) version {
				topo := &kueuev1beta2.Topology{ObjectMeta: metav1.ObjectMeta{Name: "acc-own-topology"},
					Spec: kueuev1beta2.TopologySpec{Levels: []kueuev1beta2.TopologyLevel{{NodeLabel: "kubernetes.io/hostname"}}}}
				if _, err := kq.KueueV1beta2().Topologies().Create(ctx, topo, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().Topologies().Get, "acc-own-topology")
			},
			hcl: `resource "mlplatform_topology" "x" {
  name   = "acc-own-topology"
  levels = ["cloud.google.com/gce-topology-block", "kubernetes.io/hostname"]
}`,
			want: `(?s)Topology acc-own-topology Already Exists.*terraform import ADDRESS acc-own-topology`,
		},
		"WorkloadPriorityClass": {
			given: func(t *testing.T) version {
				wpc := &kueuev1beta2.WorkloadPriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "acc-own-prio"}, Value: 5}
				if _, err := kq.KueueV1beta2().WorkloadPriorityClasses().Create(ctx, wpc, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().WorkloadPriorityClasses().Get, "acc-own-prio")
			},
			hcl: `resource "mlplatform_workload_priority_class" "x" {
  name  = "acc-own-prio"
  value = 1000
}`,
			want: `(?s)WorkloadPriorityClass acc-own-prio Already Exists.*terraform import ADDRESS acc-own-prio`,
		},
		"ProvisioningRequestConfig of a provisioning check": {
			given: func(t *testing.T) version {
				prc := &kueuev1beta2.ProvisioningRequestConfig{ObjectMeta: metav1.ObjectMeta{Name: "acc-own-dws"},
					Spec: kueuev1beta2.ProvisioningRequestConfigSpec{ProvisioningClassName: "queued-provisioning.gke.io"}}
				if _, err := kq.KueueV1beta2().ProvisioningRequestConfigs().Create(ctx, prc, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(kq.KueueV1beta2().ProvisioningRequestConfigs().Get, "acc-own-dws")
			},
			hcl:  `resource "mlplatform_provisioning_admission_check" "x" { name = "acc-own-dws" }`,
			want: `(?s)ProvisioningRequestConfig acc-own-dws Already Exists.*terraform import ADDRESS acc-own-dws`,
			untouched: func(t *testing.T) {
				if _, err := kq.KueueV1beta2().AdmissionChecks().Get(ctx, "acc-own-dws", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("the AdmissionCheck half was created (err=%v): the create must check both halves before writing either", err)
				}
			},
		},
		"NetworkPolicy of a platform name": {
			given: func(t *testing.T) version {
				givenNamespace(t, "acc-own-tnp")
				np := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "mlplatform-default-deny", Namespace: "acc-own-tnp"},
					Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}}}
				if _, err := core.NetworkingV1().NetworkPolicies("acc-own-tnp").Create(ctx, np, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(core.NetworkingV1().NetworkPolicies("acc-own-tnp").Get, "mlplatform-default-deny")
			},
			hcl:  `resource "mlplatform_training_network_policy" "x" { namespace = "acc-own-tnp" }`,
			want: `(?s)NetworkPolicy acc-own-tnp/mlplatform-default-deny Already Exists.*terraform import ADDRESS acc-own-tnp`,
			untouched: func(t *testing.T) {
				list, err := core.NetworkingV1().NetworkPolicies("acc-own-tnp").List(ctx, metav1.ListOptions{})
				if err != nil || len(list.Items) != 1 {
					t.Errorf("%d policies in the namespace (err=%v), want only the pre-existing one", len(list.Items), err)
				}
			},
		},
		"Kubernetes service account to be created": {
			given: func(t *testing.T) version {
				givenNamespace(t, "acc-own-ksa")
				if _, err := core.CoreV1().ServiceAccounts("acc-own-ksa").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "trainer"}}, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(core.CoreV1().ServiceAccounts("acc-own-ksa").Get, "trainer")
			},
			hcl: fmt.Sprintf(`resource "mlplatform_workload_identity" "x" {
  namespace                  = "acc-own-ksa"
  kubernetes_service_account = "trainer"
  google_service_account     = %q
}`, givenGSA(t, env.Project, "acc-own-ksa-gsa")),
			want: `(?s)Kubernetes Service Account acc-own-ksa/trainer Already Exists.*terraform import ADDRESS acc-own-ksa/trainer.*create_kubernetes_service_account = false`,
			untouched: func(t *testing.T) {
				if err := expectMember(t, ic, gsaEmail("acc-own-ksa-gsa"), iam.WorkloadIdentityMember(env.Project, "acc-own-ksa", "trainer"), false); err != nil {
					t.Error(err)
				}
			},
		},
		"annotation of an adopted Kubernetes service account, set by someone else": {
			given: func(t *testing.T) version {
				givenNamespace(t, "acc-own-ann")
				ksa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "trainer",
					Annotations: map[string]string{gsaAnnotation: gsaEmail("someone-else")}}}
				if _, err := core.CoreV1().ServiceAccounts("acc-own-ann").Create(ctx, ksa, asKubectl); err != nil {
					t.Fatal(err)
				}
				return rv(core.CoreV1().ServiceAccounts("acc-own-ann").Get, "trainer")
			},
			hcl: fmt.Sprintf(`resource "mlplatform_workload_identity" "x" {
  namespace                         = "acc-own-ann"
  kubernetes_service_account        = "trainer"
  create_kubernetes_service_account = false
  google_service_account            = %q
}`, givenGSA(t, env.Project, "acc-own-ann-gsa")),
			want: `(?s)Workload Identity Annotation of Kubernetes Service Account acc-own-ann/trainer Already Exists.*names someone-else@`,
		},
		"Google service account to be created": {
			given: func(t *testing.T) version {
				if _, err := ic.Admin.CreateServiceAccount(ctx, &adminpb.CreateServiceAccountRequest{Name: "projects/" + env.Project, AccountId: "acc-own-gsa",
					ServiceAccount: &adminpb.ServiceAccount{DisplayName: "made by hand", Description: "runs the nightly jobs"}}); err != nil {
					t.Fatal(err)
				}
				return func(t *testing.T) string {
					sa, err := ic.Admin.GetServiceAccount(ctx, &adminpb.GetServiceAccountRequest{Name: iam.ServiceAccountResource(gsaEmail("acc-own-gsa"))})
					if err != nil {
						t.Fatalf("the Google service account is gone: %v", err)
					}
					return fmt.Sprintf("%x %s %s", sa.GetEtag(), sa.GetDisplayName(), sa.GetDescription())
				}
			},
			hcl: `resource "mlplatform_workload_identity" "x" {
  namespace                     = "acc-own-gsa"
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "acc-own-gsa" }
}`,
			want: `(?s)Google Service Account acc-own-gsa@.* Already Exists.*set google_service_account = "acc-own-gsa@`,
			untouched: func(t *testing.T) {
				if _, err := core.CoreV1().ServiceAccounts("acc-own-gsa").Get(ctx, "trainer", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("the KSA was created (err=%v): nothing may be written before every part is checked", err)
				}
			},
		},
		"IAM grant made by gcloud": {
			given: func(t *testing.T) version {
				gsa := givenGSA(t, env.Project, "acc-own-grant")
				givenNamespace(t, "acc-own-grant")
				if err := ic.AddMember(ctx, iam.ServiceAccountResource(gsa), iam.WorkloadIdentityUser, iam.WorkloadIdentityMember(env.Project, "acc-own-grant", "trainer")); err != nil {
					t.Fatal(err)
				}
				return func(t *testing.T) string {
					p, err := ic.Admin.GetIamPolicy(ctx, &iampb.GetIamPolicyRequest{Resource: iam.ServiceAccountResource(gsa)})
					if err != nil {
						t.Fatal(err)
					}
					if !p.HasRole(iam.WorkloadIdentityMember(env.Project, "acc-own-grant", "trainer"), gcpiam.RoleName(iam.WorkloadIdentityUser)) {
						t.Fatal("the grant made by gcloud was revoked")
					}
					return fmt.Sprintf("%x", p.InternalProto.GetEtag())
				}
			},
			hcl: fmt.Sprintf(`resource "mlplatform_workload_identity" "x" {
  namespace                  = "acc-own-grant"
  kubernetes_service_account = "trainer"
  google_service_account     = %q
}`, gsaEmail("acc-own-grant")),
			want: `(?s)IAM Grant roles/iam.workloadIdentityUser for .*Already Exists.*remove-iam-policy-binding`,
			untouched: func(t *testing.T) {
				if _, err := core.CoreV1().ServiceAccounts("acc-own-grant").Get(ctx, "trainer", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
					t.Errorf("the KSA was created (err=%v)", err)
				}
			},
		},
		"node pool made with gcloud": {
			given: func(t *testing.T) version {
				op, err := gc.CreateNodePool(ctx, sandboxCluster, &containerpb.NodePool{Name: "acc-own-pool", Config: &containerpb.NodeConfig{MachineType: "g2-standard-8",
					Accelerators: []*containerpb.AcceleratorConfig{{AcceleratorType: "nvidia-l4", AcceleratorCount: 1}}}, InitialNodeCount: 1})
				if err != nil {
					t.Fatal(err)
				}
				waitOp(t, gc, op)
				return func(t *testing.T) string {
					np := getPool(t, gc, "acc-own-pool")
					if np == nil {
						t.Fatal("the node pool is gone")
					}
					return np.GetEtag()
				}
			},
			hcl: `resource "mlplatform_gpu_pool" "x" {
  name         = "acc-own-pool"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  autoscaling  = { max_nodes = 2 }
}`,
			want: `(?s)Node Pool projects/.*/nodePools/acc-own-pool Already Exists.*terraform import ADDRESS projects/`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			read := tc.given(t)
			before := settled(t, read)
			unchanged := func(when string) {
				t.Helper()
				if after := read(t); after != before {
					t.Errorf("%s, the pre-existing object changed: version %s → %s", when, before, after)
				}
			}
			cfg := acctest.ProviderConfig(t) + tc.hcl
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: acctest.Factories(),
				CheckDestroy: func(*terraform.State) error {
					unchanged("after destroy")
					return nil
				},
				Steps: []resource.TestStep{
					{Config: cfg, ExpectError: wrapped(tc.want)},
					{ // and again: the failed create recorded nothing and wrote nothing
						PreConfig: func() {
							unchanged("after the refused create")
							if tc.untouched != nil {
								tc.untouched(t)
							}
						},
						Config: cfg, ExpectError: wrapped(tc.want),
					},
				},
			})
		})
	}
}

// settled reads the version once it has stopped changing: a controller
// (Kueue writing status) may still be at work on an object just created.
func settled(t *testing.T, read version) string {
	t.Helper()
	last, since := read(t), time.Now()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		switch v := read(t); {
		case v != last:
			last, since = v, time.Now()
		case time.Since(since) > 2*time.Second:
			return v
		}
	}
	t.Fatalf("the pre-existing object kept changing for a minute (version %s)", last)
	return ""
}

// wrapped compiles a pattern whose spaces match any run of white space, as
// Terraform wraps the lines of an error.
func wrapped(pattern string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, " ", `\s+`))
}

// waitOp waits for a GKE operation made out of band.
func waitOp(t *testing.T, gc interface {
	GetOperation(context.Context, string) (*containerpb.Operation, error)
}, op *containerpb.Operation) {
	t.Helper()
	name := op.GetSelfLink()[strings.Index(op.GetSelfLink(), "projects/"):]
	for op.GetStatus() != containerpb.Operation_DONE {
		var err error
		time.Sleep(20 * time.Millisecond)
		if op, err = gc.GetOperation(context.Background(), name); err != nil {
			t.Fatal(err)
		}
	}
}

// Import is the one door: a namespace and a ClusterQueue Helm installed are
// imported; the plan then shows exactly what apply will change; apply keeps
// the fields Helm and others own (their labels and annotations, Helm's
// managed-by label: the provider does not mark what it did not create); the
// plan after is empty; and destroy, since they are now managed, deletes them.
func TestAccImportKeepsOtherManagersFields(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	core, kq := acctest.Kube(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: helmMeta("acc-imp-team")}
	ns.Labels["istio-injection"] = "enabled"
	if _, err := core.CoreV1().Namespaces().Create(ctx, ns, asHelm); err != nil {
		t.Fatal(err)
	}
	cq := &kueuev1beta2.ClusterQueue{ObjectMeta: helmMeta("acc-imp-team"), Spec: kueuev1beta2.ClusterQueueSpec{
		NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"mlplatform.dev/team": "imp"}},
		ResourceGroups: []kueuev1beta2.ResourceGroup{{CoveredResources: []corev1.ResourceName{"nvidia.com/gpu"},
			Flavors: []kueuev1beta2.FlavorQuotas{{Name: "acc-imp-h100",
				Resources: []kueuev1beta2.ResourceQuota{{Name: "nvidia.com/gpu", NominalQuota: k8sresource.MustParse("8")}}}}}},
	}}
	if _, err := kq.KueueV1beta2().ClusterQueues().Create(ctx, cq, asHelm); err != nil {
		t.Fatal(err)
	}
	cfg := acctest.ProviderConfig(t) + `
resource "mlplatform_team_namespace" "imp" {
  name   = "acc-imp-team"
  team   = "imp"
  labels = { "cost-center" = "ml-7" }
}

resource "mlplatform_cluster_queue" "imp" {
  name               = "acc-imp-team"
  namespace_selector = mlplatform_team_namespace.imp.selector
  wait_for_active    = false
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = "acc-imp-h100", resources = [{ name = "nvidia.com/gpu", nominal_quota = "16" }] }]
  }]
}
`
	others := func() resource.TestCheckFunc {
		return func(*terraform.State) error {
			for kind, meta := range map[string]func() (metav1.Object, error){
				"namespace": func() (metav1.Object, error) {
					return core.CoreV1().Namespaces().Get(ctx, "acc-imp-team", metav1.GetOptions{})
				},
				"ClusterQueue": func() (metav1.Object, error) {
					return kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-imp-team", metav1.GetOptions{})
				},
			} {
				o, err := meta()
				if err != nil {
					return err
				}
				want := helmMeta("")
				for k, v := range want.Labels {
					if o.GetLabels()[k] != v {
						return fmt.Errorf("%s: Helm's label %s=%s is %q after apply", kind, k, v, o.GetLabels()[k])
					}
				}
				for k, v := range want.Annotations {
					if o.GetAnnotations()[k] != v {
						return fmt.Errorf("%s: Helm's annotation %s=%s is %q after apply", kind, k, v, o.GetAnnotations()[k])
					}
				}
			}
			n, err := core.CoreV1().Namespaces().Get(ctx, "acc-imp-team", metav1.GetOptions{})
			if err != nil {
				return err
			}
			if n.Labels["istio-injection"] != "enabled" || n.Labels["mlplatform.dev/team"] != "imp" || n.Labels["cost-center"] != "ml-7" {
				return fmt.Errorf("namespace labels after apply: %v, want the configured ones and istio-injection=enabled", n.Labels)
			}
			return nil
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			if _, err := kq.KueueV1beta2().ClusterQueues().Get(ctx, "acc-imp-team", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return fmt.Errorf("the imported ClusterQueue survived destroy (err=%v)", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: cfg, ResourceName: "mlplatform_team_namespace.imp", ImportState: true, ImportStateId: "acc-imp-team", ImportStatePersist: true},
			{Config: cfg, ResourceName: "mlplatform_cluster_queue.imp", ImportState: true, ImportStateId: "acc-imp-team", ImportStatePersist: true},
			{
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{ // exactly what apply will change, nothing else
						plancheck.ExpectResourceAction("mlplatform_team_namespace.imp", plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges("mlplatform_team_namespace.imp", "team", "selector.match_labels.mlplatform.dev/team", "pod_security_level", "labels"),
						plancheck.ExpectResourceAction("mlplatform_cluster_queue.imp", plancheck.ResourceActionUpdate),
						acctest.ExpectOnlyChanges("mlplatform_cluster_queue.imp", "resource_groups.0.flavors.0.resources.0.nominal_quota",
							"wait_for_active"), // imported as the default (true); the configuration says false
					},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				Check: others(),
			},
		},
	})
}

// An update is not a back door: turning create_kubernetes_service_account
// on for a KSA someone made, or pointing create_google_service_account at an
// account someone made, would make destroy delete them. Both are refused
// before any write, the objects are unchanged, the binding's state is as it
// was (the next plan of the old configuration is empty), and destroy leaves
// both objects.
func TestAccUpdateNeverTakesOver(t *testing.T) {
	t.Parallel()
	env := acctest.Env(t)
	core, _ := acctest.Kube(t)
	ic := iamClient(t)
	ctx := context.Background()
	const ns = "acc-own-upd"
	givenNamespace(t, ns)
	if _, err := core.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "trainer"}}, asKubectl); err != nil {
		t.Fatal(err)
	}
	hand := givenGSA(t, env.Project, "acc-own-upd-hand")
	shared := givenGSA(t, env.Project, "acc-own-upd-shared")
	gsaOf := func(email string) func(t *testing.T) string {
		return func(t *testing.T) string {
			sa, found, err := ic.ServiceAccount(ctx, email)
			if err != nil || !found {
				t.Fatalf("Google service account %s: found=%v, err=%v", email, found, err)
			}
			return fmt.Sprintf("%x %s", sa.GetEtag(), sa.GetDescription())
		}
	}
	handBefore := gsaOf(hand)(t)
	cfg := func(body string) string {
		return acctest.ProviderConfig(t) + fmt.Sprintf(`
resource "mlplatform_workload_identity" "x" {
  namespace                  = %q
  kubernetes_service_account = "trainer"
%s
}
`, ns, body)
	}
	adopted := cfg("  create_kubernetes_service_account = false\n  google_service_account = \"" + shared + "\"")
	unchanged := func() {
		t.Helper()
		ksa, err := core.CoreV1().ServiceAccounts(ns).Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil || ksa.Labels["app.kubernetes.io/managed-by"] != "" {
			t.Errorf("the KSA someone made was taken over (labels %v, err=%v)", ksa.GetLabels(), err)
		}
		if after := gsaOf(hand)(t); after != handBefore {
			t.Errorf("the Google service account someone made changed: %s → %s", handBefore, after)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			unchanged()
			if _, err := core.CoreV1().ServiceAccounts(ns).Get(ctx, "trainer", metav1.GetOptions{}); err != nil {
				return fmt.Errorf("destroy deleted the KSA it had adopted: %v", err)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{Config: adopted, ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			{
				Config:      cfg("  create_kubernetes_service_account = true\n  google_service_account = \"" + shared + "\""),
				ExpectError: wrapped(`(?s)Kubernetes Service Account acc-own-upd/trainer Is Not This Resource's.*Nothing was written.*create_kubernetes_service_account = false`),
			},
			{
				PreConfig:   unchanged,
				Config:      cfg("  create_kubernetes_service_account = false\n  create_google_service_account = { account_id = \"acc-own-upd-hand\" }"),
				ExpectError: wrapped(`(?s)Google Service Account acc-own-upd-hand@\S+ Is Not This Resource's.*Nothing was written.*set google_service_account`),
			},
			{ // the refused updates left the state as it was: the old configuration plans nothing
				PreConfig:          unchanged,
				Config:             adopted,
				PlanOnly:           true,
				ExpectNonEmptyPlan: false,
			},
		},
	})
}
