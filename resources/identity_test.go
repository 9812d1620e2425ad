package resources_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// One object of every kind a resource creates (MultiKueue's are in
// internal/multikueuetest), with literal names only, so that every resource
// of a second copy of it is applied on its own. The namespaces of the
// binding, the policies and the LocalQueue are the test's.
func everyKind(p string) string {
	return fmt.Sprintf(`
resource "mlplatform_team_namespace" "ns" {
  name = "%[1]s"
  team = "two"
}

resource "mlplatform_resource_flavor" "l4" {
  name = "%[1]s-l4"
}

resource "mlplatform_cohort" "c" {
  name = "%[1]s"
}

resource "mlplatform_topology" "t" {
  name   = "%[1]s"
  levels = ["cloud.google.com/gce-topology-block", "kubernetes.io/hostname"]
}

resource "mlplatform_workload_priority_class" "p" {
  name  = "%[1]s"
  value = 10
}

resource "mlplatform_provisioning_admission_check" "dws" {
  name = "%[1]s"
}

resource "mlplatform_cluster_queue" "q" {
  name               = "%[1]s"
  namespace_selector = {}
  wait_for_active    = false
  resource_groups = [{
    covered_resources = ["nvidia.com/gpu"]
    flavors = [{ name = "%[1]s-l4", resources = [{ name = "nvidia.com/gpu", nominal_quota = "4" }] }]
  }]
}

resource "mlplatform_local_queue" "lq" {
  namespace       = "%[1]s-given"
  name            = "gpu"
  cluster_queue   = "%[1]s"
  wait_for_active = false
}

resource "mlplatform_gpu_pool" "l4" {
  name         = "%[1]s"
  machine_type = "g2-standard-8"
  gpu          = { type = "nvidia-l4", count = 1 }
  capacity     = "spot"
  autoscaling  = { max_nodes = 2 }
}

resource "mlplatform_workload_identity" "w" {
  namespace                     = "%[1]s-given"
  kubernetes_service_account    = "trainer"
  create_google_service_account = { account_id = "%[1]s-trainer" }
}

resource "mlplatform_training_network_policy" "np" {
  namespace = "%[1]s-given"
}
`, p)
}

// refusals are the errors a second create of everyKind(p) must give: the
// object, that mlplatform made it for another resource, and the import.
func refusals(p string) map[string]string {
	return map[string]string{
		"mlplatform_team_namespace.ns":                "Namespace " + p,
		"mlplatform_resource_flavor.l4":               "ResourceFlavor " + p + "-l4",
		"mlplatform_cohort.c":                         "Cohort " + p,
		"mlplatform_topology.t":                       "Topology " + p,
		"mlplatform_workload_priority_class.p":        "WorkloadPriorityClass " + p,
		"mlplatform_provisioning_admission_check.dws": "ProvisioningRequestConfig " + p,
		"mlplatform_cluster_queue.q":                  "ClusterQueue " + p,
		"mlplatform_local_queue.lq":                   "LocalQueue " + p + "-given/gpu",
		"mlplatform_gpu_pool.l4":                      "Node Pool projects/",
		"mlplatform_workload_identity.w":              "Kubernetes Service Account " + p + "-given/trainer",
		"mlplatform_training_network_policy.np":       "NetworkPolicy " + p + "-given/mlplatform-", // the first of them it finds
	}
}

// identities reads what must not change of every object of everyKind(p):
// its server identity, and what a writer could change (rv).
func identities(t *testing.T, p string) map[string]string {
	t.Helper()
	ctx := context.Background()
	core, kq := acctest.Kube(t)
	k := kq.KueueV1beta2()
	out := map[string]string{}
	read := func(name string, get func() (metav1.Object, error), v version) {
		obj, err := get()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = string(obj.GetUID()) + " " + v(t)
	}
	read("namespace", func() (metav1.Object, error) { return core.CoreV1().Namespaces().Get(ctx, p, metav1.GetOptions{}) },
		rv(core.CoreV1().Namespaces().Get, p))
	read("flavor", func() (metav1.Object, error) { return k.ResourceFlavors().Get(ctx, p+"-l4", metav1.GetOptions{}) },
		rv(k.ResourceFlavors().Get, p+"-l4"))
	read("cohort", func() (metav1.Object, error) { return k.Cohorts().Get(ctx, p, metav1.GetOptions{}) }, rv(k.Cohorts().Get, p))
	read("topology", func() (metav1.Object, error) { return k.Topologies().Get(ctx, p, metav1.GetOptions{}) }, rv(k.Topologies().Get, p))
	read("priority class", func() (metav1.Object, error) { return k.WorkloadPriorityClasses().Get(ctx, p, metav1.GetOptions{}) },
		rv(k.WorkloadPriorityClasses().Get, p))
	read("admission check", func() (metav1.Object, error) { return k.AdmissionChecks().Get(ctx, p, metav1.GetOptions{}) },
		rv(k.AdmissionChecks().Get, p))
	read("provisioning config", func() (metav1.Object, error) { return k.ProvisioningRequestConfigs().Get(ctx, p, metav1.GetOptions{}) },
		rv(k.ProvisioningRequestConfigs().Get, p))
	read("cluster queue", func() (metav1.Object, error) { return k.ClusterQueues().Get(ctx, p, metav1.GetOptions{}) },
		rv(k.ClusterQueues().Get, p))
	read("local queue", func() (metav1.Object, error) { return k.LocalQueues(p+"-given").Get(ctx, "gpu", metav1.GetOptions{}) },
		rv(k.LocalQueues(p+"-given").Get, "gpu"))
	read("service account", func() (metav1.Object, error) {
		return core.CoreV1().ServiceAccounts(p+"-given").Get(ctx, "trainer", metav1.GetOptions{})
	}, rv(core.CoreV1().ServiceAccounts(p+"-given").Get, "trainer"))
	pols, err := core.NetworkingV1().NetworkPolicies(p+"-given").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, np := range pols.Items {
		read("policy "+np.Name, func() (metav1.Object, error) { return &np, nil }, rv(core.NetworkingV1().NetworkPolicies(p+"-given").Get, np.Name))
	}
	env := acctest.Env(t)
	np := getPool(t, gkeClient(t, env.GCP), p)
	if np == nil {
		t.Fatal("the node pool is gone")
	}
	out["node pool"] = np.GetEtag() + " " + np.GetConfig().GetResourceLabels()[spec.PoolCreationLabel] + " " + strings.Join(np.GetInstanceGroupUrls(), " ")
	sa, found, err := iamClient(t).ServiceAccount(ctx, p+"-trainer@"+env.Project+".iam.gserviceaccount.com")
	if err != nil || !found {
		t.Fatalf("the Google service account: found=%v, err=%v", found, err)
	}
	out["google service account"] = sa.GetUniqueId() + " " + sa.GetDescription() + " " + string(sa.GetEtag())
	return out
}

// errorOf is the error (its text after "Error: ", up to the next one) of
// the resource at addr in out (oneLine), if it matches re; "" otherwise.
func errorOf(out, addr string, re *regexp.Regexp) string {
	for _, e := range strings.Split(out, "Error: ")[1:] {
		if strings.Contains(e, "with "+addr+",") && re.MatchString(e) {
			return e
		}
	}
	return ""
}

// oneLine is output with its line breaks and runs of spaces made one space,
// for matching messages Terraform wraps.
func oneLine(out string) string { return strings.Join(strings.Fields(out), " ") }

// configured is newCLI with cfg (after the provider block) as its
// configuration, not applied.
func configured(t *testing.T, cfg string) (context.Context, *acctest.CLI) {
	t.Helper()
	ctx, cli := newCLI(t)
	cli.Write(acctest.ProviderConfig(t) + cfg)
	return ctx, cli
}

// Two configurations declaring the same objects (a copy-paste in another
// workspace): the second's creates all fail, naming each object, that
// mlplatform made it for another resource, and the import; they write
// nothing, its state stays empty, its destroy touches nothing, and the
// first's plan stays empty.
func TestAccTwoConfigurationsNeverShare(t *testing.T) {
	t.Parallel()
	const p = "acc-two"
	givenNamespace(t, p+"-given")
	_, a := newCLI(t)
	_, b := configured(t, everyKind(p))
	a.Apply(acctest.ProviderConfig(t) + everyKind(p))
	before := identities(t, p)

	out, code := b.RunCode("apply", "-auto-approve", "-input=false", "-no-color")
	if code == 0 {
		t.Fatalf("the second configuration's apply succeeded:\n%s", out)
	}
	got := oneLine(string(out))
	for addr, object := range refusals(p) {
		re := regexp.MustCompile(`^` + regexp.QuoteMeta(object) + `\S* Already Exists (│ )?with ` + regexp.QuoteMeta(addr) + `,.*` +
			`mlplatform created it on \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, but no state of this resource records it.*terraform import ADDRESS \S+`)
		if errorOf(got, addr, re) == "" {
			t.Errorf("%s: no refusal naming %s, who made it and the import:\n%s", addr, object, out)
		}
	}
	if n := strings.Count(got, "Error: "); n != len(refusals(p)) {
		t.Errorf("%d errors, want one per resource (%d):\n%s", n, len(refusals(p)), out)
	}
	if diff := cmp.Diff(before, identities(t, p)); diff != "" {
		t.Errorf("the second configuration's apply changed the first's objects (-before +after):\n%s", diff)
	}
	if list, _ := b.RunCode("state", "list"); strings.TrimSpace(string(list)) != "" {
		t.Errorf("the second configuration's state holds:\n%s", list)
	}
	b.Run("destroy", "-auto-approve", "-input=false", "-no-color")
	if diff := cmp.Diff(before, identities(t, p)); diff != "" {
		t.Errorf("the second configuration's destroy changed the first's objects (-before +after):\n%s", diff)
	}
	if out, code := a.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Errorf("the first configuration's plan exited %d (2: not empty):\n%s", code, out)
	}
}

// Two resources of one configuration declaring the same objects (a module
// instantiated twice with one team name): each object is created by one of
// them, and the other's create fails the same way, writing nothing.
func TestAccTwoResourcesNeverShare(t *testing.T) {
	t.Parallel()
	const p = "acc-dup"
	givenNamespace(t, p+"-given")
	twice := everyKind(p) + regexp.MustCompile(`resource "(\w+)" "(\w+)"`).ReplaceAllString(everyKind(p), `resource "$1" "${2}_again"`)
	_, cli := configured(t, twice)
	cli.DestroyAtEnd() // only what one of each pair created is in state: destroy deletes those, and leaves nothing behind
	out, code := cli.RunCode("apply", "-auto-approve", "-input=false", "-no-color")
	if code == 0 {
		t.Fatalf("an apply with two resources for each object succeeded:\n%s", out)
	}
	got := oneLine(string(out))
	list := string(cli.Run("state", "list"))
	for addr, object := range refusals(p) {
		inState := slices.DeleteFunc(strings.Fields(list), func(a string) bool { return a != addr && a != addr+"_again" })
		if len(inState) != 1 {
			t.Errorf("%s: %v in state, want exactly one of the two", addr, inState)
			continue
		}
		loser := addr + "_again"
		if inState[0] == loser {
			loser = addr
		}
		pattern := regexp.QuoteMeta(object)
		if addr == "mlplatform_workload_identity.w" { // racing, the binding that lost may meet either part first
			pattern = `(` + pattern + `|Google Service Account ` + regexp.QuoteMeta(p+"-trainer@") + `)`
		}
		// (IAM keeps no creation time of a service account)
		re := regexp.MustCompile(`^` + pattern + `\S* Already Exists (│ )?with ` + regexp.QuoteMeta(loser) + `,.*` +
			`mlplatform created it( on \S+ \S+ UTC)?, but no state of this resource records it`)
		if errorOf(got, loser, re) == "" {
			t.Errorf("%s: no refusal of %s naming %s:\n%s", addr, loser, object, out)
		}
	}
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 2 || strings.Count(string(out), "will be created") != len(refusals(p)) {
		t.Errorf("plan after: exit %d, want 2 with one create per refused resource:\n%s", code, out)
	}
}

// A namespace deleted and made again by hand under the same name: the plan
// says it was replaced and plans to create it (the create would refuse it),
// and a destroy, even without a refresh, leaves the hand-made one.
func TestAccRecreatedByHandIsNotMine(t *testing.T) {
	t.Parallel()
	const name = "acc-rehand"
	ctx, cli := configured(t, `
resource "mlplatform_team_namespace" "ns" {
  name = "`+name+`"
  team = "rehand"
}
`)
	cli.Run("apply", "-auto-approve", "-input=false", "-no-color")
	first := pullState(t, cli)
	core, _ := acctest.Kube(t)
	nss := core.CoreV1().Namespaces()
	deleteOutOfBand(t, nss, name)
	hand, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, asKubectl)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nss.Delete(context.Background(), name, metav1.DeleteOptions{}) })

	out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color")
	got := oneLine(string(out))
	for _, want := range []string{"Warning: Namespace " + name + " Was Replaced Outside Terraform",
		"that one (", ") was deleted, and the one there now (" + string(hand.UID) + ") was made in its place, by someone else on",
		"The apply will not write to, take over or delete the object there now", "terraform import ADDRESS " + name,
		"mlplatform_team_namespace.ns will be created"} {
		if !strings.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if code != 2 {
		t.Errorf("plan exited %d, want 2 (a create)", code)
	}
	out, code = cli.RunCode("apply", "-auto-approve", "-input=false", "-no-color")
	if code == 0 || !strings.Contains(oneLine(string(out)), "Namespace "+name+" already exists and was not created by mlplatform") {
		t.Errorf("apply over the hand-made namespace: exit %d, want a refusal:\n%s", code, out)
	}
	// With the state that still records the first namespace (a destroy
	// without a refresh): destroy finds another there, and leaves it.
	pushState(t, cli, first)
	out = cli.Run("destroy", "-refresh=false", "-auto-approve", "-input=false", "-no-color")
	if !strings.Contains(oneLine(string(out)), "Warning: Namespace "+name+" Left in Place") {
		t.Errorf("destroy did not say it left the namespace:\n%s", out)
	}
	if ns, err := nss.Get(ctx, name, metav1.GetOptions{}); err != nil || ns.UID != hand.UID || ns.DeletionTimestamp != nil {
		t.Errorf("destroy deleted the hand-made namespace (err %v)", err)
	}
}

func pullState(t *testing.T, cli *acctest.CLI) map[string]any {
	t.Helper()
	var st map[string]any
	if err := json.Unmarshal(cli.Run("state", "pull"), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

func pushState(t *testing.T, cli *acctest.CLI, st map[string]any) {
	t.Helper()
	st["serial"] = st["serial"].(float64) + 1
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(cli.Dir, "pushed.tfstate")
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cli.Run("state", "push", "-force", f)
}

// State written by the release before identities has no private state: a
// plan after the upgrade is empty, and its first refresh records the
// identities (an object made again by hand is then told apart).
func TestAccUpgradeRecordsIdentities(t *testing.T) {
	t.Parallel()
	const p = "acc-upg"
	givenNamespace(t, p+"-given")
	ctx, cli := newCLI(t)
	cli.Apply(acctest.ProviderConfig(t) + everyKind(p))
	st := pullState(t, cli)
	privates := 0
	for _, r := range st["resources"].([]any) {
		for _, i := range r.(map[string]any)["instances"].([]any) {
			inst := i.(map[string]any)
			if raw, ok := inst["private"].(string); ok {
				b, _ := base64.StdEncoding.DecodeString(raw)
				if strings.Contains(string(b), "identities") {
					privates++
				}
			}
			delete(inst, "private") // as the release before identities wrote it
		}
	}
	if privates != len(refusals(p)) {
		t.Fatalf("%d resources recorded identities, want all %d", privates, len(refusals(p)))
	}
	pushState(t, cli, st)
	if out, code := cli.RunCode("plan", "-detailed-exitcode", "-input=false", "-no-color"); code != 0 {
		t.Fatalf("plan of the earlier release's state exited %d (2: not empty):\n%s", code, out)
	}
	cli.Run("apply", "-refresh-only", "-auto-approve", "-input=false", "-no-color")
	privates = 0
	for _, r := range pullState(t, cli)["resources"].([]any) {
		for _, i := range r.(map[string]any)["instances"].([]any) {
			raw, _ := i.(map[string]any)["private"].(string)
			b, _ := base64.StdEncoding.DecodeString(raw)
			if strings.Contains(string(b), "identities") {
				privates++
			}
		}
	}
	if privates != len(refusals(p)) {
		t.Errorf("after the first refresh %d resources recorded identities, want all %d", privates, len(refusals(p)))
	}
	// Recorded: the cohort deleted and made again by hand reads as replaced.
	_, kq := acctest.Kube(t)
	cohorts := kq.KueueV1beta2().Cohorts()
	deleteOutOfBand(t, cohorts, p)
	if _, err := cohorts.Create(ctx, &kueuev1beta2.Cohort{ObjectMeta: metav1.ObjectMeta{Name: p}}, asKubectl); err != nil {
		t.Fatal(err)
	}
	if out, _ := cli.RunCode("plan", "-input=false", "-no-color"); !strings.Contains(oneLine(string(out)), "Cohort "+p+" Was Replaced Outside Terraform") {
		t.Errorf("a cohort made again by hand after the upgrade is not told apart:\n%s", out)
	}
	// The hand-made one is not the configuration's: gone before the destroy.
	deleteOutOfBand(t, cohorts, p)
}
