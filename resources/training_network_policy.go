package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/netpol"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// TrainingNetworkPolicy is mlplatform_training_network_policy.
type TrainingNetworkPolicy struct {
	objectCRUD[trainingNetworkPolicyModel, spec.TrainingNetworkPolicy]
}

// NewTrainingNetworkPolicy is the resource constructor.
func NewTrainingNetworkPolicy() resource.Resource {
	return &TrainingNetworkPolicy{objectCRUD: objectCRUD[trainingNetworkPolicyModel, spec.TrainingNetworkPolicy]{
		resourceType: "mlplatform_training_network_policy",
		kind:         "Training NetworkPolicies",
		connect:      kubeReconciler[reconcile.Ref, spec.TrainingNetworkPolicy, spec.TrainingNetworkPolicy](reconcile.NewTrainingNetworkPolicies),
		toSpec:       trainingNetworkPolicyModel.toSpec,
		validate:     spec.TrainingNetworkPolicy.Validate,
		ref: func(m trainingNetworkPolicyModel) reconcile.Ref {
			return reconcile.Ref{Namespace: m.Namespace.ValueString()}
		},
		toState: specState(trainingNetworkPolicyState),
		known:   trainingNetworkPolicyModel.known,
		name:    func(ref reconcile.Ref) string { return ref.Namespace },
	}}
}

func (r *TrainingNetworkPolicy) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	ports := schema.ListAttribute{Optional: true, ElementType: types.Int64Type,
		MarkdownDescription: "Ports (1–65535); left out, every port."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Default-deny networking for a training namespace: NetworkPolicy objects, one per purpose " +
			"(`" + strings.Join(netpol.Names, "`, `") + "`), labelled `" + netpol.ManagedByLabel + ": " + netpol.ManagedBy + "`. " +
			"Everything in and out of the namespace's pods is denied except the holes configured here. Objects of a purpose " +
			"turned off are deleted; other NetworkPolicies in the namespace are left alone, and the plan warns of each one that lets the " +
			"namespace's pods do more than these holes. A policy deleted or edited out of band " +
			"shows in the plan (the purpose turned off, or a changed hash in `policies`) and apply restores it.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The namespace.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"namespace": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				MarkdownDescription: "The training namespace. Changing it moves the policies (replace)."},
			"allow_same_namespace": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Pods of the namespace reach each other on every port and protocol (rendezvous, NCCL, Gloo). Default `true`."},
			"dns": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Egress to DNS on TCP and UDP 53: the kube-dns pods (`k8s-app=kube-dns` in `kube-system`), NodeLocal " +
					"DNSCache `" + netpol.NodeLocalDNS + "` and the metadata server's resolver `" + netpol.MetadataServer + "` (Cloud DNS). Default `true`."},
			"metadata_server": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Egress to the metadata server (Workload Identity tokens): `" + netpol.MetadataServer + "` TCP 80 and 8080, " +
					"`" + netpol.MetadataServerV1 + "` TCP 987 and 988. Default `true`."},
			"google_apis": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("private"),
				// values checked by spec.TrainingNetworkPolicy.Validate
				MarkdownDescription: "Private Google Access VIPs reachable on TCP 443: `private` (`private.googleapis.com`, `" + netpol.PrivateGoogle + "` and `" + netpol.PrivateGoogleV6 + "`), " +
					"`restricted` (`restricted.googleapis.com`, `" + netpol.RestrictedGoogle + "` and `" + netpol.RestrictedGoogleV6 + "`, for VPC Service Controls), `both` or `none`. Default `private`."},
			"public_https_egress": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Egress to the internet on TCP 443 (model hubs): `0.0.0.0/0` except `" + strings.Join(netpol.PublicExcept, "`, `") +
					"`. Default `false`."},
			"extra_egress": schema.ListNestedAttribute{Optional: true,
				MarkdownDescription: "More egress holes, each to CIDRs on ports of one protocol.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"cidrs": schema.ListAttribute{Required: true, ElementType: types.StringType,
						MarkdownDescription: "Destination CIDRs, IPv4 or IPv6, e.g. `10.20.0.0/16` or `2001:db8::/32` (one address: `10.20.0.5/32`). At least one; for every destination write `0.0.0.0/0` and `::/0`."},
					"ports": ports,
					"protocol": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("TCP"),
						MarkdownDescription: "`TCP`, `UDP` or `SCTP`. Default `TCP`."}, // checked by the spec
				}}},
			"ingress_from_namespaces": schema.MapNestedAttribute{Optional: true,
				MarkdownDescription: "Ingress from every pod of other namespaces, keyed by namespace name (e.g. `monitoring` to scrape metrics), on TCP ports.",
				NestedObject:        schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{"ports": ports}}},
			"policies": schema.MapAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Name of each NetworkPolicy object → a hash of its spec as the server holds it. An object edited or deleted " +
					"out of band shows here as a change, and apply restores it."},
		},
	}
}

// ModifyPlan plans policies as the hashes of the objects the configuration
// renders, so an object changed out of band plans an update that restores it;
// and it warns of the namespace's other NetworkPolicies that widen its
// default deny (warnWidenings).
func (r *TrainingNetworkPolicy) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m trainingNetworkPolicyModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("policies"), m.plannedPolicies(ctx, &resp.Diagnostics))...)
	if !req.State.Raw.IsNull() {
		// Which policies are the resource's own: its recorded identities (read only).
		ctx = reconcile.WithLedger(ctx, loadLedger(ctx, req.Private, false, &resp.Diagnostics))
		r.warnWidenings(ctx, m, &resp.Diagnostics)
	}
}

// warnWidenings adds a warning per NetworkPolicy in the namespace that is
// not the platform's and lets its pods do more than the holes the plan
// declares, naming it and what it opens. Warnings are not changes: the
// plan stays as it is (terraform plan -detailed-exitcode exits 0 when
// nothing else changes), and apply never touches those policies.
//
// It runs for a resource in state only: its refresh has connected to the
// cluster already, so the check adds no connection (a create may be planned
// before the cluster exists), and the policies come from the LIST of every
// NetworkPolicy the refresh made (no request of its own). A configuration
// not fully known until apply is not checked.
func (r *TrainingNetworkPolicy) warnWidenings(ctx context.Context, m trainingNetworkPolicyModel, diags *diag.Diagnostics) {
	if r.clients == nil {
		return
	}
	if !m.configKnown(ctx) {
		return
	}
	var ignored diag.Diagnostics // a configuration that does not convert is reported by validation
	s := m.toSpec(ctx, &ignored)
	if ignored.HasError() {
		return
	}
	kc, err := r.clients.Kube(ctx)
	if err != nil {
		return // the refresh said why
	}
	ws, err := reconcile.NewTrainingNetworkPolicies(kc).Widenings(ctx, s)
	if err != nil {
		diagnostics.NotChecked(diags, s.Namespace, err)
		return
	}
	for _, w := range ws {
		diagnostics.Widened(diags, w)
	}
}

// ImportState imports by namespace: terraform import mlplatform_training_network_policy.x NAMESPACE.
func (r *TrainingNetworkPolicy) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if p := spec.DNSLabelProblem(req.ID); p != "" {
		resp.Diagnostics.AddError("Invalid Import ID",
			fmt.Sprintf("A training network policy is imported by its namespace (e.g. team-vision); %q is not a namespace name: %s.", req.ID, p))
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("namespace"), req.ID)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}
