package resources

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// deleteTimeout bounds a delete (and the wait for the object to disappear)
// of a resource without a timeouts block.
const deleteTimeout = 5 * time.Minute

// Operations a timeout is asked for.
const (
	opCreate = "create"
	opRead   = "read"
	opUpdate = "update"
	opDelete = "delete"
)

// crud is the one Create/Read/Update/Delete path of every resource:
// Terraform model M ⇄ spec S, reconciled at R by a reconcile.Reconciler
// whose server view is O. Resources embed it (it provides Configure, Create,
// Read, Update and Delete) and keep schema, validation, plan modification,
// import and conversions; the hooks below are only what the Terraform side
// of a kind needs.
type crud[M, R, S, O any] struct {
	clients *platform.Clients

	// kind names the resource in summaries ("ClusterQueue", "GPU Pool").
	kind string
	// resourceType is the resource's type name (mlplatform_...), for the
	// import hint when a create finds someone else's object.
	resourceType string
	// connect builds the reconciler; forApply is set for create and update.
	// It reports a failure in diags.
	connect func(ctx context.Context, c *platform.Clients, forApply bool, diags *diag.Diagnostics) (reconcile.Reconciler[R, S, O], bool)
	// toSpec converts a plan, a state or a config into a spec (a model's
	// toSpec method, as a method expression).
	toSpec func(M, context.Context, *diag.Diagnostics) S
	// validate is the spec's Validate.
	validate func(S) spec.FieldErrors
	// ref names what a model addresses.
	ref func(M) R
	// name, when set, is how summaries and the import hint name the object
	// at ref (default fmt.Sprint(ref)).
	name func(R) string
	// importID, when set, is the import ID of the object at ref (default
	// name).
	importID func(R) string
	// toState converts what the server holds into state. s is the spec the
	// write applied, or the one the state holds (on read); prior is the plan
	// or the previous state (to keep an empty list empty rather than null).
	toState func(ctx context.Context, got O, s S, prior M, diags *diag.Diagnostics) M
	// known reports which attributes of a configuration are known at plan
	// time (a model's known method): ValidateConfig checks only those.
	known func(M, context.Context) map[string]bool
	// unknownAtPlan, when set, stands in for values of the configuration
	// that are unknown at plan time, so rules that depend on them are checked
	// as they will be (e.g. a cohort to be named later).
	unknownAtPlan func(M, *S)
	// readHint, when set, reports that Observe needs the state's spec as its
	// hint (GKE defaults, the Google service account a binding names);
	// otherwise the state is not converted on read.
	readHint bool
	// timeout, when set, is the time an operation may take (the resource's
	// timeouts block); default none, and deleteTimeout for delete.
	timeout func(ctx context.Context, m M, op string) (time.Duration, diag.Diagnostics)
	// wait, when set, says whether to wait for the object to become ready
	// after create and update, and for how long.
	wait func(M) (bool, time.Duration)
	// completeRead, when set, runs before a read with the reconciler, e.g.
	// to fill in an imported resource's settings; false stops the read.
	completeRead func(ctx context.Context, r reconcile.Reconciler[R, S, O], m *M, diags *diag.Diagnostics) bool
	// notOwnedAdvice, when set, is the way out, other than import, when a
	// write finds a part someone else made.
	notOwnedAdvice func(S, *reconcile.NotOwnedError) string
	// explain, when set, reports a failed write, read or delete (default
	// diagnostics.Error).
	explain func(diags *diag.Diagnostics, summary string, err error)
	// createUpdateVerbs makes summaries say "Create" and "Update" rather than
	// "Apply" for both.
	createUpdateVerbs bool
	// warningSummary is the summary of the reconciler's warnings.
	warningSummary string
}

// kubeReconciler adapts the constructor of a reconciler that needs only the
// Kubernetes client.
func kubeReconciler[R, S, O any, T reconcile.Reconciler[R, S, O]](f func(*kube.Client) T) func(context.Context, *platform.Clients, bool, *diag.Diagnostics) (reconcile.Reconciler[R, S, O], bool) {
	return func(ctx context.Context, c *platform.Clients, _ bool, diags *diag.Diagnostics) (reconcile.Reconciler[R, S, O], bool) {
		kc, ok := connectKube(ctx, c, diags)
		if !ok {
			return nil, false
		}
		return f(kc), true
	}
}

// connectKube is the Kubernetes client, or a diagnostic.
func connectKube(ctx context.Context, c *platform.Clients, diags *diag.Diagnostics) (*kube.Client, bool) {
	if c == nil {
		notConfigured(diags)
		return nil, false
	}
	kc, err := c.Kube(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To The Kubernetes Cluster", err)
		return nil, false
	}
	return kc, true
}

func notConfigured(diags *diag.Diagnostics) {
	diags.AddError("Provider Not Configured",
		"The mlplatform provider was not configured before this resource was used. This is a bug in the provider; please report it.")
}

func (c *crud[M, R, S, O]) title(ref R) string {
	if c.name != nil {
		return c.kind + " " + c.name(ref)
	}
	return fmt.Sprint(c.kind, " ", ref)
}

func (c *crud[M, R, S, O]) fail(diags *diag.Diagnostics, summary string, err error) {
	if c.explain != nil {
		c.explain(diags, summary, err)
		return
	}
	diagnostics.Error(diags, summary, err)
}

// bounded applies the operation's timeout to ctx.
func (c *crud[M, R, S, O]) bounded(ctx context.Context, m M, op string, diags *diag.Diagnostics) (context.Context, context.CancelFunc) {
	d := time.Duration(0)
	if c.timeout != nil {
		var ds diag.Diagnostics
		d, ds = c.timeout(ctx, m, op)
		diags.Append(ds...)
	} else if op == opDelete {
		d = deleteTimeout
	}
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// desired converts and validates a model.
func (c *crud[M, R, S, O]) desired(ctx context.Context, m M, diags *diag.Diagnostics) S {
	s := c.toSpec(m, ctx, diags)
	if diags.HasError() {
		return s
	}
	if errs := c.validate(s); len(errs) > 0 {
		diagnostics.FieldErrors(diags, errs)
	}
	return s
}

// write makes the server match the plan and records what it then holds:
// with the reconciler's Create when prior is nil, its Update otherwise. A
// failed write records nothing (an update keeps the prior state, which the
// response starts with) unless the reconciler says it wrote part of it.
// private holds the identities of the objects the resource instance
// recorded (identities.go): empty for a create, the prior ones for an
// update; the write records what it created or took over there.
func (c *crud[M, R, S, O]) write(ctx context.Context, plan tfsdk.Plan, prior *tfsdk.State, state *tfsdk.State, private privateData, diags *diag.Diagnostics) {
	creating := prior == nil
	var m M
	diags.Append(getModel(ctx, plan, &m)...)
	if diags.HasError() {
		return
	}
	desired := c.desired(ctx, m, diags)
	var before S
	if !creating {
		var p M
		diags.Append(getModel(ctx, *prior, &p)...)
		before = c.toSpec(p, ctx, diags)
	}
	op, verb := opUpdate, "Apply"
	if creating {
		op = opCreate
	}
	if c.createUpdateVerbs {
		verb = map[string]string{opCreate: "Create", opUpdate: "Update"}[op]
	}
	ctx, cancel := c.bounded(ctx, m, op, diags)
	defer cancel()
	if diags.HasError() {
		return
	}
	r, ok := c.connect(ctx, c.clients, true, diags)
	if !ok {
		return
	}
	ref := c.ref(m)
	ledger := loadLedger(ctx, private, creating, diags)
	ctx = reconcile.WithLedger(ctx, ledger)
	defer saveLedger(ctx, private, ledger, diags)
	var res reconcile.Result[O]
	var err error
	if creating {
		res, err = r.Create(ctx, ref, desired)
	} else {
		res, err = r.Update(ctx, ref, before, desired)
	}
	for _, w := range res.Warnings {
		diags.AddWarning(c.warningSummary, w)
	}
	var notOwned *reconcile.NotOwnedError
	switch {
	case errors.As(err, &notOwned):
		advice := ""
		if c.notOwnedAdvice != nil {
			advice = c.notOwnedAdvice(desired, notOwned)
		}
		if creating {
			diagnostics.NotOwned(diags, c.resourceType, c.idOf(ref), advice, err)
		} else {
			diagnostics.NotOwnedByUpdate(diags, advice, c.resourceType, c.idOf(ref), err)
		}
		return // nothing was written, so nothing is recorded
	case err != nil:
		c.fail(diags, "Could Not "+verb+" "+c.title(ref), err)
		if res.Partial {
			// Something was written: record it, so Terraform marks the
			// resource tainted and the next apply starts from what is there.
			diags.Append(setState(ctx, state, c.toState(ctx, res.Observed, desired, m, diags))...)
		}
		return
	}
	diags.Append(setState(ctx, state, c.toState(ctx, res.Observed, desired, m, diags))...)
	if c.wait == nil || diags.HasError() {
		return
	}
	if wait, timeout := c.wait(m); wait {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		// An error leaves the recorded state in place, so nothing is
		// orphaned and the next apply checks again.
		if err := r.WaitReady(wctx, ref, desired); err != nil {
			diagnostics.Error(diags, c.title(ref)+" Is Not Active", err)
		}
	}
}

func (c *crud[M, R, S, O]) idOf(ref R) string {
	switch {
	case c.importID != nil:
		return c.importID(ref)
	case c.name != nil:
		return c.name(ref)
	}
	return fmt.Sprint(ref)
}

// read refreshes state from the server, removing it when the object is gone,
// or is not the one the resource instance recorded (deleted and made again
// by someone: a warning says so, and what the apply will do).
func (c *crud[M, R, S, O]) read(ctx context.Context, current tfsdk.State, state *tfsdk.State, private privateData, diags *diag.Diagnostics) {
	var m M
	diags.Append(getModel(ctx, current, &m)...)
	if diags.HasError() {
		return
	}
	ctx, cancel := c.bounded(ctx, m, opRead, diags)
	defer cancel()
	r, ok := c.connect(ctx, c.clients, false, diags)
	if !ok {
		return
	}
	if c.completeRead != nil && !c.completeRead(ctx, r, &m, diags) {
		return
	}
	var hint S
	if c.readHint {
		var ignored diag.Diagnostics // a state that no longer converts cleanly still reads
		hint = c.toSpec(m, ctx, &ignored)
	}
	ref := c.ref(m)
	ledger := loadLedger(ctx, private, false, diags)
	ctx = reconcile.WithLedger(ctx, ledger)
	defer saveLedger(ctx, private, ledger, diags)
	defer c.foreign(ledger, ref, diags)
	got, found, err := r.Observe(ctx, ref, hint)
	if err != nil {
		c.fail(diags, "Could Not Read "+c.title(ref), err)
		return
	}
	if !found {
		state.RemoveResource(ctx)
		return
	}
	next := c.toState(ctx, got, hint, m, diags)
	missing := ledger.Missing()
	if modelUnchanged(next, m) && len(missing) == 0 {
		return // the response already holds the current state
	}
	diags.Append(setState(ctx, state, next)...)
	if len(missing) > 0 {
		// Part of the resource is gone: id reads null until the apply
		// that ModifyPlan plans (repairPlan) writes it again.
		diags.Append(state.SetAttribute(ctx, path.Root("id"), types.StringNull())...)
		diags.AddWarning(c.title(ref)+" Is Incomplete", strings.Join(missing, " and ")+", part of this resource, is missing "+
			"(deleted outside Terraform). The plan updates the resource (id is known after apply), and the apply creates it again.")
	}
}

// ModifyPlan plans an update of a resource that a refresh found
// incomplete (repairPlan).
func (c *crud[M, R, S, O]) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	repairPlan(ctx, req, resp)
}

// repairPlan plans an update (id known after apply) of a resource whose
// state has no id: a refresh found part of it missing (read), and the apply
// writes it again. Resources with a ModifyPlan of their own call it.
func repairPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.State.Raw.IsNull() || req.Plan.Raw.IsNull() {
		return
	}
	var id types.String
	if d := req.State.GetAttribute(ctx, path.Root("id"), &id); d.HasError() || !id.IsNull() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), types.StringUnknown())...)
}

// delete deletes the object and waits until it is gone. What is not the
// resource instance's (not the object it recorded) is left, with a warning.
func (c *crud[M, R, S, O]) delete(ctx context.Context, current tfsdk.State, private privateData, diags *diag.Diagnostics) {
	var m M
	diags.Append(getModel(ctx, current, &m)...)
	if diags.HasError() {
		return
	}
	ctx, cancel := c.bounded(ctx, m, opDelete, diags)
	defer cancel()
	if diags.HasError() {
		return
	}
	r, ok := c.connect(ctx, c.clients, false, diags)
	if !ok {
		return
	}
	ref := c.ref(m)
	ledger := loadLedger(ctx, private, false, diags)
	ctx = reconcile.WithLedger(ctx, ledger)
	defer c.foreign(ledger, ref, diags)
	var ignored diag.Diagnostics
	if err := r.Delete(ctx, ref, c.toSpec(m, ctx, &ignored)); err != nil {
		c.fail(diags, "Could Not Delete "+c.title(ref), err)
	}
}

// ValidateConfig checks a configuration against the spec's rules, each
// mistake at its attribute path, skipping attributes not known until apply.
func (c *crud[M, R, S, O]) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m M
	resp.Diagnostics.Append(getModel(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	s := c.toSpec(m, ctx, &resp.Diagnostics)
	if c.unknownAtPlan != nil {
		c.unknownAtPlan(m, &s)
	}
	addSpecErrors(&resp.Diagnostics, c.validate(s), c.known(m, ctx))
}

// Metadata names the resource: the provider's type name and the part of
// resourceType after it (mlplatform_cohort → PROVIDER_cohort).
func (c *crud[M, R, S, O]) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + c.resourceType[strings.Index(c.resourceType, "_"):]
}

func (c *crud[M, R, S, O]) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c.clients = clientsFrom(req.ProviderData, &resp.Diagnostics)
}

func (c *crud[M, R, S, O]) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c.write(ctx, req.Plan, nil, &resp.State, resp.Private, &resp.Diagnostics)
}

func (c *crud[M, R, S, O]) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	c.write(ctx, req.Plan, &req.State, &resp.State, resp.Private, &resp.Diagnostics)
}

func (c *crud[M, R, S, O]) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c.read(ctx, req.State, &resp.State, resp.Private, &resp.Diagnostics)
}

func (c *crud[M, R, S, O]) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c.delete(ctx, req.State, req.Private, &resp.Diagnostics)
}

// foreign warns of what the operation found, at a name the resource
// instance manages, that is not the object it recorded.
func (c *crud[M, R, S, O]) foreign(l *reconcile.Ledger, ref R, diags *diag.Diagnostics) {
	for _, f := range l.Foreign() {
		diagnostics.Foreign(diags, f, c.idOf(ref))
	}
}

// objectCRUD is crud for a kind whose server view is its spec, named by a
// reconcile.Ref.
type objectCRUD[M, S any] = crud[M, reconcile.Ref, S, S]

// specState adapts a state conversion that needs only what the server holds.
func specState[M, S any](f func(context.Context, S, M, *diag.Diagnostics) M) func(context.Context, S, S, M, *diag.Diagnostics) M {
	return func(ctx context.Context, got, _ S, prior M, diags *diag.Diagnostics) M {
		return f(ctx, got, prior, diags)
	}
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
