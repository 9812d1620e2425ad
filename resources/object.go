package resources

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// deleteTimeout bounds the wait for a deleted object to disappear.
const deleteTimeout = 5 * time.Minute

// objectCRUD is the Create/Read/Update/Delete glue of a resource backed by
// one Kubernetes object: Terraform model M ⇄ spec S, reconciled by
// reconcile.Object. Resources embed it and keep only schema and conversions.
type objectCRUD[M any, S any, O metav1.Object, AC any] struct {
	kind       string
	clients    *platform.Clients
	reconciler func(*kube.Client) reconcile.Object[S, O, AC]
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
	afterApply func(context.Context, reconcile.Object[S, O, AC], M, S) error
}

func (c *objectCRUD[M, S, O, AC]) rec(ctx context.Context, diags *diag.Diagnostics) (reconcile.Object[S, O, AC], bool) {
	kc, err := c.clients.Kube(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To The Kubernetes Cluster", err)
		return reconcile.Object[S, O, AC]{}, false
	}
	return c.reconciler(kc), true
}

// apply makes the cluster match the plan and records what the server holds.
func (c *objectCRUD[M, S, O, AC]) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, diags *diag.Diagnostics) {
	var m M
	diags.Append(plan.Get(ctx, &m)...)
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
	r, ok := c.rec(ctx, diags)
	if !ok {
		return
	}
	ref := c.ref(m)
	got, err := r.Apply(ctx, ref, desired)
	if err != nil {
		diagnostics.Error(diags, "Could Not Apply "+c.kind+" "+ref.String(), err)
		return
	}
	diags.Append(state.Set(ctx, c.toState(ctx, got, m, diags))...)
	if c.afterApply != nil && !diags.HasError() {
		if err := c.afterApply(ctx, r, m, desired); err != nil {
			diagnostics.Error(diags, c.kind+" "+ref.String()+" Is Not Active", err)
		}
	}
}

// read refreshes state from the server, removing it when the object is gone.
func (c *objectCRUD[M, S, O, AC]) read(ctx context.Context, current tfsdk.State, state *tfsdk.State, diags *diag.Diagnostics) {
	var m M
	diags.Append(current.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	r, ok := c.rec(ctx, diags)
	if !ok {
		return
	}
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
	diags.Append(state.Set(ctx, c.toState(ctx, got, m, diags))...)
}

// delete deletes the object and waits until it is gone.
func (c *objectCRUD[M, S, O, AC]) delete(ctx context.Context, current tfsdk.State, diags *diag.Diagnostics) {
	var m M
	diags.Append(current.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	r, ok := c.rec(ctx, diags)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	ref := c.ref(m)
	if err := r.Delete(ctx, ref); err != nil {
		diagnostics.Error(diags, "Could Not Delete "+c.kind+" "+ref.String(), err)
	}
}
