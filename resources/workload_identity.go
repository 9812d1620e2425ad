package resources

import (
	"context"
	"errors"
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
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/diagnostics"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

var (
	_ resource.ResourceWithConfigure      = &WorkloadIdentity{}
	_ resource.ResourceWithImportState    = &WorkloadIdentity{}
	_ resource.ResourceWithValidateConfig = &WorkloadIdentity{}
	_ resource.ResourceWithModifyPlan     = &WorkloadIdentity{}
)

// WorkloadIdentity is mlplatform_workload_identity.
type WorkloadIdentity struct {
	clients *platform.Clients
}

// NewWorkloadIdentity is the resource constructor.
func NewWorkloadIdentity() resource.Resource { return &WorkloadIdentity{} }

func (r *WorkloadIdentity) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload_identity"
}

func (r *WorkloadIdentity) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A Workload Identity binding, whole: a Kubernetes service account (KSA), created or adopted, acting as a Google " +
			"service account (GSA), existing or created, with no key anywhere. It annotates the KSA with `" + spec.GSAAnnotation + "` and grants " +
			"the KSA's member `serviceAccount:PROJECT.svc.id.goog[NAMESPACE/KSA]` the role `" + iam.WorkloadIdentityUser + "` on the GSA, " +
			"non-authoritatively: only its own member is added or removed, other members of the GSA's policy are never touched, and a concurrent " +
			"IAM write is retried rather than lost. With `mode = \"direct\"` nothing is granted on a GSA; grant resources to `principal` instead.\n\n" +
			"Before any write, apply checks that the cluster has a Workload Identity pool, that an existing GSA exists, and warns about node pools " +
			"that do not run the GKE metadata server. Out-of-band changes show in the plan as `kubernetes_service_account_annotation`, " +
			"`iam_member_granted` or `kubernetes_service_account_uid` (a deleted KSA). Deleting removes only what it added.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "`NAMESPACE/KSA`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"project": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "Project of the cluster (its workload pool is `PROJECT.svc.id.goog`). Default: the provider's `project`. Changing it replaces the binding."},
			"project_number": schema.StringAttribute{Optional: true, Validators: notEmpty("project_number", "leave project_number out (it is needed only with mode = \"direct\"), or write the project's number, e.g. \"123456789012\"."),
				MarkdownDescription: "Number of the cluster's project, for `principal`. Required with `mode = \"direct\"`."},
			"namespace": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Namespace of the Kubernetes service account, e.g. `mlplatform_team_namespace.x.name`."},
			"kubernetes_service_account": schema.StringAttribute{Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the Kubernetes service account the training pods run as."},
			"create_kubernetes_service_account": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Create the KSA (default), labelled `" + spec.ManagedByLabel + "=mlplatform`, and delete it with the binding. " +
					"`false` adopts an existing KSA: only its annotation is managed, and removed on delete."},
			"mode": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(spec.ModeGoogleServiceAccount),
				PlanModifiers: replace, // its values are checked by spec.WorkloadIdentity.Validate
				MarkdownDescription: "`" + spec.ModeGoogleServiceAccount + "` (default): the KSA acts as a Google service account. `" + spec.ModeDirect +
					"`: no GSA; grant resources to `principal`. Changing it replaces the binding."},
			"google_service_account": schema.StringAttribute{Optional: true, Computed: true,
				MarkdownDescription: "E-mail of an existing Google service account to act as. Computed when `create_google_service_account` is set. " +
					"Changing it moves the grant: the new one is added, then the old one is revoked."},
			"create_google_service_account": schema.SingleNestedAttribute{Optional: true,
				MarkdownDescription: "Create the Google service account in `project` (and delete it with the binding).",
				Attributes: map[string]schema.Attribute{
					"account_id": schema.StringAttribute{Required: true,
						MarkdownDescription: "Account ID (6-30 characters); the e-mail is `ACCOUNT_ID@PROJECT.iam.gserviceaccount.com`. Changing it creates the new account, moves the grant and deletes the old account."},
					"display_name": schema.StringAttribute{Optional: true, Validators: notEmpty("display_name", "leave display_name out for none, or write one, e.g. \"Vision trainer\"."),
						MarkdownDescription: fmt.Sprintf("Display name (at most %d bytes in UTF-8).", spec.MaxGSADisplayName)},
					"description": schema.StringAttribute{Optional: true, Validators: notEmpty("description", "leave description out for none, or write one, e.g. \"Runs the vision team's training jobs\"."),
						MarkdownDescription: fmt.Sprintf("Description (at most %d bytes in UTF-8: IAM allows %d, and the provider appends `%s`).",
							spec.MaxGSAConfiguredDescription, spec.MaxGSADescription, " "+spec.GSAMarker)},
				}},
			"member": schema.StringAttribute{Computed: true,
				MarkdownDescription: "IAM member of the KSA: `serviceAccount:PROJECT.svc.id.goog[NAMESPACE/KSA]`."},
			"principal": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The KSA's identifier for direct grants: `principal://iam.googleapis.com/projects/NUMBER/locations/global/workloadIdentityPools/PROJECT.svc.id.goog/subject/ns/NAMESPACE/sa/KSA`. Null without `project_number`."},
			"kubernetes_service_account_annotation": schema.StringAttribute{Computed: true,
				MarkdownDescription: "The GSA the KSA's `" + spec.GSAAnnotation + "` annotation names, as last read (null in direct mode). A plan that changes it means the annotation was edited or removed outside Terraform."},
			"iam_member_granted": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether `member` holds `" + iam.WorkloadIdentityUser + "` on the GSA, as last read (null in direct mode). A plan that sets it to true means the grant was removed outside Terraform."},
			"kubernetes_service_account_uid": schema.StringAttribute{Computed: true,
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "UID of the KSA, as last read. A plan that shows it as known after apply means the KSA is missing and will be created."},
		},
	}
	resp.Schema = withObjectTypes(resp.Schema)
}

func (r *WorkloadIdentity) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.clients = clientsFrom(req.ProviderData, &resp.Diagnostics)
}

func (r *WorkloadIdentity) providerProject() string {
	if r.clients == nil {
		return ""
	}
	return r.clients.Config.Project
}

func (r *WorkloadIdentity) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m workloadIdentityModel
	resp.Diagnostics.Append(getModel(ctx, req.Config, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	known := m.known(ctx)
	if m.Project.IsNull() {
		known["project"] = false // from the provider, checked in ModifyPlan
	}
	if m.ProjectNumber.ValueString() == "" && !m.ProjectNumber.IsNull() && !m.ProjectNumber.IsUnknown() {
		known["project_number"] = false // "" is the attribute validator's to report, once
	}
	// Which Google identity is meant (the mode, and an existing or a created
	// account) decides the cross-field rules: while one of them is unknown,
	// they wait for ModifyPlan or apply.
	if !known["mode"] {
		known["google_service_account"], known["create_google_service_account"], known["project_number"] = false, false, false
	}
	if !known["google_service_account"] || !known["create_google_service_account"] {
		known["google_service_account"], known["create_google_service_account"] = false, false
	}
	s := m.toSpec(ctx, "", &resp.Diagnostics)
	if m.CreateKSA.IsUnknown() {
		s.CreateKSA = false // not known yet: no rule that needs it fires
	}
	addSpecErrors(&resp.Diagnostics, s.Validate(), known)
}

// ModifyPlan fills in what follows from the configuration (project, GSA
// e-mail, member, principal, the annotation and grant apply will make), so
// a plan shows real values and an out-of-band change reads as one attribute.
func (r *WorkloadIdentity) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan, state workloadIdentityModel
	resp.Diagnostics.Append(getModel(ctx, req.Plan, &plan)...)
	if !req.State.Raw.IsNull() {
		resp.Diagnostics.Append(getModel(ctx, req.State, &state)...)
	} else {
		state.KSAUID = types.StringNull()
	}
	var configProject, configGSA types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("project"), &configProject)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("google_service_account"), &configGSA)...)
	if resp.Diagnostics.HasError() || configGSA.IsUnknown() {
		return // an e-mail from another resource is known at apply
	}
	if configProject.IsNull() {
		plan.Project = types.StringNull() // take the provider's
	}
	known := plan.known(ctx)
	delete(known, "google_service_account") // computed, unknown in a fresh plan
	for name, ok := range known {
		if !ok && (name != "project" || !configProject.IsNull()) {
			return // decided at apply
		}
	}
	// ValidateConfig has checked everything it knew; what it left out (the
	// provider's project, values that were unknown) is checked here, and
	// nothing it reported can reach this point (Terraform plans only a
	// valid configuration).
	s := plan.toSpec(ctx, r.providerProject(), &resp.Diagnostics)
	if errs := s.Validate(); len(errs) > 0 {
		for i, e := range errs {
			if configProject.IsNull() && len(e.Path) == 1 && e.Path[0] == "project" && s.Project != "" {
				errs[i].Detail += " This is the provider's project (or MLPLATFORM_PROJECT): correct it there, or set project on this resource."
			}
		}
		diagnostics.FieldErrors(&resp.Diagnostics, errs)
		return
	}
	resp.Diagnostics.Append(setPlan(ctx, &resp.Plan, plan.planned(s, state))...)
	if !req.State.Raw.IsNull() && state.Project.ValueString() != s.Project {
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("project"))
	}
}

// reconciler connects to the cluster and IAM, and, for an apply (which
// checks the GKE cluster's workload pool first), to GKE.
func (r *WorkloadIdentity) reconciler(ctx context.Context, forApply bool, diags *diag.Diagnostics) (reconcile.WorkloadIdentities, bool) {
	var w reconcile.WorkloadIdentities
	if forApply && (r.clients.Config.Cluster == "" || r.clients.Config.Location == "") {
		diags.AddError("Cluster Not Set",
			"A Workload Identity binding checks the GKE cluster's workload pool before writing: set cluster and location on the provider "+
				"(or MLPLATFORM_CLUSTER and MLPLATFORM_LOCATION).")
		return w, false
	}
	kc, err := r.clients.Kube(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To The Kubernetes Cluster", err)
		return w, false
	}
	ic, err := r.clients.IAM(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To IAM", err)
		return w, false
	}
	var gc reconcile.ClusterIdentityAPI
	if forApply {
		c, err := r.clients.GKE(ctx)
		if err != nil {
			diagnostics.Error(diags, "Could Not Connect To GKE", err)
			return w, false
		}
		gc = c
	}
	return reconcile.NewWorkloadIdentities(kc, ic, gc, r.clients.Config.ClusterName()), true
}

func (r *WorkloadIdentity) apply(ctx context.Context, plan tfsdk.Plan, prior *tfsdk.State, state *tfsdk.State, diags *diag.Diagnostics) {
	var m workloadIdentityModel
	diags.Append(getModel(ctx, plan, &m)...)
	if diags.HasError() {
		return
	}
	desired := m.toSpec(ctx, r.providerProject(), diags)
	if errs := desired.Validate(); len(errs) > 0 {
		diagnostics.FieldErrors(diags, errs)
	}
	var before *spec.WorkloadIdentity
	if prior != nil {
		var p workloadIdentityModel
		diags.Append(getModel(ctx, prior, &p)...)
		s := p.toSpec(ctx, r.providerProject(), diags)
		before = &s
	}
	if diags.HasError() {
		return
	}
	w, ok := r.reconciler(ctx, true, diags)
	if !ok {
		return
	}
	st, warnings, err := w.Apply(ctx, before, desired)
	for _, msg := range warnings {
		diags.AddWarning("Some Node Pools Cannot Serve Workload Identity", msg)
	}
	var notOwned *reconcile.NotOwnedError
	switch {
	case errors.As(err, &notOwned) && prior == nil:
		diagnostics.NotOwned(diags, "mlplatform_workload_identity", desired.Namespace+"/"+desired.KSA, notOwnedAdvice(desired, notOwned), err)
		return // nothing was written, so nothing is recorded
	case errors.As(err, &notOwned):
		diagnostics.NotOwnedByUpdate(diags, notOwnedAdvice(desired, notOwned), err)
		state.Raw = prior.Raw.Copy() // nothing was written: the state stays as it was
		return
	}
	if err != nil {
		diagnostics.Error(diags, "Could Not Apply Workload Identity "+desired.Namespace+"/"+desired.KSA, err)
		if prior == nil && (errors.Is(err, reconcile.ErrPreflight) || errors.Is(err, reconcile.ErrNoWorkloadPool)) {
			return // nothing was written, so nothing is recorded
		}
		// Something may have been written: record it, so Terraform marks the
		// binding tainted and the next apply cleans up and starts over.
	}
	diags.Append(setState(ctx, state, workloadIdentityState(desired, st, m))...)
}

// notOwnedAdvice is the way out, other than import, when a create finds a
// part of the binding someone else made.
func notOwnedAdvice(s spec.WorkloadIdentity, e *reconcile.NotOwnedError) string {
	switch e.Kind {
	case reconcile.KindKSA:
		return "set create_kubernetes_service_account = false to bind the existing account without owning it (only its " +
			spec.GSAAnnotation + " annotation is then managed, and removed on destroy), or choose another kubernetes_service_account"
	case reconcile.KindAnnotation:
		return "remove the annotation (kubectl annotate serviceaccount -n " + s.Namespace + " " + s.KSA + " " + spec.GSAAnnotation +
			"-) if nothing relies on it, or bind another Kubernetes service account"
	case reconcile.KindGSA:
		return "set google_service_account = \"" + s.GSA() + "\" instead of create_google_service_account to bind to the existing " +
			"account without managing it (it is then never deleted), or choose another account_id"
	case reconcile.KindGrant:
		return "remove that grant first if this binding is to own it (gcloud iam service-accounts remove-iam-policy-binding " + s.GSA() +
			" --role=" + iam.WorkloadIdentityUser + " --member='" + s.Member() + "'), or bind another Kubernetes service account"
	}
	return ""
}

func (r *WorkloadIdentity) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, nil, &resp.State, &resp.Diagnostics)
}

func (r *WorkloadIdentity) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, &req.State, &resp.State, &resp.Diagnostics)
}

func (r *WorkloadIdentity) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m workloadIdentityModel
	resp.Diagnostics.Append(getModel(ctx, req.State, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, ok := r.reconciler(ctx, false, &resp.Diagnostics)
	if !ok {
		return
	}
	if m.Mode.IsNull() { // imported: learn the rest from the KSA
		if !r.completeImport(ctx, w, &m, &resp.Diagnostics) {
			return
		}
	}
	s := m.toSpec(ctx, r.providerProject(), &resp.Diagnostics)
	st, err := w.Observe(ctx, s)
	if err != nil {
		diagnostics.Error(&resp.Diagnostics, "Could Not Read Workload Identity "+s.Namespace+"/"+s.KSA, err)
		return
	}
	resp.Diagnostics.Append(setState(ctx, &resp.State, workloadIdentityState(s, st, m))...)
}

// completeImport fills an imported binding's settings from its KSA: created
// by the platform or adopted (its managed-by label), and the GSA its
// annotation names (none: direct mode).
func (r *WorkloadIdentity) completeImport(ctx context.Context, w reconcile.WorkloadIdentities, m *workloadIdentityModel, diags *diag.Diagnostics) bool {
	probe := m.toSpec(ctx, r.providerProject(), diags)
	probe.Mode = spec.ModeDirect
	st, err := w.Observe(ctx, probe)
	if err != nil {
		diagnostics.Error(diags, "Could Not Import Workload Identity "+probe.Namespace+"/"+probe.KSA, err)
		return false
	}
	if !st.KSAExists {
		diags.AddError("Cannot Import Workload Identity "+probe.Namespace+"/"+probe.KSA,
			"Kubernetes service account "+probe.Namespace+"/"+probe.KSA+" does not exist; there is nothing to import.")
		return false
	}
	m.CreateKSA = types.BoolValue(st.KSAManaged)
	m.Project = types.StringValue(probe.Project)
	m.CreateGSA = types.ObjectNull(createGSAType.AttrTypes)
	if st.Annotation == "" {
		m.Mode, m.GSA = types.StringValue(spec.ModeDirect), types.StringNull()
	} else {
		m.Mode, m.GSA = types.StringValue(spec.ModeGoogleServiceAccount), types.StringValue(st.Annotation)
	}
	return true
}

func (r *WorkloadIdentity) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m workloadIdentityModel
	resp.Diagnostics.Append(getModel(ctx, req.State, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	w, ok := r.reconciler(ctx, false, &resp.Diagnostics)
	if !ok {
		return
	}
	s := m.toSpec(ctx, r.providerProject(), &resp.Diagnostics)
	ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
	defer cancel()
	if err := w.Delete(ctx, s); err != nil {
		diagnostics.Error(&resp.Diagnostics, "Could Not Delete Workload Identity "+s.Namespace+"/"+s.KSA, err)
	}
}

// ImportState imports by NAMESPACE/KSA.
func (r *WorkloadIdentity) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ns, ksa, ok := strings.Cut(req.ID, "/")
	if !ok || ns == "" || ksa == "" || strings.Contains(ksa, "/") {
		resp.Diagnostics.AddError("Invalid Import ID",
			"Import a Workload Identity binding by NAMESPACE/KUBERNETES_SERVICE_ACCOUNT, e.g. `terraform import mlplatform_workload_identity.x vision/trainer`; got "+req.ID+".")
		return
	}
	for name, v := range map[string]string{"id": req.ID, "namespace": ns, "kubernetes_service_account": ksa} {
		resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root(name), v)...)
	}
}
