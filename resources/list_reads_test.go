package resources_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/acctest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol/netpoltest"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/testenv"
)

// requestCounter counts the requests a client sends to the real API server
// by method and path (collection paths are LISTs).
type requestCounter struct {
	mu   sync.Mutex
	n    map[string]int
	next http.RoundTripper
}

func (c *requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.n[r.Method+" "+r.URL.Path]++
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

// countedClient is a client of the test environment, as the provider
// builds one (list reads on), whose requests the counter counts; edit, when
// set, changes its REST config first (e.g. to impersonate a user).
func countedClient(t *testing.T, e *testenv.Env, name string, edit func(*rest.Config)) (*kube.Client, *requestCounter) {
	t.Helper()
	counter := &requestCounter{n: map[string]int{}}
	cfg := rest.CopyConfig(e.REST)
	if edit != nil {
		edit(cfg)
	}
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	c, err := kube.New(cfg, name)
	if err != nil {
		t.Fatal(err)
	}
	return c.EnableListReads(), counter
}

func (c *requestCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.n
	c.n = map[string]int{}
	return n
}

// A provider process reads each kind with one LIST (kube.ListCache), and an
// apply that writes an object and immediately reads it back, as Terraform's
// next refresh in the same process would, sees what it wrote: every write
// invalidates the list. Against the real API server.
func TestAccListReadsNeverStale(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	c, counter := countedClient(t, e, "list-reads-test", nil)
	ctx := context.Background()
	classes := reconcile.NewWorkloadPriorityClasses(c)
	const path = "/apis/kueue.x-k8s.io/v1beta2/workloadpriorityclasses"

	names := make([]string, 8)
	for i := range names {
		names[i] = fmt.Sprintf("list-reads-%d", i)
		if _, err := classes.Update(ctx, reconcile.Ref{Name: names[i]}, spec.WorkloadPriorityClass{}, spec.WorkloadPriorityClass{Name: names[i], Value: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range names {
			_ = classes.Delete(context.Background(), reconcile.Ref{Name: n}, spec.WorkloadPriorityClass{})
		}
	})

	// A refresh: every object read at once, one LIST between them.
	counter.take()
	var g errgroup.Group
	for i, n := range names {
		g.Go(func() error {
			got, found, err := classes.Observe(ctx, reconcile.Ref{Name: n}, spec.WorkloadPriorityClass{})
			if err != nil || !found || got.Value != int64(i) {
				return fmt.Errorf("observe %s: %+v found=%v err=%v", n, got, found, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := counter.take(); n["GET "+path] != 1 || len(n) != 1 {
		t.Errorf("reading %d classes sent %v, want one LIST", len(names), n)
	}

	// Write, then read back at once: the new value, never the listed one.
	ref := reconcile.Ref{Name: names[0]}
	for _, v := range []int64{100, 200} {
		if _, err := classes.Update(ctx, ref, spec.WorkloadPriorityClass{}, spec.WorkloadPriorityClass{Name: ref.Name, Value: v}); err != nil {
			t.Fatal(err)
		}
		got, found, err := classes.Observe(ctx, ref, spec.WorkloadPriorityClass{})
		if err != nil || !found || got.Value != v {
			t.Fatalf("after writing value %d, read %+v found=%v err=%v", v, got, found, err)
		}
	}
	// Created after the list was read: found.
	fresh := reconcile.Ref{Name: "list-reads-new"}
	names = append(names, fresh.Name)
	if _, _, err := classes.Observe(ctx, fresh, spec.WorkloadPriorityClass{}); err != nil {
		t.Fatal(err)
	}
	if _, err := classes.Update(ctx, fresh, spec.WorkloadPriorityClass{}, spec.WorkloadPriorityClass{Name: fresh.Name, Value: 7}); err != nil {
		t.Fatal(err)
	}
	if got, found, err := classes.Observe(ctx, fresh, spec.WorkloadPriorityClass{}); err != nil || !found || got.Value != 7 {
		t.Fatalf("created after the list: read %+v found=%v err=%v", got, found, err)
	}
	// Deleted after the list was read: gone.
	if err := classes.Delete(ctx, ref, spec.WorkloadPriorityClass{}); err != nil {
		t.Fatal(err)
	}
	if got, found, err := classes.Observe(ctx, ref, spec.WorkloadPriorityClass{}); err != nil || found {
		t.Fatalf("after delete, read %+v found=%v err=%v", got, found, err)
	}
}

// On a cluster where the provider may read its objects but not list them
// cluster-wide (RBAC bound per namespace), reads still find them: a kind
// whose LIST is refused is read with GETs from then on (no refused LIST
// before each), and network policies list their namespace instead. Against
// the real API server, as a user with a namespaced Role.
func TestAccListReadsUnderNamespacedRBAC(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	ctx := context.Background()
	const ns, user = "acc-rbac-reads", "acc-rbac-reader"
	givenNamespace(t, ns)
	admin, err := kube.New(e.REST, "rbac-test-admin")
	if err != nil {
		t.Fatal(err)
	}
	policies := reconcile.NewTrainingNetworkPolicies(admin)
	queues := reconcile.NewLocalQueues(admin)
	ref := reconcile.Ref{Namespace: ns, Name: "gpu"}
	if _, err := policies.Update(ctx, reconcile.Ref{Namespace: ns}, spec.TrainingNetworkPolicy{}, spec.DefaultTrainingNetworkPolicy(ns)); err != nil {
		t.Fatal(err)
	}
	if _, err := queues.Update(ctx, ref, spec.LocalQueue{}, spec.LocalQueue{Namespace: ns, Name: "gpu", ClusterQueue: "acc-rbac-cq"}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: ns}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"networkpolicies"}, Verbs: []string{"get", "list"}},
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"localqueues"}, Verbs: []string{"get"}},
	}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user, Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: user}}}
	if _, err := admin.Core.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Core.RbacV1().RoleBindings(ns).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	reader, counter := countedClient(t, e, "rbac-test-reader", func(cfg *rest.Config) { cfg.Impersonate = rest.ImpersonationConfig{UserName: user} })

	wide := netpoltest.Widening(ns)["allow-https-anywhere"]
	if _, err := admin.Core.NetworkingV1().NetworkPolicies(ns).Create(ctx, &wide, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // the second read after the refusal is remembered
		got, found, err := reconcile.NewTrainingNetworkPolicies(reader).Observe(ctx, reconcile.Ref{Namespace: ns}, spec.TrainingNetworkPolicy{})
		if err != nil || !found || !got.DNS || !got.MetadataServer || got.GoogleAPIs != "private" {
			t.Errorf("read %d of the network policies without cluster-wide list: %+v found=%v err=%v", i, got, found, err)
		}
		ws, err := reconcile.NewTrainingNetworkPolicies(reader).Widenings(ctx, spec.DefaultTrainingNetworkPolicy(ns))
		if err != nil || len(ws) != 1 || ws[0].Policy != wide.Name {
			t.Errorf("check %d of the other network policies without cluster-wide list: %+v err=%v", i, ws, err)
		}
	}
	const lqPath = "/apis/kueue.x-k8s.io/v1beta2/localqueues"
	for i := range 3 {
		counter.take()
		q, found, err := reconcile.NewLocalQueues(reader).Observe(ctx, ref, spec.LocalQueue{})
		if err != nil || !found || q.ClusterQueue != "acc-rbac-cq" {
			t.Fatalf("read %d of the LocalQueue without list: %+v found=%v err=%v", i, q, found, err)
		}
		lists := counter.take()["GET "+lqPath]
		if want := map[bool]int{true: 1, false: 0}[i == 0]; lists != want {
			t.Errorf("read %d tried the cluster-wide LIST %d times, want %d (a refused list is not tried again)", i, lists, want)
		}
	}
}

// A refresh of several team namespaces' network policies and the plan's
// check of the other policies there (Widenings) share one LIST of every
// NetworkPolicy: no request per namespace. The list holds others' policies
// too, and Observe still reads only the platform's.
func TestAccWideningsFromTheOneList(t *testing.T) {
	t.Parallel()
	e := acctest.Env(t)
	ctx := context.Background()
	admin, err := kube.New(e.REST, "widenings-test-admin")
	if err != nil {
		t.Fatal(err)
	}
	namespaces := []string{"acc-wl-0", "acc-wl-1", "acc-wl-2"}
	for _, ns := range namespaces {
		givenNamespace(t, ns)
		if _, err := reconcile.NewTrainingNetworkPolicies(admin).Update(ctx, reconcile.Ref{Namespace: ns}, spec.TrainingNetworkPolicy{}, spec.DefaultTrainingNetworkPolicy(ns)); err != nil {
			t.Fatal(err)
		}
	}
	wide := netpoltest.Widening(namespaces[1])["allow-everything"]
	if _, err := admin.Core.NetworkingV1().NetworkPolicies(wide.Namespace).Create(ctx, &wide, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}

	reader, counter := countedClient(t, e, "widenings-test-reader", nil)
	for _, ns := range namespaces {
		policies := reconcile.NewTrainingNetworkPolicies(reader)
		got, found, err := policies.Observe(ctx, reconcile.Ref{Namespace: ns}, spec.TrainingNetworkPolicy{})
		if err != nil || !found || len(got.Rendered) != 5 {
			t.Fatalf("observe %s: %v policies found=%v err=%v, want the platform's 5", ns, got.Rendered, found, err)
		}
		ws, err := policies.Widenings(ctx, spec.DefaultTrainingNetworkPolicy(ns))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{true: 1}[ns == wide.Namespace]; len(ws) != want || want == 1 && ws[0].Policy != wide.Name {
			t.Errorf("widenings of %s: %+v, want %d", ns, ws, want)
		}
	}
	if n := counter.take(); n["GET /apis/networking.k8s.io/v1/networkpolicies"] != 1 || len(n) != 1 {
		t.Errorf("reading and checking %d namespaces sent %v, want one LIST of every NetworkPolicy", len(namespaces), n)
	}
}
