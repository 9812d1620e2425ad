package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func TestAttributePath(t *testing.T) {
	t.Parallel()
	got := AttributePath(spec.Path{"resource_groups", 1, "flavors", spec.Key("h100"), "nominal_quota"})
	want := path.Root("resource_groups").AtListIndex(1).AtName("flavors").AtMapKey("h100").AtName("nominal_quota")
	if !got.Equal(want) {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "workloadpriorityclasses"}
	refused := &url.Error{Op: "Get", URL: "https://127.0.0.1:1/apis", Err: &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}}
	cases := map[string]struct {
		err  error
		want string // the plain-language part must contain this
	}{
		"unreachable apiserver": {fmt.Errorf("read WorkloadPriorityClass x: %w", refused), "could not be reached"},
		"unreachable named cluster": {&url.Error{Op: "Get", URL: "https://127.0.0.1:1/apis",
			Err: &kube.UnreachableError{Cluster: "worker-1", Host: "https://127.0.0.1:1", Err: refused.Err}},
			"The Kubernetes API server of cluster worker-1 (https://127.0.0.1:1) could not be reached"},
		"worker unreachable": {&reconcile.WorkerError{Name: "europe", Err: &kube.UnreachableError{Cluster: "train-eu", Host: "https://10.0.0.2", Err: refused.Err}},
			"cluster train-eu (https://10.0.0.2) could not be reached"},
		"forbidden": {apierrors.NewForbidden(gr, "x", errors.New("no RBAC")), "the provider's identity lacks permission for it. " +
			"The permissions the provider needs are written down in internal/rbac/provider-rbac.yaml"},
		"forbidden, RBAC names the permission": {fmt.Errorf("create ClusterQueue team-a: %w", apierrors.NewForbidden(
			schema.GroupResource{Group: "kueue.x-k8s.io", Resource: "clusterqueues"}, "team-a",
			errors.New(`User "mlplatform-provider" cannot create resource "clusterqueues" in API group "kueue.x-k8s.io" at the cluster scope`))),
			`The provider's identity may not create clusterqueues.kueue.x-k8s.io at the cluster scope. Grant it "create" on ` +
				`clusterqueues.kueue.x-k8s.io at the cluster scope. The permissions the provider needs are written down in ` +
				"internal/rbac/provider-rbac.yaml (`mlplatform permissions` prints it; README: Permissions the provider needs)"},
		"forbidden in a namespace, core group": {apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "worker-eu",
			errors.New(`User "p" cannot patch resource "secrets" in API group "" in the namespace "kueue-system"`)),
			`may not patch secrets (core API group) in namespace kueue-system. Grant it "patch"`},
		"forbidden in a worker": {&reconcile.WorkerError{Name: "eu", Worker: spec.Worker{Kubeconfig: "/w"}, Err: apierrors.NewForbidden(
			schema.GroupResource{Resource: "serviceaccounts/token"}, "mk", errors.New(`User "p" cannot create resource "serviceaccounts/token" in API group "" in the namespace "kueue-system"`))},
			`in MultiKueue worker kubeconfig /w may not create serviceaccounts/token (core API group) in namespace kueue-system. ` +
				"Grant it \"create\" on serviceaccounts/token (core API group) in namespace kueue-system. The permissions the provider needs " +
				"are written down in internal/rbac/worker-rbac.yaml (`mlplatform permissions --worker` prints it"},
		"worker role escalation": {&reconcile.WorkerError{Name: "eu", Worker: spec.Worker{Kubeconfig: "/w"}, Err: apierrors.NewForbidden(
			schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}, "mk",
			errors.New(`user "p" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["batch"], Resources:["jobs"], Verbs:["create"]}`))},
			"may not write a ClusterRole or binding that grants permissions it does not hold itself"},
		"webhook down": {apierrors.NewInternalError(errors.New(`failed calling webhook "vclusterqueue.kb.io": connection refused`)),
			"Kueue's admission webhook did not answer"},
		"invalid":           {apierrors.NewInvalid(schema.GroupKind{Group: "kueue.x-k8s.io", Kind: "ClusterQueue"}, "x", nil), "rejected the object as invalid"},
		"conflict":          {apierrors.NewConflict(gr, "x", errors.New("modified")), "Run the apply again"},
		"kind not served":   {apierrors.NewGenericServerResponse(404, "get", gr, "x", "", 0, true), "Install Kueue"},
		"no cluster":        {platform.ErrNoCluster, "does not know which cluster"},
		"grpc denied":       {status.Error(codes.PermissionDenied, "iam.serviceAccounts.getIamPolicy denied"), "lack the IAM permission"},
		"grpc invalid":      {status.Error(codes.InvalidArgument, "Identity Pool does not exist"), "rejected the request as invalid"},
		"anything else":     {errors.New("boom"), "the error below has the details"},
		"namespace missing": {fmt.Errorf("apply LocalQueue team-a/gpu: %w", apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "team-a")), "Create it first (mlplatform_team_namespace)"},
		"timed out":         {fmt.Errorf("namespace x still present after 5m0s; still left: pods: 3: %w", context.DeadlineExceeded), "did not finish in time"},
		"not owned":         {&reconcile.NotOwnedError{Kind: "Namespace", Name: "team-x"}, "left it unchanged. Delete or rename it if nothing needs it"},
		"holds data":        {&reconcile.HoldsDataError{Namespace: "team-x", PVCs: []string{"ckpt (1Ti)"}}, "set force_destroy = true"},
		"webhook, waited out": {&retry.Error{Waiting: "Kueue's webhook vclusterqueue.kb.io to answer", Waited: 3 * time.Minute, Attempts: 12,
			Err: apierrors.NewInternalError(errors.New(`failed calling webhook "vclusterqueue.kb.io": connection refused`))},
			"Kueue's admission webhook did not answer, so the API server could not admit the object. Check that the Kueue manager is running " +
				"and ready (kubectl -n kueue-system get pods). The provider waited 3m0s (retry_timeout) for Kueue's webhook vclusterqueue.kb.io to answer before it gave up."},
		"GKE, waited out": {&retry.Error{Waiting: "GKE to answer again (it answered UNAVAILABLE)", Waited: 90 * time.Second,
			Err: status.Error(codes.Unavailable, "The service is currently unavailable.")}, "could not be reached. Check the network (or, for the local sandbox, that it is running). The provider waited 1m30s"},
		"CRD not established": {&retry.Error{Waiting: "the CRD clusterqueues.kueue.x-k8s.io to be established", Waited: time.Minute,
			Err: fmt.Errorf("%w: clusterqueues.kueue.x-k8s.io exists", kube.ErrCRDNotEstablished)}, "has not established it"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := Explain(tc.err)
			plain, original, found := strings.Cut(got, "\n\nOriginal error: ")
			if !found {
				t.Fatalf("no original error section in %q", got)
			}
			if !strings.Contains(plain, tc.want) {
				t.Errorf("plain part %q does not contain %q", plain, tc.want)
			}
			if diff := cmp.Diff(tc.err.Error(), original); diff != "" {
				t.Errorf("original error not kept verbatim (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNotOwned(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 12, 1, 20, 33, 51, 0, time.UTC)
	cases := map[string]struct {
		err        *reconcile.NotOwnedError
		want, lack []string
	}{
		"someone else's": {err: &reconcile.NotOwnedError{Kind: "Namespace", Name: "team-x"},
			want: []string{"is not managed by mlplatform", "the existing object is unchanged", "terraform import ADDRESS team-x",
				`after "with"`, `import { to = ADDRESS, id = "team-x" }`, "Otherwise, choose another name.", "Original error: create: Namespace team-x already exists"},
			lack: []string{"do not import it"}},
		"another mlplatform resource's": {err: &reconcile.NotOwnedError{Kind: "Namespace", Name: "team-x", Marked: true, Created: created},
			want: []string{"mlplatform created it on 2026-12-01 20:33:51 UTC, but no state of this resource records it", "another Terraform configuration",
				"cut off before Terraform could save its state", "the existing object is unchanged", "terraform import ADDRESS team-x",
				"do not import it", "Instead, choose another name.", "Original error: create: Namespace team-x already exists: mlplatform created it"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var diags diag.Diagnostics
			NotOwned(&diags, "mlplatform_team_namespace", "team-x", "", fmt.Errorf("create: %w", tc.err))
			if len(diags) != 1 || diags[0].Summary() != "Namespace team-x Already Exists" {
				t.Fatalf("diagnostics %v, want one named after the object", diags)
			}
			for _, want := range tc.want {
				if !strings.Contains(diags[0].Detail(), want) {
					t.Errorf("detail lacks %q:\n%s", want, diags[0].Detail())
				}
			}
			for _, lack := range tc.lack {
				if strings.Contains(diags[0].Detail(), lack) {
					t.Errorf("detail says %q:\n%s", lack, diags[0].Detail())
				}
			}
		})
	}
}

func TestNotOwnedByUpdate(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	NotOwnedByUpdate(&diags, "set google_service_account instead", "mlplatform_workload_identity", "vision/trainer",
		&reconcile.NotOwnedError{Kind: reconcile.KindGSA, Name: "x@p.iam.gserviceaccount.com"})
	if len(diags) != 1 || diags[0].Summary() != "Google Service Account x@p.iam.gserviceaccount.com Is Not This Resource's" {
		t.Fatalf("diagnostics %v", diags)
	}
	for _, want := range []string{"not created by mlplatform", "so that destroy would delete it", "Nothing was written", "To go on, set google_service_account instead."} {
		if !strings.Contains(diags[0].Detail(), want) {
			t.Errorf("detail lacks %q:\n%s", want, diags[0].Detail())
		}
	}
	if strings.Contains(diags[0].Detail(), "terraform import") {
		t.Error("an update of a resource in state is told to import it")
	}
}

// An update that finds an object made again where the resource's was: the
// fact (both identities, who made it), that nothing was written, and how to
// take it or get rid of it.
func TestNotOwnedByUpdateReplaced(t *testing.T) {
	t.Parallel()
	var diags diag.Diagnostics
	NotOwnedByUpdate(&diags, "", "mlplatform_team_namespace", "team-x", &reconcile.NotOwnedError{Kind: "Namespace", Name: "team-x",
		Replaced: "UID a", Found: "UID b", Created: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	if len(diags) != 1 || diags[0].Summary() != "Namespace team-x Was Replaced Outside Terraform" {
		t.Fatalf("diagnostics %v", diags)
	}
	for _, want := range []string{"that one (UID a) was deleted", "the one there now (UID b)", "by someone else on 2026-12-01 00:00:00 UTC",
		"wrote nothing to it", "terraform state rm ADDRESS", "terraform import ADDRESS team-x"} {
		if !strings.Contains(diags[0].Detail(), want) {
			t.Errorf("detail lacks %q:\n%s", want, diags[0].Detail())
		}
	}
}

// Foreign objects a read or a delete found: a warning each, saying what
// the apply does (read) or that it was left (delete).
func TestForeign(t *testing.T) {
	t.Parallel()
	f := reconcile.Foreign{Kind: "Namespace", Name: "team-x", Recorded: "a", Found: "b", Marked: true}
	var diags diag.Diagnostics
	Foreign(&diags, f, "team-x")
	f.Left = true
	Foreign(&diags, f, "team-x")
	if len(diags) != 2 || diags.HasError() {
		t.Fatalf("diagnostics %v, want two warnings", diags)
	}
	if got := diags[0].Summary(); got != "Namespace team-x Was Replaced Outside Terraform" {
		t.Errorf("read summary %q", got)
	}
	if got := diags[1].Summary(); got != "Namespace team-x Left in Place" {
		t.Errorf("delete summary %q", got)
	}
	for i, want := range []string{"will not write to, take over or delete the object there now", "It was not deleted"} {
		if d := diags[i].Detail(); !strings.Contains(d, want) || !strings.Contains(d, "by mlplatform for another resource") {
			t.Errorf("detail %d lacks %q or who made it:\n%s", i, want, d)
		}
	}
}
