package resources_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol/netpoltest"
)

func trainingNetworkPolicyConfig(t *testing.T, ns, body string) string {
	return acctest.ProviderConfig(t) + trainingNetworkPolicyBlock(ns, body)
}

func trainingNetworkPolicyBlock(ns, body string) string {
	return fmt.Sprintf("resource \"mlplatform_training_network_policy\" \"team\" {\n  namespace = %q\n%s\n}\n", ns, body)
}

// givenForeignPolicy creates a NetworkPolicy the resource does not own.
func givenForeignPolicy(t *testing.T, core kubernetes.Interface, ns string) {
	t.Helper()
	p := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "team-own-policy"},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "notebook"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
		},
	}
	if _, err := core.NetworkingV1().NetworkPolicies(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

func policyNames(ctx context.Context, core kubernetes.Interface, ns string) ([]string, error) {
	list, err := core.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, p := range list.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names, nil
}

func expectPolicies(core kubernetes.Interface, ns string, want ...string) resource.TestCheckFunc {
	return func(*terraform.State) error {
		got, err := policyNames(context.Background(), core, ns)
		if err != nil {
			return err
		}
		want = append([]string{"team-own-policy"}, want...)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			return fmt.Errorf("NetworkPolicies in %s: %v, want %v", ns, got, want)
		}
		return nil
	}
}

// expectPolicyHashDrift asserts the plan's refresh found policies[name]
// changed outside Terraform.
type expectPolicyHashDrift struct{ addr, name string }

func (e expectPolicyHashDrift) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceDrift {
		if rc.Address != e.addr || rc.Change == nil {
			continue
		}
		get := func(v any) any {
			m, _ := v.(map[string]any)
			p, _ := m["policies"].(map[string]any)
			return p[e.name]
		}
		if b, a := get(rc.Change.Before), get(rc.Change.After); b == nil || a == nil || fmt.Sprint(a) == fmt.Sprint(b) {
			resp.Error = fmt.Errorf("%s: policies[%s] drift %v → %v, want a changed hash", e.addr, e.name, b, a)
		}
		return
	}
	resp.Error = fmt.Errorf("%s: no drift reported (want policies[%s] changed)", e.addr, e.name)
}

func TestAccTrainingNetworkPolicy(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	const ns, addr = "acc-tnp-team", "mlplatform_training_network_policy.team"
	givenNamespace(t, ns)
	core, _ := acctest.Kube(t)
	givenForeignPolicy(t, core, ns)
	ctx := context.Background()
	api := core.NetworkingV1().NetworkPolicies(ns)
	empty := []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}
	update := plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate)
	defaults := []string{netpol.DefaultDeny, netpol.AllowSameNamespace, netpol.AllowDNS, netpol.AllowMetadata, netpol.AllowGoogleAPIs}

	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		CheckDestroy: func(*terraform.State) error {
			// only the foreign policy is left
			return expectPolicies(core, ns)(nil)
		},
		Steps: []resource.TestStep{
			{
				Config: trainingNetworkPolicyConfig(t, ns, ""),
				Check:  expectPolicies(core, ns, defaults...),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("id"), knownvalue.StringExact(ns)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("google_apis"), knownvalue.StringExact("private")),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("dns"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("policies"), knownvalue.MapSizeExact(len(defaults))),
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPostRefresh: empty},
			},
			{ResourceName: addr, ImportState: true, ImportStateId: ns, ImportStateVerify: true},
			{ // open public HTTPS and switch to the restricted VIP
				Config: trainingNetworkPolicyConfig(t, ns, "  public_https_egress = true\n  google_apis = \"restricted\""),
				Check:  expectPolicies(core, ns, append(slices.Clone(defaults), netpol.AllowPublicHTTPS)...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{update},
					PostApplyPostRefresh: empty,
				},
			},
			{ // close it again, both VIPs, extra holes
				Config: trainingNetworkPolicyConfig(t, ns, `  google_apis = "both"
  extra_egress = [{ cidrs = ["10.20.0.0/16"], ports = [5432] }]
  ingress_from_namespaces = { monitoring = { ports = [9090] } }`),
				Check: expectPolicies(core, ns, append(slices.Clone(defaults), netpol.AllowExtraEgress, netpol.AllowIngressFromNamsp)...),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{update},
					PostApplyPostRefresh: empty,
				},
			},
			{ // google APIs off: its object goes
				Config: trainingNetworkPolicyConfig(t, ns, `  google_apis = "none"`),
				Check:  expectPolicies(core, ns, netpol.DefaultDeny, netpol.AllowSameNamespace, netpol.AllowDNS, netpol.AllowMetadata),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{update},
					PostApplyPostRefresh: empty,
				},
			},
			{ // the DNS policy deleted out of band: the plan shows dns off, apply restores it
				PreConfig: func() {
					if err := api.Delete(ctx, netpol.AllowDNS, metav1.DeleteOptions{}); err != nil {
						t.Fatal(err)
					}
				},
				Config: trainingNetworkPolicyConfig(t, ns, `  google_apis = "none"`),
				Check:  expectPolicies(core, ns, netpol.DefaultDeny, netpol.AllowSameNamespace, netpol.AllowDNS, netpol.AllowMetadata),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{acctest.ExpectDrift(addr, "dns", true, false), update},
					PostApplyPostRefresh: empty,
				},
			},
			{ // the metadata policy edited out of band (8080 dropped, an ingress rule added): shown and restored
				PreConfig: func() {
					p, err := api.Get(ctx, netpol.AllowMetadata, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					p.Spec.Egress[0].Ports = p.Spec.Egress[0].Ports[:1]
					if _, err := api.Update(ctx, p, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: trainingNetworkPolicyConfig(t, ns, `  google_apis = "none"`),
				Check: func(*terraform.State) error {
					p, err := api.Get(ctx, netpol.AllowMetadata, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if got := p.Spec.Egress[0].Ports; len(got) != 2 || got[1].Port.IntValue() != 8080 {
						return fmt.Errorf("metadata ports not restored: %v", got)
					}
					return nil
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{expectPolicyHashDrift{addr, netpol.AllowMetadata}, update},
					PostApplyPostRefresh: empty,
				},
			},
			{ // the default deny edited so it selects nothing: restored by apply
				PreConfig: func() {
					p, err := api.Get(ctx, netpol.DefaultDeny, metav1.GetOptions{})
					if err != nil {
						t.Fatal(err)
					}
					p.Spec.PodSelector = metav1.LabelSelector{MatchLabels: map[string]string{"nothing": "matches"}}
					p.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: ptrTo(intstr.FromInt32(22))}}}}
					if _, err := api.Update(ctx, p, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
						t.Fatal(err)
					}
				},
				Config: trainingNetworkPolicyConfig(t, ns, `  google_apis = "none"`),
				Check: func(*terraform.State) error {
					p, err := api.Get(ctx, netpol.DefaultDeny, metav1.GetOptions{})
					if err != nil {
						return err
					}
					if len(p.Spec.PodSelector.MatchLabels) > 0 || len(p.Spec.Ingress) > 0 {
						return fmt.Errorf("default deny not restored: %+v", p.Spec)
					}
					return nil
				},
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{expectPolicyHashDrift{addr, netpol.DefaultDeny}, update},
					PostApplyPostRefresh: empty,
				},
			},
		},
	})
	// the foreign policy was never touched
	p, err := api.Get(ctx, "team-own-policy", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("foreign policy: %v", err)
	}
	if len(p.ManagedFields) != 1 || p.Labels[netpol.ManagedByLabel] != "" {
		t.Errorf("foreign policy was modified: managed fields %v, labels %v", p.ManagedFields, p.Labels)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestAccTrainingNetworkPolicyReachability applies four configurations and,
// after each, reads the NetworkPolicies back from the apiserver and checks
// the reachability matrix with cyclonus' matcher (netpoltest).
func TestAccTrainingNetworkPolicyReachability(t *testing.T) {
	t.Parallel()
	acctest.Env(t)
	const ns = "acc-tnp-reach"
	givenNamespace(t, ns)
	core, _ := acctest.Kube(t)
	for _, other := range []string{"team-other", "monitoring"} {
		givenNamespace(t, other)
	}
	reach := func(cfg netpoltest.Config) resource.TestCheckFunc {
		return func(*terraform.State) error {
			var all []networkingv1.NetworkPolicy
			for _, n := range []string{ns, "team-other", "monitoring", "kube-system"} {
				list, err := core.NetworkingV1().NetworkPolicies(n).List(context.Background(), metav1.ListOptions{})
				if err != nil {
					return err
				}
				all = append(all, list.Items...)
			}
			if len(all) == 0 {
				return fmt.Errorf("no NetworkPolicies read back")
			}
			if failed := netpoltest.Evaluate(all, netpoltest.Matrix(cfg)); len(failed) > 0 {
				return fmt.Errorf("reachability of the policies on the server:\n  %s", netpoltest.Report(failed))
			}
			// not vacuous: the same objects fail the matrix of a neighbouring configuration
			flipped := cfg
			flipped.PublicHTTPSEgress = !flipped.PublicHTTPSEgress
			if failed := netpoltest.Evaluate(all, netpoltest.Matrix(flipped)); len(failed) == 0 {
				return fmt.Errorf("the policies on the server also pass the matrix with public_https_egress=%v", flipped.PublicHTTPSEgress)
			}
			return nil
		}
	}
	public, restricted, custom := netpoltest.Defaults(ns), netpoltest.Defaults(ns), netpoltest.Defaults(ns)
	public.PublicHTTPSEgress = true
	restricted.GoogleAPIs = "restricted"
	custom.DNS, custom.Extra, custom.Monitoring = false, true, true
	empty := resource.ConfigPlanChecks{PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{Config: trainingNetworkPolicyConfig(t, ns, ""), Check: reach(netpoltest.Defaults(ns)), ConfigPlanChecks: empty},
			{Config: trainingNetworkPolicyConfig(t, ns, "  public_https_egress = true"), Check: reach(public), ConfigPlanChecks: empty},
			{Config: trainingNetworkPolicyConfig(t, ns, `  google_apis = "restricted"`), Check: reach(restricted), ConfigPlanChecks: empty},
			{Config: trainingNetworkPolicyConfig(t, ns, `  dns = false
  extra_egress = [{ cidrs = ["10.20.0.0/16"], ports = [5432], protocol = "TCP" }]
  ingress_from_namespaces = { monitoring = { ports = [9090] } }`), Check: reach(custom), ConfigPlanChecks: empty},
		},
	})
}

func TestAccTrainingNetworkPolicyValidation(t *testing.T) {
	t.Parallel()
	acctest.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: acctest.Factories(),
		Steps: []resource.TestStep{
			{
				Config:      acctest.PlanOnlyProvider() + trainingNetworkPolicyBlock("acc-tnp-bad", `  extra_egress = [{ cidrs = ["10.20.0.0"], ports = [70000], protocol = "ICMP" }]`),
				ExpectError: regexp.MustCompile(`(?s)Invalid CIDR.*Invalid Port|(?s)Invalid Port.*Invalid CIDR`),
				PlanOnly:    true,
			},
			{
				Config:        acctest.PlanOnlyProvider() + trainingNetworkPolicyBlock("acc-tnp-bad", ""),
				ResourceName:  "mlplatform_training_network_policy.team",
				ImportState:   true,
				ImportStateId: "Not_A_Namespace",
				ExpectError:   regexp.MustCompile(`Invalid Import ID`),
			},
		},
	})
}
