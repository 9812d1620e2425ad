package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/retry"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// AttributePath converts a spec path into a Terraform attribute path.
func AttributePath(p spec.Path) path.Path {
	var out path.Path
	for i, s := range p {
		switch v := s.(type) {
		case string:
			if i == 0 {
				out = path.Root(v)
			} else {
				out = out.AtName(v)
			}
		case int:
			out = out.AtListIndex(v)
		case spec.Key:
			out = out.AtMapKey(string(v))
		}
	}
	return out
}

// FieldErrors adds one attribute error per spec problem, its settings
// written as configuration (capacity = "reservation"). The detail names the
// attribute path too (Terraform shows only the source line, which for a list
// element does not say which one).
func FieldErrors(diags *diag.Diagnostics, errs spec.FieldErrors) {
	for _, e := range errs {
		diags.AddAttributeError(AttributePath(e.Path), e.Summary, "Attribute "+e.Path.String()+": "+e.DetailIn(hcl))
	}
}

// hcl writes the settings of spec errors as Terraform configuration:
// capacity = "reservation", { name = "x" }.
var hcl = spec.Notation{Assign: " = ", OpenObject: "{ ", CloseObject: " }", Ref: hclRef}

// hclRef is the expression that reads a value the configuration can take
// from elsewhere ("" when there is none to suggest).
func hclRef(r spec.Ref) string {
	if r == spec.ProjectNumberRef {
		return "data.google_project.this.number"
	}
	return ""
}

// Error adds an error diagnostic for a failed action ("Could not create
// WorkloadPriorityClass high"), explaining err in plain words.
func Error(diags *diag.Diagnostics, summary string, err error) {
	diags.AddError(summary, Explain(err))
}

// Explain says what err means for the person running Terraform, then
// quotes it.
func Explain(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("%s\n\nOriginal error: %v", plain(err), err)
}

// NotOwned reports a create that found an object this resource did not
// create: the fact, and the ways out. resourceType is the resource's type
// (e.g. mlplatform_team_namespace) and importID what `terraform import`
// takes for the object; otherwise, when set, is the other way out (default:
// choose another name). Nothing was written, so nothing is recorded in
// state.
func NotOwned(diags *diag.Diagnostics, resourceType, importID, otherwise string, err error) {
	var no *reconcile.NotOwnedError
	if !errors.As(err, &no) {
		Error(diags, "Could Not Create "+resourceType, err)
		return
	}
	if otherwise == "" {
		otherwise = "choose another name"
	}
	importIt := fmt.Sprintf("  terraform import ADDRESS %s\n\nwhere ADDRESS is this resource's address (Terraform shows it below, after \"with\"), "+
		"or with an import block: import { to = ADDRESS, id = %q }", importID, importID)
	stopped := "This create stopped before writing anything: the existing object is unchanged, and a later destroy of this configuration will not touch it."
	var detail string
	switch {
	case no.Marked:
		when := ""
		if !no.Created.IsZero() {
			when = " on " + no.Created.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		detail = fmt.Sprintf("%s %s already exists. mlplatform created it%s, but no state of this resource records it: another Terraform "+
			"configuration manages it (or another resource of this one: two resources declare the same object), or an apply that created "+
			"it was cut off before Terraform could save its state. %s\n\n"+
			"If it is this configuration's own (an interrupted apply), take it with an import:\n\n%s.\n\n"+
			"If another configuration or resource manages it, do not import it: both would then manage it, and destroying either would "+
			"delete it. Instead, %s.\n\nOriginal error: %v",
			no.Kind, no.Name, when, stopped, importIt, otherwise, err)
	default:
		detail = fmt.Sprintf("%s %s already exists and is not managed by mlplatform. %s\n\n"+
			"To manage it with this resource, import it:\n\n%s.\n\nThe next plan then shows exactly what apply would change. "+
			"Otherwise, %s.\n\nOriginal error: %v",
			no.Kind, no.Name, stopped, importIt, otherwise, err)
	}
	diags.AddError(titleCase(no.Kind)+" "+no.Name+" Already Exists", detail)
}

// NotOwnedByUpdate reports an update that would write over, or come to own,
// an object that is not this resource's: someone else made it (a KSA or
// Google service account the configuration now says to create, a
// platform-named network policy made by hand), or it was made again after
// the one this resource created was deleted. Nothing was written. way is
// what to do instead; importID, when set, is what `terraform import` takes
// to manage the object found.
func NotOwnedByUpdate(diags *diag.Diagnostics, way, resourceType, importID string, err error) {
	var no *reconcile.NotOwnedError
	if !errors.As(err, &no) {
		Error(diags, "Could Not Update", err)
		return
	}
	if no.Replaced != "" {
		diags.AddError(titleCase(no.Kind)+" "+no.Name+" Was Replaced Outside Terraform", fmt.Sprintf(
			"%s %s is not the object this resource created or imported: that one (%s) was deleted, and the one there now (%s) was made "+
				"in its place%s. This apply wrote nothing to it, and a destroy of this resource will not delete it. To manage the new "+
				"object here, remove this resource from the state and import it (terraform state rm ADDRESS, then terraform import "+
				"ADDRESS %s, where ADDRESS is this resource's address, shown below); otherwise delete the new object, and the next apply "+
				"creates this resource's again.\n\nOriginal error: %v",
			no.Kind, no.Name, no.Replaced, no.Found, madeBy(no.Marked, no.Created), importID, err))
		return
	}
	if way == "" {
		way = "delete or rename it if nothing needs it, or change the configuration so it does not need this object"
	}
	whose := "which exists and was not created by mlplatform"
	if no.Marked {
		whose = "which exists and was created by mlplatform for another resource (of this configuration or another)"
	}
	diags.AddError(titleCase(no.Kind)+" "+no.Name+" Is Not This Resource's", fmt.Sprintf(
		"This change would write over %s %s, %s, and make this resource its owner "+
			"(so that destroy would delete it). Nothing was written: the object is unchanged. To go on, %s.\n\nOriginal error: %v",
		no.Kind, no.Name, whose, way, err))
}

// madeBy says who made an object found where another was recorded.
func madeBy(marked bool, created time.Time) string {
	when := ""
	if !created.IsZero() {
		when = " on " + created.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if marked {
		return ", by mlplatform for another resource" + when
	}
	return ", by someone else" + when
}

// Foreign reports, as a warning, an object found where this resource's was
// recorded (reconcile.Foreign): on a read, that Terraform now plans as if
// this resource's object were gone, and what the apply will do; on a delete,
// that the object was left. importID is what `terraform import` takes for
// this resource.
func Foreign(diags *diag.Diagnostics, f reconcile.Foreign, importID string) {
	found := fmt.Sprintf("%s %s is not the object this resource created or imported: that one (%s) was deleted, and the one there now "+
		"(%s) was made in its place%s.", f.Kind, f.Name, f.Recorded, f.Found, madeBy(f.Marked, f.Created))
	if f.Left {
		diags.AddWarning(titleCase(f.Kind)+" "+f.Name+" Left in Place", found+" It was not deleted: destroy deletes only what this "+
			"resource created or imported. Delete it yourself if nothing needs it.")
		return
	}
	diags.AddWarning(titleCase(f.Kind)+" "+f.Name+" Was Replaced Outside Terraform", found+" Terraform now plans as if this "+
		"resource's object were gone, and shows what it would write. The apply will not write to, take over or delete the object there "+
		"now: it stops with an error naming it, and writes nothing to it. To manage the new object here, import it (terraform import "+
		"ADDRESS "+importID+", where ADDRESS is this resource's address, shown below, after a terraform state rm ADDRESS if the "+
		"resource is still in the state); otherwise delete it, and the apply creates this resource's object again.")
}

// titleCase upper-cases the first letter of each word but the small ones,
// for summaries.
func titleCase(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		if i > 0 && (w == "of" || w == "on" || w == "for") {
			continue
		}
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

func plain(err error) string {
	if text, ok := reconcilePlain(err); ok && !errors.As(err, new(*retry.Error)) {
		return text
	}
	var fe spec.FieldErrors
	var urlErr *url.Error
	var unreachable *kube.UnreachableError
	var netErr *net.OpError
	var waited *retry.Error
	switch {
	case errors.As(err, &waited):
		return plain(waited.Err) + fmt.Sprintf(" The provider waited %s (retry_timeout) for %s before it gave up.",
			waited.Waited.Round(time.Second), waited.Waiting)
	case errors.Is(err, kube.ErrCRDNotEstablished):
		return "A Kueue CRD exists, but the Kubernetes API server has not established it, so it does not serve that kind yet. " +
			"If Kueue is being installed, wait for it; otherwise see the CRD's conditions (kubectl get crd NAME -o yaml) for why."
	case errors.As(err, &fe):
		return "The configuration is not valid: " + fe.Describe(hcl)
	case errors.Is(err, reconcile.ErrHoldsData):
		return "Deleting this namespace would delete, with it, the volumes and unfinished work named below, so nothing was deleted " +
			"(a plan that would delete it stops before any deletion). Save what you need and delete them, or let the work finish; " +
			"or, to delete the namespace with everything in it, set force_destroy = true on it and apply that before destroying."
	case errors.Is(err, reconcile.ErrNotOwned):
		return "An object of that name exists and was not created by mlplatform, so the provider left it unchanged. " +
			"Delete or rename it if nothing needs it; to manage it with a resource of its own, import it (terraform import)."
	case errors.Is(err, reconcile.ErrStillListed):
		return "A MultiKueue check still lists this worker, so the provider did not delete its access (Kueue would go on dispatching " +
			"to a worker it can no longer reach). Remove the worker from that mlplatform_multikueue_check's clusters in the same apply, or before."
	case errors.Is(err, reconcile.ErrInUse):
		return "Kueue still uses this object, so the provider did not delete it (Kueue would only hold it in Terminating). " +
			"The details below name what uses it and what to do."
	case errors.Is(err, reconcile.ErrNotReady):
		return "Kueue did not report the object active in time. The reason, as Kueue reports it, is below; the object exists " +
			"and the next apply checks again once the cause is fixed."
	case errors.Is(err, platform.ErrNoCluster):
		return "The provider does not know which cluster to manage. Set kubeconfig (or KUBECONFIG), or project, location " +
			"and cluster in the provider block."
	case meta.IsNoMatchError(err) || (apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource")):
		return "The cluster does not serve this Kueue kind (kueue.x-k8s.io/v1beta2). Install Kueue v0.16 or later on the cluster first."
	case apierrors.IsNotFound(err) && strings.Contains(err.Error(), "namespaces"):
		return "The namespace this object belongs in does not exist. Create it first (mlplatform_team_namespace) and refer to " +
			"its name attribute, so Terraform creates the namespace before what goes in it."
	case errors.Is(err, context.DeadlineExceeded):
		return "The operation did not finish in time. The details below say what was still pending; once that is resolved, " +
			"run the apply again: it picks up where this one stopped."
	case errors.As(err, &unreachable):
		return fmt.Sprintf("The Kubernetes API server of cluster %s (%s) could not be reached. Check that the cluster is running and "+
			"that the provider configuration for it points at it (for the local sandbox: run `mlplatform sandbox up` and source the env file it prints).",
			unreachable.Cluster, unreachable.Host)
	case errors.As(err, &urlErr) || errors.As(err, &netErr):
		return "The Kubernetes API server could not be reached. Check that the cluster is running and that kubeconfig points at it " +
			"(for the local sandbox: run `mlplatform sandbox up` and source the env file it prints)."
	case apierrors.IsForbidden(err):
		return forbidden(err)
	case apierrors.IsUnauthorized(err):
		return "The Kubernetes API server did not accept the credentials. Refresh them (gcloud auth login, or a new kubeconfig)."
	case apierrors.IsInternalError(err) && strings.Contains(err.Error(), "failed calling webhook"):
		return "Kueue's admission webhook did not answer, so the API server could not admit the object. Check that the Kueue " +
			"manager is running and ready (kubectl -n kueue-system get pods)."
	case apierrors.IsInvalid(err) || apierrors.IsBadRequest(err):
		return "The Kubernetes API server (or Kueue's admission webhook) rejected the object as invalid. The reason is below; " +
			"fix the configuration accordingly."
	case apierrors.IsConflict(err):
		return "Another writer changed the object at the same time. Run the apply again."
	case apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err):
		return "The Kubernetes API server is overloaded or timed out. Run the apply again in a moment."
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.OK && st.Code() != codes.Unknown {
		return grpcPlain(st)
	}
	return "The operation failed; the error below has the details."
}

func grpcPlain(st *status.Status) string {
	switch st.Code() {
	case codes.Unavailable:
		return "The Google Cloud API could not be reached. Check the network (or, for the local sandbox, that it is running)."
	case codes.PermissionDenied:
		return "Google Cloud refused the request: the credentials in use lack the IAM permission it needs."
	case codes.Unauthenticated:
		return "Google Cloud did not accept the credentials. Run `gcloud auth application-default login`, or configure a credential."
	case codes.NotFound:
		return "Google Cloud says the object does not exist."
	case codes.InvalidArgument:
		return "Google Cloud rejected the request as invalid. The reason is below; fix the configuration accordingly."
	}
	return "Google Cloud returned " + st.Code().String() + "."
}

// The RBAC refusal of the API server's authorizer, as its message words it
// ("User "u" cannot create resource "clusterqueues" in API group
// "kueue.x-k8s.io" at the cluster scope"), and of its RBAC escalation check.
var (
	rbacRefusal = regexp.MustCompile(`cannot (\S+) resource "([^"]+)" in API group "([^"]*)"(?: in the namespace "([^"]+)")?`)
	escalation  = "is attempting to grant RBAC permissions not currently held"
)

// forbidden says which permission the provider's identity lacks, when the
// API server's error names it, and where the permissions the provider needs
// are written down: internal/rbac's manifests (README, "Permissions the
// provider needs"), the worker's for a MultiKueue worker.
func forbidden(err error) string {
	manifest, command := "internal/rbac/provider-rbac.yaml", "mlplatform permissions"
	where := ""
	var worker *reconcile.WorkerError
	if errors.As(err, &worker) {
		manifest, command, where = "internal/rbac/worker-rbac.yaml", "mlplatform permissions --worker", " in MultiKueue worker "+worker.Worker.String()
	}
	see := " The permissions the provider needs are written down in " + manifest + " (`" + command + "` prints it; README: " +
		"Permissions the provider needs): apply it and bind it to the identity the provider uses, or use credentials that have them."
	msg := err.Error()
	if strings.Contains(msg, escalation) {
		return "The provider's identity" + where + " may not write a ClusterRole or binding that grants permissions it does not hold itself " +
			"(Kubernetes refuses it unless the identity holds them, or has escalate on clusterroles and bind on the role). " +
			"Grant it the permissions listed below." + see
	}
	m := rbacRefusal.FindStringSubmatch(msg)
	if m == nil {
		return "The Kubernetes API server refused the request: the provider's identity" + where + " lacks permission for it." + see
	}
	verb, resource, group, ns := m[1], m[2], m[3], m[4]
	kind := resource
	if group != "" {
		kind += "." + group
	} else {
		kind += " (core API group)"
	}
	scope := " at the cluster scope"
	if ns != "" {
		scope = " in namespace " + ns
	}
	return fmt.Sprintf("The provider's identity%s may not %s %s%s. Grant it %q on %s%s.", where, verb, kind, scope, verb, kind, scope) + see
}
