package resources

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// LocalQueue is mlplatform_local_queue.
type LocalQueue struct {
	objectCRUD[localQueueModel, spec.LocalQueue]
}

// NewLocalQueue is the resource constructor.
func NewLocalQueue() resource.Resource {
	return &LocalQueue{objectCRUD: objectCRUD[localQueueModel, spec.LocalQueue]{
		resourceType: "mlplatform_local_queue",
		kind:         "LocalQueue",
		connect:      kubeReconciler[reconcile.Ref, spec.LocalQueue, spec.LocalQueue](reconcile.NewLocalQueues),
		toSpec:       func(m localQueueModel, _ context.Context, _ *diag.Diagnostics) spec.LocalQueue { return m.toSpec() },
		validate:     spec.LocalQueue.Validate,
		ref: func(m localQueueModel) reconcile.Ref {
			return reconcile.Ref{Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString()}
		},
		toState: specState(func(_ context.Context, s spec.LocalQueue, prior localQueueModel, _ *diag.Diagnostics) localQueueModel {
			return localQueueState(s, prior)
		}),
		known: localQueueModel.known,
		wait:  func(m localQueueModel) (bool, time.Duration) { return waitSettings(m.WaitForActive, m.ActiveTimeout) },
	}}
}

func (r *LocalQueue) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`namespace/name`.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"namespace": schema.StringAttribute{Required: true, PlanModifiers: replace,
			MarkdownDescription: "The team namespace the queue serves. Changing it replaces the queue."},
		"name": schema.StringAttribute{Required: true, PlanModifiers: replace,
			MarkdownDescription: "Queue name; jobs name it in the label `kueue.x-k8s.io/queue-name`. Changing it replaces the queue."},
		"cluster_queue": schema.StringAttribute{Required: true, PlanModifiers: replace,
			MarkdownDescription: "The ClusterQueue whose quota this queue draws on. Kueue makes it immutable, so changing it replaces the queue."},
		"stop_policy": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("None"),
			// The spec checks the value (LocalQueue.Validate); "" reads there as unset.
			Validators:          notEmpty("stop_policy", "leave stop_policy out for None, or write None, Hold or HoldAndDrain."),
			MarkdownDescription: "`None` (admit), `Hold` (admit nothing new) or `HoldAndDrain` (also evict what is admitted). Default `None`."},
	}
	for k, v := range waitAttributes("queue") {
		attrs[k] = v
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Kueue `LocalQueue` (kueue.x-k8s.io/v1beta2): a team namespace's entry point to a ClusterQueue. " +
			"Jobs submit to it with the label `kueue.x-k8s.io/queue-name: <name>`. After apply the provider waits until Kueue " +
			"reports the queue active, so a queue pointing at a missing or inactive ClusterQueue fails the apply with the reason.",
		Attributes: attrs,
	}
}

// ImportState imports by NAMESPACE/NAME.
func (r *LocalQueue) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, name, ok := strings.Cut(req.ID, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		resp.Diagnostics.AddError("Invalid Import ID",
			fmt.Sprintf("A local queue is imported as NAMESPACE/NAME (e.g. team-vision/gpu); got %q.", req.ID))
		return
	}
	for attr, v := range map[string]string{"id": req.ID, "namespace": ns, "name": name} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}
	for attr, v := range waitDefaults() {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(attr), v)...)
	}
}
