package resources

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/kube"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// MultiKueueCluster is mlplatform_multikueue_cluster.
type MultiKueueCluster struct {
	crud[multiKueueClusterModel, reconcile.Ref, spec.MultiKueueCluster, reconcile.MultiKueueClusterObserved]
	now func() time.Time
}

type multiKueueClusterModel struct {
	ID                   types.String `tfsdk:"id"`
	Name                 types.String `tfsdk:"name"`
	Worker               types.Object `tfsdk:"worker"`
	WorkerServiceAccount types.String `tfsdk:"worker_service_account"`
	Frameworks           types.List   `tfsdk:"frameworks"`
	TokenValidity        types.String `tfsdk:"token_validity"`
	RotateBefore         types.String `tfsdk:"rotate_before"`
	KubeconfigSecret     types.Object `tfsdk:"kubeconfig_secret"`
	WorkerEndpoint       types.String `tfsdk:"worker_endpoint"`
	WorkerAccess         types.String `tfsdk:"worker_access"`
	WaitForActive        types.Bool   `tfsdk:"wait_for_active"`
	ActiveTimeout        types.String `tfsdk:"active_timeout"`
}

type workerModel struct {
	GKECluster  types.Object `tfsdk:"gke_cluster"`
	Kubeconfig  types.String `tfsdk:"kubeconfig"`
	KubeContext types.String `tfsdk:"kube_context"`
}

type gkeClusterModel struct {
	Project  types.String `tfsdk:"project"`
	Location types.String `tfsdk:"location"`
	Name     types.String `tfsdk:"name"`
}

type kubeconfigSecretModel struct {
	Name           types.String `tfsdk:"name"`
	SHA256         types.String `tfsdk:"sha256"`
	TokenExpiresAt types.String `tfsdk:"token_expires_at"`
}

var kubeconfigSecretType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"name": types.StringType, "sha256": types.StringType, "token_expires_at": types.StringType,
}}

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// NewMultiKueueCluster is the resource constructor.
func NewMultiKueueCluster() resource.Resource {
	r := &MultiKueueCluster{now: time.Now}
	r.crud = crud[multiKueueClusterModel, reconcile.Ref, spec.MultiKueueCluster, reconcile.MultiKueueClusterObserved]{
		resourceType: "mlplatform_multikueue_cluster",
		kind:         "MultiKueue Worker",
		connect:      connectMultiKueueClusters,
		toSpec:       multiKueueClusterModel.toSpec,
		validate:     spec.MultiKueueCluster.Validate,
		ref:          func(m multiKueueClusterModel) reconcile.Ref { return reconcile.Ref{Name: m.Name.ValueString()} },
		name:         func(r reconcile.Ref) string { return r.Name },
		toState:      multiKueueClusterState,
		known:        multiKueueClusterModel.known,
		readHint:     true,
		wait: func(m multiKueueClusterModel) (bool, time.Duration) {
			return waitSettings(m.WaitForActive, m.ActiveTimeout)
		},
		createUpdateVerbs: true,
		warningSummary:    "MultiKueue Worker",
	}
	return r
}

func connectMultiKueueClusters(ctx context.Context, c *platform.Clients, _ bool, diags *diag.Diagnostics) (reconcile.Reconciler[reconcile.Ref, spec.MultiKueueCluster, reconcile.MultiKueueClusterObserved], bool) {
	kc, ok := connectKube(ctx, c, diags)
	if !ok {
		return nil, false
	}
	worker := func(ctx context.Context, w spec.Worker) (*kube.Client, kube.Endpoint, error) {
		if w.GKE != nil && w.GKE.Project == "" {
			g := *w.GKE
			g.Project = c.Config.Project
			w.GKE = &g
		}
		return c.Worker(ctx, w)
	}
	return reconcile.MultiKueueClusters{Manager: kc, Worker: worker}, true
}

func (r *MultiKueueCluster) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	durations := []validator.String{durationValidator{}}
	attrs := map[string]schema.Attribute{
		"id": schema.StringAttribute{Computed: true, MarkdownDescription: "The worker's name.",
			PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
		"name": schema.StringAttribute{Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			MarkdownDescription: "Name of the worker as the manager knows it: the `MultiKueueCluster`, listed in `mlplatform_multikueue_check.clusters`, " +
				"and shown in each dispatched Workload's status. The kubeconfig Secret is `NAME-kubeconfig` in `kueue-system`. " +
				"Lower-case letters, digits and `-`, at most 52 characters. Changing it replaces the worker's access."},
		"worker": schema.SingleNestedAttribute{Required: true,
			MarkdownDescription: "The worker cluster, as this provider reaches it to create the manager's access there: either `gke_cluster` " +
				"(endpoint and CA from the GKE API, with the provider's Google identity, as for its own cluster) or `kubeconfig` and `kube_context`. " +
				"The kubeconfig written for Kueue names the same API server: it must be reachable from the manager cluster. " +
				"Changing it points the manager at the new worker with a new token (an update, not a replacement).",
			Attributes: map[string]schema.Attribute{
				"gke_cluster": schema.SingleNestedAttribute{Optional: true,
					MarkdownDescription: "A GKE cluster: `project` (default the provider's), `location` and `name`.",
					Attributes: map[string]schema.Attribute{
						"project":  schema.StringAttribute{Optional: true, Computed: true, MarkdownDescription: "Project; default the provider's `project`."},
						"location": schema.StringAttribute{Required: true, MarkdownDescription: "Region or zone, e.g. `europe-west4`."},
						"name":     schema.StringAttribute{Required: true, MarkdownDescription: "Cluster name."},
					}},
				"kubeconfig":   schema.StringAttribute{Optional: true, MarkdownDescription: "Path to a kubeconfig file (or a list, as in `KUBECONFIG`) for any other cluster."},
				"kube_context": schema.StringAttribute{Optional: true, MarkdownDescription: "Context in `kubeconfig`; default its current context."},
			}},
		"worker_service_account": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(spec.DefaultWorkerServiceAccount),
			MarkdownDescription: "Name of the service account the manager acts as in the worker (in `kueue-system`), and of its ClusterRole " +
				"and ClusterRoleBinding: the rules MultiKueue documents for workers, for each kind in `frameworks` and for Workloads. Default `" +
				spec.DefaultWorkerServiceAccount + "`; give each manager its own when one worker serves several."},
		"frameworks": schema.ListAttribute{Optional: true, Computed: true, ElementType: types.StringType,
			Default: listdefault.StaticValue(types.ListValueMust(types.StringType, stringValues(spec.DefaultKueueConfiguration().Frameworks))),
			MarkdownDescription: "The Kueue integrations the manager dispatches to this worker: the manager's `integrations.frameworks` " +
				"(`data.mlplatform_kueue_configuration.this.frameworks`). The worker's ClusterRole lets the manager create, read and delete each one's " +
				"kind there (and read its status), as Kueue documents for MultiKueue workers; without it the worker refuses what the manager dispatches. " +
				"A role lacking a kind shows as drift in `worker_access`, and apply restores it. Integrations Kueue has no MultiKueue adapter for " +
				"(`deployment`, `sparkoperator.k8s.io/sparkapplication`) are never dispatched and grant nothing. Default `[\"" +
				strings.Join(spec.DefaultKueueConfiguration().Frameworks, "\", \"") + "\"]`, as `mlplatform_kueue_configuration`'s default."},
		"token_validity": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("720h"), Validators: durations,
			MarkdownDescription: "How long each token is valid, as a Go duration (at least `10m`). The worker's API server may issue a shorter " +
				"one (`--service-account-max-token-expiration`); `kubeconfig_secret.token_expires_at` shows what it issued. Default `720h` (30 days)."},
		"rotate_before": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("168h"), Validators: durations,
			MarkdownDescription: "A plan made this long (or less) before the token expires writes a new one: `kubeconfig_secret.sha256` and `token_expires_at` show as " +
				"known after apply, and the apply rewrites the Secret, which Kueue reloads, then revokes the former token. Run a scheduled plan and apply more often than " +
				"`token_validity - rotate_before` and the token never expires. Default `168h` (7 days)."},
		"kubeconfig_secret": schema.SingleNestedAttribute{Computed: true,
			MarkdownDescription: "The kubeconfig Secret in the manager's `kueue-system`: inline CA data and the token, nothing Kueue rejects. " +
				"The token is never in state: `sha256` is the hash of the kubeconfig as the provider wrote it. A Secret deleted or edited out of band " +
				"reads as `" + reconcile.KubeconfigDeleted + "` or `" + reconcile.KubeconfigEdited + "`, and the next apply writes it again with a new token.",
			Attributes: map[string]schema.Attribute{
				"name":             schema.StringAttribute{Computed: true, MarkdownDescription: "Secret name."},
				"sha256":           schema.StringAttribute{Computed: true, MarkdownDescription: "SHA-256 of the kubeconfig, hex."},
				"token_expires_at": schema.StringAttribute{Computed: true, MarkdownDescription: "When the token expires (RFC 3339, UTC)."},
			}},
		"worker_endpoint": schema.StringAttribute{Computed: true, MarkdownDescription: "The worker's API server, as written in the kubeconfig."},
		"worker_access": schema.StringAttribute{Computed: true,
			MarkdownDescription: "`granted` when the worker holds the service account, ClusterRole and binding as written; otherwise what is " +
				"missing or changed (shown as drift, restored by apply), `" + reconcile.TokenRevoked + ": …` when the Secret the manager's token is bound to was " +
				"deleted (apply writes a new token), or `" + reconcile.WorkerAccessUnreachable + "` when the worker cannot be read."},
	}
	for k, v := range waitAttributes("worker") {
		attrs[k] = v
	}
	attrs["wait_for_active"] = schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
		MarkdownDescription: "After create and update, wait until Kueue reports the MultiKueueCluster Active (connected to the worker), and " +
			"fail with Kueue's reason in plain words (unreachable, kubeconfig rejected, token refused) otherwise, within `active_timeout`. Default `true`."}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Gives a MultiKueue manager access to one worker cluster. In the worker: a service account in `kueue-system`, the " +
			"RBAC MultiKueue documents for workers, and a bounded token. In the manager (this provider's cluster): the kubeconfig Secret " +
			"Kueue reads (inline CA and token) and the `MultiKueueCluster` naming it. No token is stored in state; a deleted or edited Secret " +
			"shows as drift and apply restores it; tokens are rotated by a plan made within `rotate_before` of expiry. Destroy deletes the " +
			"manager's objects and the worker's service account and token Secrets, which revokes every token issued to it; a rotation revokes the token it replaces.",
		Attributes: attrs,
	}
}

// ImportState imports by name: terraform import mlplatform_multikueue_cluster.x NAME. The worker is taken from the
// configuration; the first apply after an import writes the platform's kubeconfig, with a new token, unless the Secret
// is the one the platform wrote.
func (r *MultiKueueCluster) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	extra := waitDefaults()
	extra["worker_service_account"] = types.StringValue(spec.DefaultWorkerServiceAccount)
	extra["frameworks"] = types.ListValueMust(types.StringType, stringValues(spec.DefaultKueueConfiguration().Frameworks))
	extra["token_validity"] = types.StringValue("720h")
	extra["rotate_before"] = types.StringValue("168h")
	importByName(ctx, req, resp, extra)
}

// ModifyPlan fills the GKE project from the provider, and plans a new token
// (kubeconfig_secret known after apply) when the Secret is not the one the
// platform wrote, the token expires within rotate_before, or the worker,
// its service account or the token validity changes.
func (r *MultiKueueCluster) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan multiKueueClusterModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.clients != nil && !plan.Worker.IsNull() && !plan.Worker.IsUnknown() {
		var w workerModel
		resp.Diagnostics.Append(objectInto(plan.Worker, &w)...)
		if !w.GKECluster.IsNull() && !w.GKECluster.IsUnknown() {
			var g gkeClusterModel
			resp.Diagnostics.Append(objectInto(w.GKECluster, &g)...)
			if g.Project.IsNull() || g.Project.IsUnknown() {
				resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("worker").AtName("gke_cluster").AtName("project"),
					types.StringValue(r.clients.Config.Project))...)
				resp.Diagnostics.Append(resp.Plan.Get(ctx, &plan)...)
			}
		}
	}
	if req.State.Raw.IsNull() {
		// A create: the Secret's name is known (NAME-kubeconfig); the rest is
		// known after apply.
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("kubeconfig_secret"), plannedSecret(plan))...)
		return
	}
	repairPlan(ctx, req, resp)
	var state multiKueueClusterModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	set := func(attr string, v attr.Value) {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), v)...)
	}
	set("worker_access", types.StringValue(reconcile.WorkerAccessGranted))
	workerChanged := !plan.Worker.Equal(state.Worker)
	if workerChanged {
		set("worker_endpoint", types.StringUnknown())
	} else {
		set("worker_endpoint", state.WorkerEndpoint)
	}
	if r.rewriteKubeconfig(plan, state, workerChanged) {
		set("kubeconfig_secret", plannedSecret(plan))
	} else {
		set("kubeconfig_secret", state.KubeconfigSecret)
	}
}

// rewritePlanned says whether the plan has the apply write a new token: the
// Secret's hash is known only after apply (plannedSecret).
func rewritePlanned(secret types.Object) bool {
	if secret.IsUnknown() {
		return true
	}
	sha, ok := secret.Attributes()["sha256"]
	return ok && sha.IsUnknown()
}

// plannedSecret is the kubeconfig Secret an apply writes: its name is
// known at plan (spec.MultiKueueCluster.SecretName, NAME-kubeconfig), its
// hash and the token's expiry only after apply.
func plannedSecret(plan multiKueueClusterModel) types.Object {
	if plan.Name.IsNull() || plan.Name.IsUnknown() {
		return types.ObjectUnknown(kubeconfigSecretType.AttrTypes)
	}
	return types.ObjectValueMust(kubeconfigSecretType.AttrTypes, map[string]attr.Value{
		"name":             types.StringValue(spec.MultiKueueCluster{Name: plan.Name.ValueString()}.SecretName()),
		"sha256":           types.StringUnknown(),
		"token_expires_at": types.StringUnknown(),
	})
}

// rewriteKubeconfig says whether the apply writes a new token.
func (r *MultiKueueCluster) rewriteKubeconfig(plan, state multiKueueClusterModel, workerChanged bool) bool {
	if workerChanged || !plan.WorkerServiceAccount.Equal(state.WorkerServiceAccount) || !plan.TokenValidity.Equal(state.TokenValidity) {
		return true
	}
	if state.KubeconfigSecret.IsNull() || state.KubeconfigSecret.IsUnknown() {
		return true
	}
	if strings.HasPrefix(state.WorkerAccess.ValueString(), reconcile.TokenRevoked) {
		return true // the worker no longer takes the token in the Secret
	}
	var ks kubeconfigSecretModel
	if objectInto(state.KubeconfigSecret, &ks).HasError() || !sha256Hex.MatchString(ks.SHA256.ValueString()) {
		return true
	}
	expires, err := time.Parse(time.RFC3339, ks.TokenExpiresAt.ValueString())
	if err != nil {
		return true // a token without expiry is not the platform's
	}
	before, err := time.ParseDuration(plan.RotateBefore.ValueString())
	if err != nil {
		before = spec.DefaultTokenRotateBefore
	}
	return !r.now().Add(before).Before(expires)
}

func (m multiKueueClusterModel) toSpec(ctx context.Context, diags *diag.Diagnostics) spec.MultiKueueCluster {
	s := spec.MultiKueueCluster{
		Name:              m.Name.ValueString(),
		ServiceAccount:    spec.DefaultWorkerServiceAccount,
		TokenValidity:     spec.DefaultTokenValidity,
		RotateBefore:      spec.DefaultTokenRotateBefore,
		RewriteKubeconfig: rewritePlanned(m.KubeconfigSecret),
	}
	if !m.WorkerServiceAccount.IsNull() && !m.WorkerServiceAccount.IsUnknown() {
		s.ServiceAccount = m.WorkerServiceAccount.ValueString()
	}
	if !m.Frameworks.IsNull() && !m.Frameworks.IsUnknown() {
		s.Frameworks = []string{}
		diags.Append(m.Frameworks.ElementsAs(ctx, &s.Frameworks, false)...)
	}
	for _, d := range []struct {
		v   types.String
		dst *time.Duration
	}{{m.TokenValidity, &s.TokenValidity}, {m.RotateBefore, &s.RotateBefore}} {
		if d.v.IsNull() || d.v.IsUnknown() {
			continue
		}
		if v, err := time.ParseDuration(d.v.ValueString()); err == nil {
			*d.dst = v
		}
	}
	if m.Worker.IsNull() || m.Worker.IsUnknown() {
		return s
	}
	var w workerModel
	diags.Append(objectInto(m.Worker, &w)...)
	s.Worker.Kubeconfig, s.Worker.KubeContext = w.Kubeconfig.ValueString(), w.KubeContext.ValueString()
	if !w.GKECluster.IsNull() && !w.GKECluster.IsUnknown() {
		var g gkeClusterModel
		diags.Append(objectInto(w.GKECluster, &g)...)
		s.Worker.GKE = &spec.GKECluster{Project: g.Project.ValueString(), Location: g.Location.ValueString(), Name: g.Name.ValueString()}
	}
	return s
}

// multiKueueClusterState is what the manager and worker hold; the settings
// the servers do not know (worker, token validity, waits) stay as planned.
func multiKueueClusterState(_ context.Context, got reconcile.MultiKueueClusterObserved, _ spec.MultiKueueCluster, prior multiKueueClusterModel, diags *diag.Diagnostics) multiKueueClusterModel {
	if got.WorkerErr != nil {
		diags.AddWarning("MultiKueue Worker "+got.Spec.Name+" Could Not Be Read",
			fmt.Sprintf("The plan cannot check the manager's access in the worker; an apply that writes to it fails until the worker is back, "+
				"or remove the worker from mlplatform_multikueue_check.clusters first.\n\n%v", got.WorkerErr))
	}
	expires := ""
	if !got.TokenExpiresAt.IsZero() {
		expires = got.TokenExpiresAt.UTC().Format(time.RFC3339)
	}
	secret := types.ObjectValueMust(kubeconfigSecretType.AttrTypes, map[string]attr.Value{
		"name":             types.StringValue(got.SecretName),
		"sha256":           types.StringValue(got.KubeconfigSHA256),
		"token_expires_at": types.StringValue(expires),
	})
	m := prior
	m.ID, m.Name = types.StringValue(got.Spec.Name), types.StringValue(got.Spec.Name)
	m.KubeconfigSecret = secret
	m.WorkerEndpoint = types.StringValue(got.Endpoint)
	m.WorkerAccess = types.StringValue(got.WorkerAccess)
	if got.TokenServiceAccount != "" {
		// Whom the token in the Secret was issued to (an import learns it here).
		m.WorkerServiceAccount = types.StringValue(got.TokenServiceAccount)
	}
	if m.WaitForActive.IsNull() || m.WaitForActive.IsUnknown() {
		m.WaitForActive = types.BoolValue(true)
	}
	if m.ActiveTimeout.IsNull() || m.ActiveTimeout.IsUnknown() {
		m.ActiveTimeout = types.StringValue(defaultActiveTimeout)
	}
	return m
}

// known says which attributes are fully known, for plan-time validation.
func (m multiKueueClusterModel) known(ctx context.Context) map[string]bool { return knownAttrs(ctx, m) }
