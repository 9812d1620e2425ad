package resources

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// deleteTimeout bounds the wait for a deleted object to disappear.
const deleteTimeout = 5 * time.Minute

// specReconciler is what the CRUD glue needs of a reconciler. A
// reconcile.Object satisfies it, and so does a reconciler that composes
// several objects into one spec (reconcile.ProvisioningAdmissionChecks).
// Create fails with a *reconcile.NotOwnedError, before any write, when the
// object exists and the platform did not create it; Apply updates an object
// the resource manages (created or imported).
type specReconciler[S any] interface {
	Observe(ctx context.Context, ref reconcile.Ref) (S, bool, error)
	Create(ctx context.Context, ref reconcile.Ref, desired S) (S, error)
	Apply(ctx context.Context, ref reconcile.Ref, desired S) (S, error)
	Delete(ctx context.Context, ref reconcile.Ref) error
}

// reconcilerOf adapts a constructor of a concrete reconciler.
func reconcilerOf[S any, R specReconciler[S]](f func(*kube.Client) R) func(*kube.Client) specReconciler[S] {
	return func(c *kube.Client) specReconciler[S] { return f(c) }
}

// objectCRUD is the Create/Read/Update/Delete glue of a resource backed by
// Kubernetes objects: Terraform model M ⇄ spec S, reconciled by a
// specReconciler. Resources embed it (it provides Configure, Create, Read,
// Update and Delete) and keep only schema, validation, import and conversions.
type objectCRUD[M any, S any] struct {
	kind string
	// resourceType is the resource's type name (mlplatform_...), for the
	// import hint when a create finds someone else's object.
	resourceType string
	// importID, when set, is the import ID of the object at ref (default
	// ref.String(), which is NAME or NAMESPACE/NAME).
	importID   func(reconcile.Ref) string
	clients    *platform.Clients
	reconciler func(*kube.Client) specReconciler[S]
	// toSpec converts a plan (or config) into the desired spec.
	toSpec func(context.Context, M, *diag.Diagnostics) S
	// validate is the spec's Validate.
	validate func(S) spec.FieldErrors
	// ref names the object a model addresses.
	ref func(M) reconcile.Ref
	// toState converts what the server holds into state; prior is the plan or
	// the previous state (to keep an empty list empty rather than null).
	toState func(context.Context, S, M, *diag.Diagnostics) M
	// afterApply, when set, runs once the object is applied and its state
	// recorded, e.g. to wait until the controller reports it active. An error
	// leaves the recorded state in place, so nothing is orphaned and the next
	// apply repairs it.
	afterApply func(context.Context, *kube.Client, M, S) error
	// beforeDelete, when set, runs before the delete; an error refuses it
	// (nothing is deleted), e.g. a namespace that still holds data.
	beforeDelete func(context.Context, *kube.Client, M) error
}

func (c *objectCRUD[M, S]) kube(ctx context.Context, diags *diag.Diagnostics) (*kube.Client, bool) {
	kc, err := c.clients.Kube(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To The Kubernetes Cluster", err)
		return nil, false
	}
	return kc, true
}

// apply makes the cluster match the plan and records what the server holds:
// with the reconciler's Create on create, its Apply on update.
func (c *objectCRUD[M, S]) apply(ctx context.Context, creating bool, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var m M
	diags.Append(getModel(ctx, plan, &m)...)
	if diags.HasError() {
		return
	}
	desired := c.toSpec(ctx, m, diags)
	if diags.HasError() {
		return
	}
	if errs := c.validate(desired); len(errs) > 0 {
		diagnostics.FieldErrors(diags, errs)
		return
	}
	kc, ok := c.kube(ctx, diags)
	if !ok {
		return
	}
	r := c.reconciler(kc)
	ref := c.ref(m)
	write := r.Apply
	if creating {
		write = r.Create
	}
	got, err := write(ctx, ref, desired)
	switch {
	case errors.Is(err, reconcile.ErrNotOwned) && creating:
		id := ref.String()
		if c.importID != nil {
			id = c.importID(ref)
		}
		diagnostics.NotOwned(diags, c.resourceType, id, "", err)
		return
	case errors.Is(err, reconcile.ErrNotOwned):
		diagnostics.NotOwnedByUpdate(diags, "", err)
		return
	}
	if err != nil {
		diagnostics.Error(diags, "Could Not Apply "+c.kind+" "+ref.String(), err)
		return
	}
	diags.Append(setState(ctx, state, c.toState(ctx, got, m, diags))...)
	if c.afterApply != nil && !diags.HasError() {
		if err := c.afterApply(ctx, kc, m, desired); err != nil {
			diagnostics.Error(diags, c.kind+" "+ref.String()+" Is Not Active", err)
		}
	}
}

// read refreshes state from the server, removing it when the object is gone.
func (c *objectCRUD[M, S]) read(ctx context.Context, current tfsdk.State, state *tfsdk.State, diags *diag.Diagnostics) {
	var m M
	diags.Append(getModel(ctx, current, &m)...)
	if diags.HasError() {
		return
	}
	kc, ok := c.kube(ctx, diags)
	if !ok {
		return
	}
	r := c.reconciler(kc)
	ref := c.ref(m)
	got, found, err := r.Observe(ctx, ref)
	if err != nil {
		diagnostics.Error(diags, "Could Not Read "+c.kind+" "+ref.String(), err)
		return
	}
	if !found {
		state.RemoveResource(ctx)
		return
	}
	next := c.toState(ctx, got, m, diags)
	if reflect.DeepEqual(next, m) {
		// Nothing changed: the response already holds the current state, so
		// skip converting the model back (reflection and a walk of every
		// value; most of a refresh's CPU when nothing drifted). Any
		// difference, drift included, is written below.
		return
	}
	diags.Append(setState(ctx, state, next)...)
}

// delete deletes the object and waits until it is gone.
func (c *objectCRUD[M, S]) delete(ctx context.Context, current tfsdk.State, diags *diag.Diagnostics) {
	var m M
	diags.Append(getModel(ctx, current, &m)...)
	if diags.HasError() {
		return
	}
	kc, ok := c.kube(ctx, diags)
	if !ok {
		return
	}
	r := c.reconciler(kc)
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	ref := c.ref(m)
	if c.beforeDelete != nil {
		if err := c.beforeDelete(ctx, kc, m); err != nil {
			diagnostics.Error(diags, "Could Not Delete "+c.kind+" "+ref.String(), err)
			return
		}
	}
	if err := r.Delete(ctx, ref); err != nil {
		diagnostics.Error(diags, "Could Not Delete "+c.kind+" "+ref.String(), err)
	}
}

func (c *objectCRUD[M, S]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c.clients = clientsFrom(req.ProviderData, &resp.Diagnostics)
}

func (c *objectCRUD[M, S]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c.apply(ctx, true, req.Plan, &resp.State, &resp.Diagnostics)
}

func (c *objectCRUD[M, S]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	c.apply(ctx, false, req.Plan, &resp.State, &resp.Diagnostics)
}

func (c *objectCRUD[M, S]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c.read(ctx, req.State, &resp.State, &resp.Diagnostics)
}

func (c *objectCRUD[M, S]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c.delete(ctx, req.State, &resp.Diagnostics)
}

// importByName is ImportState for a resource whose id is its name. extra sets
// attributes the server does not keep (e.g. wait settings) to their defaults.
func importByName(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse, extra map[string]attr.Value) {
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
	for name, v := range extra {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}
