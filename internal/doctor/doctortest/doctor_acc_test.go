package doctortest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	kueuev1beta2 "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/compute"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/doctor"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/gke"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kueue"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol/netpoltest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// TestAccDoctor sets up a small platform, checks that doctor passes it, then
// breaks it one way at a time, each found with a plain message and exit 6,
// and mended before the next:
//   - Kueue's versions: the release named (DOC002), a CRD that still stores
//     v1beta1 (DOC015);
//   - each of the NetworkPolicies that widen a team namespace's
//     default deny (and none of the narrower ones);
//   - a workload pending for want of quota;
//   - a flavor deleted out of band (the queues it leaves inactive, and why);
//   - a pool deleted in the GKE fake (the flavor left without a pool);
//   - Kueue frozen (SIGSTOP): the webhooks, reported within doctor's own
//     timeout.
func TestAccDoctor(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	p.teams(0, 3)

	t.Run("clean", func(t *testing.T) {
		start := time.Now()
		code, out, res := p.until("a clean platform", clean)
		t.Logf("clean after %s:\n%s", time.Since(start).Round(time.Millisecond), out)
		if !regexp.MustCompile(`(?m)^all \d+ checks passed$`).MatchString(out) || !res.Passed || code != 0 {
			t.Errorf("want all N checks passed, exit 0; got exit %d:\n%s", code, out)
		}
		p.noProbe(t)
	})

	t.Run("Kueue's versions", func(t *testing.T) {
		// DOC002 names the release the environment runs, read from the
		// label of Kueue's ConfigMap (the manager runs out of cluster).
		version := p.env.KueueVersion()
		_, out, res := p.until("a clean platform", clean)
		want := "Kueue " + version + " (from the app.kubernetes.io/version label of ConfigMap kueue-system/kueue-manager-config): supported (" + kueue.SupportedRange() + ")"
		if !slices.Contains(res.Notes, want) {
			t.Errorf("want the note %q; notes %q\n%s", want, res.Notes, out)
		}
		// DOC015: a CRD whose storedVersions still lists v1beta1, as on a
		// cluster that ran Kueue before v0.16, is warned of with the
		// migration step; with v1beta2 alone, doctor is silent again.
		crds := apiextclient.NewForConfigOrDie(p.env.REST).ApiextensionsV1().CustomResourceDefinitions()
		const name = "resourceflavors.kueue.x-k8s.io"
		stored := func(versions ...string) {
			t.Helper()
			crd, err := crds.Get(p.ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			crd.Status.StoredVersions = versions
			if _, err := crds.UpdateStatus(p.ctx, crd, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		stored("v1beta1", "v1beta2")
		defer stored("v1beta2")
		code, out, res := p.until("v1beta1 stored", func(_ int, _ string, res jsonResult) bool {
			return has(res, doctor.CheckStoredV1beta1.ID, "CRD "+name) != nil
		})
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, doctor.CheckStoredV1beta1.ID, "CRD "+name)
		if code != doctor.ExitFindings || f.Severity != doctor.SeverityWarning || len(res.Findings) != 1 ||
			!strings.Contains(f.Message, "still lists v1beta1 in status.storedVersions (v1beta1, v1beta2)") ||
			!strings.Contains(f.Message, "Kueue v0.20.0 stops serving v1beta1") ||
			!strings.Contains(f.Fix, "run Kueue's migration step hack/migrate-to-v1beta2.sh") ||
			!strings.Contains(f.Fix, "kubectl patch crd "+name+" --subresource=status") {
			t.Errorf("want exit 6 and one DOC015 warning with the migration step; got exit %d:\n%s", code, out)
		}
		stored("v1beta2")
		p.until("silent with v1beta2 alone", clean)
	})

	t.Run("workload pending for want of quota", func(t *testing.T) {
		wl := &kueuev1beta2.Workload{
			ObjectMeta: metav1.ObjectMeta{Name: "too-big", Namespace: nsName(0)},
			Spec: kueuev1beta2.WorkloadSpec{QueueName: "default", PodSets: []kueuev1beta2.PodSet{{Name: "main", Count: 1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
					Name: "train", Image: "trainer",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("100")}},
				}}}}}}},
		}
		if _, err := p.kq.KueueV1beta2().Workloads(wl.Namespace).Create(p.ctx, wl, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = p.kq.KueueV1beta2().Workloads(wl.Namespace).Delete(context.Background(), wl.Name, metav1.DeleteOptions{})
			p.until("clean again after the workload is deleted", clean)
		}()
		code, out, res := p.until("the pending workload", func(_ int, _ string, res jsonResult) bool {
			f := has(res, doctor.CheckWorkloadPending.ID, "Workload "+nsName(0)+"/too-big")
			return f != nil && strings.Contains(f.Message, "for want of quota")
		}, "--pending-threshold", "1s")
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, doctor.CheckWorkloadPending.ID, "Workload "+nsName(0)+"/too-big")
		if code != doctor.ExitFindings || !strings.Contains(f.Message, "insufficient quota for cpu") {
			t.Errorf("want exit 6 and Kueue's quota message; got exit %d: %s", code, f.Message)
		}
	})

	t.Run("default deny widened", func(t *testing.T) {
		ns := nsName(1)
		api := p.core.NetworkingV1().NetworkPolicies(ns)
		opens := map[string]string{
			"allow-everything":             "it opens egress to anywhere on every port, ingress from anywhere on every port,",
			"allow-https-anywhere":         "it opens egress to 0.0.0.0/0 on TCP 443,",
			"allow-ingress-all-namespaces": "it opens ingress from every namespace on every port,",
			"allow-rank0-egress":           "it opens for pods rank=0: egress to 10.0.0.0/8 on every port,",
		}
		widening := netpoltest.Widening(ns)
		for _, name := range slices.Sorted(maps.Keys(widening)) {
			pol := widening[name]
			if _, err := api.Create(p.ctx, &pol, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			obj := "NetworkPolicy " + ns + "/" + name
			code, out, res := p.until(name+" found", func(_ int, _ string, res jsonResult) bool { return has(res, "MLP018", obj) != nil })
			f := has(res, "MLP018", obj)
			if code != doctor.ExitFindings || f.Severity != doctor.SeverityError || len(res.Findings) != 1 || !strings.Contains(f.Message, opens[name]) ||
				!strings.Contains(f.Fix, "kubectl -n "+ns+" delete networkpolicy "+name) {
				t.Errorf("%s: want exit 6 and one error finding saying %q, with the fix; got exit %d:\n%s", name, opens[name], code, out)
			}
			if err := api.Delete(p.ctx, name, metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			p.until("clean again after "+name+" is deleted", clean)
		}
		narrower := netpoltest.Narrower(ns)
		for _, name := range slices.Sorted(maps.Keys(narrower)) {
			pol := narrower[name]
			if _, err := api.Create(p.ctx, &pol, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = api.Delete(context.Background(), name, metav1.DeleteOptions{}) }()
		}
		if code, out, _, _ := p.runText(); code != doctor.ExitOK {
			t.Errorf("narrower policies: exit %d, want 0:\n%s", code, out)
		}
	})

	t.Run("flavor deleted out of band", func(t *testing.T) {
		p.deleteFlavor(gpuPool)
		// Kueue's finalizer holds it while queues name it: doctor says so,
		// for each queue.
		code, out, _ := p.until("the flavor held in deletion", func(_ int, _ string, res jsonResult) bool {
			f := has(res, "MLP004", "ClusterQueue "+nsName(2))
			return f != nil && f.Severity == doctor.SeverityWarning && strings.Contains(f.Message, "its deletion was asked for") &&
				slices.Contains(f.Objects, "ResourceFlavor "+gpuPool)
		})
		if code != doctor.ExitFindings {
			t.Errorf("flavor being deleted: exit %d, want 6:\n%s", code, out)
		}
		p.forgetFlavor(gpuPool)
		defer func() {
			if err := p.createFlavor(gpuPool); err != nil {
				t.Error(err)
			}
			p.until("clean again after the flavor is back", clean)
		}()
		code, out, res := p.until("the queues left inactive", func(_ int, _ string, res jsonResult) bool {
			for i := range 3 {
				if has(res, doctor.CheckClusterQueue.ID, "ClusterQueue "+nsName(i)) == nil {
					return false
				}
			}
			return has(res, "MLP004", "ClusterQueue "+nsName(0)) != nil
		})
		t.Logf("exit %d:\n%s", code, out)
		cq := has(res, doctor.CheckClusterQueue.ID, "ClusterQueue "+nsName(0))
		want := fmt.Sprintf(`ClusterQueue %s is not active: its ResourceFlavor "%s" does not exist (Kueue says FlavorNotFound`, nsName(0), gpuPool)
		if code != doctor.ExitFindings || !strings.Contains(cq.Message, want) || !strings.Contains(cq.Message, nsName(0)+"/default wait") {
			t.Errorf("want exit 6 and %q naming its LocalQueue; got exit %d: %s", want, code, cq.Message)
		}
		for i := range 3 {
			fl := has(res, "MLP004", "ClusterQueue "+nsName(i))
			if fl == nil || fl.Severity != doctor.SeverityError || !strings.Contains(fl.Message, "ResourceFlavor "+gpuPool+" does not exist") {
				t.Errorf("no MLP004 error on ClusterQueue %s naming the flavor: %+v", nsName(i), fl)
			}
		}
	})

	t.Run("pool deleted in the fake", func(t *testing.T) {
		p.deletePool(gpuPool)
		defer func() {
			p.createPool(gpuPool, false)
			p.until("clean again after the pool is back", clean)
		}()
		code, out, res := p.until("the flavor without a pool", func(_ int, _ string, res jsonResult) bool {
			return has(res, "MLP005", "ResourceFlavor "+gpuPool) != nil
		})
		t.Logf("exit %d:\n%s", code, out)
		f := has(res, "MLP005", "ResourceFlavor "+gpuPool)
		want := fmt.Sprintf("no GPU pool's nodes carry all of its node_labels (cloud.google.com/gke-nodepool=%s)", gpuPool)
		if code != doctor.ExitFindings || !strings.Contains(f.Message, want) {
			t.Errorf("want exit 6 and %q; got exit %d: %s", want, code, f.Message)
		}
	})

	t.Run("Kueue frozen", func(t *testing.T) {
		pid := p.env.Processes()["kueue"]
		if pid == 0 {
			t.Fatal("no Kueue manager in the environment")
		}
		if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		watchdog := time.AfterFunc(2*time.Minute, func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
		thawed := false
		thaw := func() {
			if !thawed {
				watchdog.Stop()
				_ = syscall.Kill(pid, syscall.SIGCONT)
				thawed = true
			}
		}
		defer func() {
			thaw()
			p.until("clean again after Kueue is thawed", clean)
		}()
		const checkTimeout = 3 * time.Second
		start := time.Now()
		code, out, _, _ := p.runText("--check-timeout", checkTimeout.String(), "--timeout", "20s")
		took := time.Since(start)
		t.Logf("frozen: doctor exited %d after %s:\n%s", code, took.Round(time.Millisecond), out)
		if code != doctor.ExitFindings || !strings.Contains(out, "DOC003 kueue-webhooks (error): Kueue's admission webhooks did not answer within 3s") {
			t.Errorf("want exit 6 and DOC003 first; got exit %d:\n%s", code, out)
		}
		if !strings.HasPrefix(out, "DOC003 ") {
			t.Errorf("the webhook finding is not the first line:\n%s", out)
		}
		p.noProbe(t) // a probe that timed out leaves nothing either
		if took > checkTimeout+5*time.Second {
			t.Errorf("doctor took %s with Kueue frozen, more than its check timeout (%s) and 5 s", took.Round(time.Millisecond), checkTimeout)
		}
	})
}

// runText is one text run (no JSON run after it, so it is timed alone).
func (p *platform) runText(extra ...string) (int, string, string, jsonResult) {
	args := []string{"--kubeconfig", p.env.Kubeconfig, "--project", p.env.Project, "--location", p.env.Location,
		"--cluster", p.env.Cluster, "--container-endpoint", p.env.GCP.Addr(), "--insecure-endpoints"}
	var out, errOut strings.Builder
	code := doctor.Command(p.ctx, append(args, extra...), &out, &errOut, func(string) string { return "" })
	return code, out.String(), errOut.String(), jsonResult{}
}

// counter counts the requests of every clientset built from one rest.Config
// (each wraps its own transport), by method and path.
type counter struct {
	n     atomic.Int64
	lines chan string
}

type countingTransport struct {
	next http.RoundTripper
	c    *counter
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.c.n.Add(1)
	select {
	case t.c.lines <- r.Method + " " + r.URL.Path + "?" + r.URL.RawQuery:
	default:
	}
	return t.next.RoundTrip(r)
}

// TestAccDoctorRequestsBounded runs doctor on the platform at 10 and at 100
// teams (a namespace, ClusterQueue and LocalQueue each, and a workload per
// team), with a GPU node per team and ten pods bound to each (one pod of
// the team's admitted workload requesting the node's 8 GPUs, nine without
// GPUs): 100 GPU nodes and 1,000 pods at 100 teams. It counts doctor's
// requests at the clients: HTTP requests to the Kubernetes API server
// through a counting RoundTripper, RPCs to GKE at the fake. The counts are
// the same at both sizes: one LIST per kind.
func TestAccDoctorRequestsBounded(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	p.gpuPool(h100Pool, spec.CapacitySpot)
	const podsPerNode = 10
	nodes := 0
	cc, err := compute.New(p.ctx, option.WithEndpoint("http://"+p.env.GCP.ComputeAddr()), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	var computeReqs map[string]int
	measure := func(teams int) (kubeReqs int64, gkeReqs int, paths []string) {
		p.teams(0, teams)
		for i := range teams {
			wl := &kueuev1beta2.Workload{
				ObjectMeta: metav1.ObjectMeta{Name: "small", Namespace: nsName(i)},
				Spec: kueuev1beta2.WorkloadSpec{QueueName: "default", PodSets: []kueuev1beta2.PodSet{{Name: "main", Count: 1,
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{
						Name: "train", Image: "trainer", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": resource.MustParse("1")}},
					}}}}}}},
			}
			_, err := p.kq.KueueV1beta2().Workloads(wl.Namespace).Create(p.ctx, wl, metav1.CreateOptions{})
			ignoreExists(t, err)
		}
		reg := time.Now()
		for ; nodes < teams; nodes++ {
			node, ns := fmt.Sprintf("doc-h100-%03d", nodes), nsName(nodes)
			p.registerNodes(h100Pool, node)
			for j := range podsPerNode {
				pod := gpuPod(ns, fmt.Sprintf("%s-%d", node, j), node, nil)
				if j == 0 {
					// Kueue's annotation: a pod of the team's admitted workload
					pod.Annotations = map[string]string{kueuev1beta2.WorkloadAnnotation: "small"}
				} else {
					pod.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
				}
				p.createPod(pod)
			}
		}
		t.Logf("%d teams: %d GPU nodes and %d pods bound to them registered in %s", teams, nodes, nodes*podsPerNode, time.Since(reg).Round(time.Second))
		// Kueue reports on the new queues and workloads: doctor runs once
		// everything is Active and admitted, so the run measured is a clean one.
		p.until(fmt.Sprintf("%d teams clean", teams), clean)
		ct := &counter{lines: make(chan string, 1000)}
		cfg := rest.CopyConfig(p.env.REST)
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{next: rt, c: ct} })
		kc, g := p.clients(cfg)
		p.env.GCP.ResetRequests()
		p.env.GCP.Compute.ResetRequests()
		start := time.Now()
		res, err := doctor.Run(p.ctx, doctor.Sources{Kube: kc, GKE: g, Cluster: p.cluster(), Compute: cc}, doctor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		if res.Failed() {
			t.Errorf("%d teams: findings on the clean platform: %+v", teams, res.Findings)
		}
		for _, n := range p.env.GCP.Requests() {
			gkeReqs += n
		}
		computeReqs = p.env.GCP.Compute.Requests()
		close(ct.lines)
		for l := range ct.lines {
			paths = append(paths, l)
		}
		t.Logf("%d teams: %d checks, %d findings, %d Kubernetes requests, %d GKE RPCs, in %s", teams, res.Checks, len(res.Findings),
			ct.n.Load(), gkeReqs, took.Round(time.Millisecond))
		return ct.n.Load(), gkeReqs, paths
	}
	k10, g10, paths := measure(10)
	c10 := computeReqs
	k100, g100, _ := measure(100)
	t.Logf("Compute Engine requests at 10 teams %v, at 100 %v", c10, computeReqs)
	// Compute Engine: one regions.get per region of the GPU pools, one
	// projects.get per project, one subnetworks.get per cluster.
	wantCompute := map[string]int{"compute.regions.get": 1, "compute.projects.get": 1, "compute.subnetworks.get": 1}
	for teams, got := range map[int]map[string]int{10: c10, 100: computeReqs} {
		if diff := cmp.Diff(wantCompute, got); diff != "" {
			t.Errorf("%d teams: Compute Engine requests (-want +got):\n%s", teams, diff)
		}
	}
	if n := p.env.GCP.Requests()["/google.container.v1.ClusterManager/GetCluster"]; n != 1 {
		t.Errorf("%d GetCluster, want 1 (the cluster and its node pools in one read)", n)
	}
	t.Logf("requests at 10 teams:\n  %s", strings.Join(paths, "\n  "))
	if k10 != k100 || g10 != g100 {
		t.Errorf("requests grow with the platform: %d Kubernetes + %d GKE at 10 teams, %d + %d at 100", k10, g10, k100, g100)
	}
	// One request per kind: the CRDs, Kueue's Deployments, Kueue's ConfigMap,
	// the probe, and a LIST of each kind the checks and the rules read
	// (namespaces, the nine Kueue kinds, workloads, network policies, service
	// accounts, GPU nodes, pods bound to nodes, PodDisruptionBudgets).
	const kinds = 20
	// Doctor writes nothing: every request is a GET (a LIST), but one, the
	// webhook probe: a create of a ResourceFlavor as a server-side dry run,
	// which the API server never stores.
	seen, probes := map[string]bool{}, 0
	for _, l := range paths {
		if seen[l] {
			t.Errorf("requested twice: %s", l)
		}
		seen[l] = true
		if strings.Contains(l, "/secrets") {
			t.Errorf("doctor read Secrets: %s", l)
		}
		switch method, _, _ := strings.Cut(l, " "); {
		case method == "GET":
		case method == "POST" && strings.Contains(l, "/resourceflavors?") && strings.Contains(l, "dryRun=All"):
			probes++
		default:
			t.Errorf("doctor sent %s: it may only list, and dry-run its webhook probe", l)
		}
	}
	if probes != 1 {
		t.Errorf("%d dry-run webhook probes, want 1", probes)
	}
	if k100 != kinds || g100 != 1 {
		t.Errorf("want %d Kubernetes requests (one per kind) and 1 GetCluster; got %d and %d", kinds, k100, g100)
	}
	// The checks guide says the count; it must say what was measured.
	guide, err := os.ReadFile(filepath.Join("..", "..", "..", "templates", "guides", "checks.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if says := fmt.Sprintf("%d Kubernetes requests and %d GKE request at 10 teams and at\n100 (measured by the doctor acceptance test, which fails when this sentence\nand the count part ways; the same %d with %d GPU nodes and %s pods bound to them)",
		k100, g100, k100, nodes, thousands(nodes*podsPerNode)); !strings.Contains(string(guide), says) {
		t.Errorf("templates/guides/checks.md.tmpl does not say what was measured: %q", says)
	}
	if says := "3 Compute Engine requests (one regions.get per region of the GPU pools,\none projects.get per project, one subnetworks.get per cluster)"; !strings.Contains(string(guide), says) {
		t.Errorf("templates/guides/checks.md.tmpl does not say what was measured: %q", says)
	}
}

// TestAccDoctorLeastPrivilege runs doctor as a user bound only to the
// read-only RBAC it documents (`mlplatform doctor --rbac`, applied as
// printed) and as the cluster's admin, on a platform with something to
// find: the same findings. The role grants no Secret, so a read of one
// would show as a DOC000 here.
func TestAccDoctorLeastPrivilege(t *testing.T) {
	p := newPlatform(t)
	p.shared()
	p.teams(0, 2)
	ns := nsName(1)
	wide := netpoltest.Widening(ns)["allow-https-anywhere"]
	_, err := p.core.NetworkingV1().NetworkPolicies(ns).Create(p.ctx, &wide, metav1.CreateOptions{})
	ignoreExists(t, err)
	defer func() {
		_ = p.core.NetworkingV1().NetworkPolicies(ns).Delete(context.Background(), wide.Name, metav1.DeleteOptions{})
	}()
	const user = "mlplatform-doctor"
	p.applyRBAC(doctor.RBAC)
	p.until("the widening policy found", func(_ int, _ string, res jsonResult) bool {
		return has(res, "MLP018", "NetworkPolicy "+ns+"/"+wide.Name) != nil
	})

	run := func(as string) *doctor.Result {
		cfg := rest.CopyConfig(p.env.REST)
		if as != "" {
			cfg.Impersonate = rest.ImpersonationConfig{UserName: as}
		}
		kc, g := p.clients(cfg)
		res, err := doctor.Run(p.ctx, doctor.Sources{Kube: kc, GKE: g, Cluster: p.cluster()}, doctor.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	admin, reader := run(""), run(user)
	if d := cmp.Diff(admin.Findings, reader.Findings); d != "" {
		t.Errorf("findings as the admin and as %s, bound to the documented role, differ (-admin +role):\n%s", user, d)
	}
	if len(admin.Findings) == 0 {
		t.Error("no findings to compare")
	}
	// The role lists Kueue's ConfigMap by name: the reader names the
	// release from its label, as the admin does.
	release := "Kueue " + p.env.KueueVersion() + " (from the app.kubernetes.io/version label of ConfigMap kueue-system/kueue-manager-config)"
	if !slices.ContainsFunc(reader.Notes, func(n string) bool { return strings.HasPrefix(n, release) }) {
		t.Errorf("as %s, want a note naming %q; notes %q", user, release, reader.Notes)
	}
	if !slices.ContainsFunc(reader.Notes, func(n string) bool { return strings.Contains(n, "webhooks were not probed") }) {
		t.Errorf("as %s (no create on resourceflavors), want a note that the webhooks were not probed; notes %q", user, reader.Notes)
	}
	if strings.Contains(strings.ToLower(doctor.RBAC), "secret") && !strings.Contains(doctor.RBAC, "It reads no Secret") {
		t.Error("the documented role mentions secrets")
	}

	// A user bound to nothing is refused every read: the error says so, and
	// what to use instead (not "did not answer").
	cfg := rest.CopyConfig(p.env.REST)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: "mlplatform-nobody"}
	kc, err := kube.New(cfg, "doctor-rbac-test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = doctor.Gather(p.ctx, doctor.Sources{Kube: kc}, doctor.Options{})
	if !errors.Is(err, doctor.ErrRefused) || !strings.Contains(err.Error(), "use credentials that may list") {
		t.Errorf("as a user bound to nothing: err = %v, want ErrRefused saying what to do", err)
	}
}

// clients are doctor's Kubernetes client over cfg and a GKE client of the
// fake, closed when the test ends.
func (p *platform) clients(cfg *rest.Config) (*kube.Client, *gke.Client) {
	p.t.Helper()
	kc, err := kube.New(cfg, "doctor-test")
	if err != nil {
		p.t.Fatal(err)
	}
	g, err := gke.New(p.ctx, p.env.GCP.ClientOptions()...)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(func() { _ = g.Close() })
	return kc, g
}

// applyRBAC creates the ClusterRoles, Roles and bindings of a manifest.
func (p *platform) applyRBAC(manifest string) {
	t := p.t
	rbac := p.core.RbacV1()
	for _, doc := range strings.Split(manifest, "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		var err error
		switch meta.Kind {
		case "ClusterRole":
			var o rbacv1.ClusterRole
			mustYAML(t, doc, &o)
			_, err = rbac.ClusterRoles().Create(p.ctx, &o, metav1.CreateOptions{})
		case "Role":
			var o rbacv1.Role
			mustYAML(t, doc, &o)
			_, err = rbac.Roles(o.Namespace).Create(p.ctx, &o, metav1.CreateOptions{})
		case "ClusterRoleBinding":
			var o rbacv1.ClusterRoleBinding
			mustYAML(t, doc, &o)
			_, err = rbac.ClusterRoleBindings().Create(p.ctx, &o, metav1.CreateOptions{})
		case "RoleBinding":
			var o rbacv1.RoleBinding
			mustYAML(t, doc, &o)
			_, err = rbac.RoleBindings(o.Namespace).Create(p.ctx, &o, metav1.CreateOptions{})
		default:
			t.Fatalf("unexpected kind %q in the RBAC manifest", meta.Kind)
		}
		ignoreExists(t, err)
	}
}

func mustYAML(t *testing.T, doc string, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
		t.Fatal(err)
	}
}
