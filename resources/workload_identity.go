package resources

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
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
	"github.com/mlplatform/terraform-provider-mlplatform/internal/iam"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// WorkloadIdentity is mlplatform_workload_identity.
type WorkloadIdentity struct {
	crud[workloadIdentityModel, reconcile.Ref, spec.WorkloadIdentity, reconcile.WorkloadIdentityStatus]
}

// NewWorkloadIdentity is the resource constructor.
func NewWorkloadIdentity() resource.Resource {
	r := &WorkloadIdentity{}
	r.crud = crud[workloadIdentityModel, reconcile.Ref, spec.WorkloadIdentity, reconcile.WorkloadIdentityStatus]{
		kind:         "Workload Identity",
		resourceType: "mlplatform_workload_identity",
		connect:      connectWorkloadIdentities,
		toSpec: func(m workloadIdentityModel, ctx context.Context, diags *diag.Diagnostics) spec.WorkloadIdentity {
			return m.toSpec(ctx, r.providerProject(), diags)
		},
		validate: spec.WorkloadIdentity.Validate,
		ref: func(m workloadIdentityModel) reconcile.Ref {
			return reconcile.Ref{Namespace: m.Namespace.ValueString(), Name: m.KSA.ValueString()}
		},
		toState: func(_ context.Context, st reconcile.WorkloadIdentityStatus, s spec.WorkloadIdentity, prior workloadIdentityModel, _ *diag.Diagnostics) workloadIdentityModel {
			return workloadIdentityState(s, st, prior)
		},
		readHint:       true,
		completeRead:   r.completeImport,
		notOwnedAdvice: notOwnedAdvice,
		warningSummary: "Some Node Pools Cannot Serve Workload Identity",
	}
	return r
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

// connectWorkloadIdentities connects to the cluster and IAM, and, for an
// apply (which checks the GKE cluster's workload pool first), to GKE.
func connectWorkloadIdentities(ctx context.Context, c *platform.Clients, forApply bool, diags *diag.Diagnostics) (
	reconcile.Reconciler[reconcile.Ref, spec.WorkloadIdentity, reconcile.WorkloadIdentityStatus], bool) {
	if forApply && c != nil && (c.Config.Cluster == "" || c.Config.Location == "") {
		diags.AddError("Cluster Not Set",
			"A Workload Identity binding checks the GKE cluster's workload pool before writing: set cluster and location on the provider "+
				"(or MLPLATFORM_CLUSTER and MLPLATFORM_LOCATION).")
		return nil, false
	}
	kc, ok := connectKube(ctx, c, diags)
	if !ok {
		return nil, false
	}
	ic, err := c.IAM(ctx)
	if err != nil {
		diagnostics.Error(diags, "Could Not Connect To IAM", err)
		return nil, false
	}
	var gc reconcile.ClusterIdentityAPI
	if forApply {
		g, err := c.GKE(ctx)
		if err != nil {
			diagnostics.Error(diags, "Could Not Connect To GKE", err)
			return nil, false
		}
		gc = g
	}
	return reconcile.NewWorkloadIdentities(kc, ic, gc, c.Config.ClusterName()), true
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

// completeImport fills an imported binding's settings from its KSA: created
// by the platform or adopted (its managed-by label), and the GSA its
// annotation names (none: direct mode).
func (r *WorkloadIdentity) completeImport(ctx context.Context, w reconcile.Reconciler[reconcile.Ref, spec.WorkloadIdentity, reconcile.WorkloadIdentityStatus],
	m *workloadIdentityModel, diags *diag.Diagnostics) bool {
	if !m.Mode.IsNull() {
		return true // not imported, or already complete
	}
	probe := m.toSpec(ctx, r.providerProject(), diags)
	probe.Mode = spec.ModeDirect
	st, _, err := w.Observe(ctx, r.ref(*m), probe)
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
		return true
	}
	m.Mode, m.GSA = types.StringValue(spec.ModeGoogleServiceAccount), types.StringValue(st.Annotation)
	// The account the annotation names, when mlplatform created it in the
	// binding's project: imported as created by the binding (as the KSA by
	// its label), so destroy deletes it and the import takes it whole.
	accountID, ok := strings.CutSuffix(st.Annotation, "@"+probe.Project+".iam.gserviceaccount.com")
	if !ok {
		return true
	}
	probe.Mode, probe.GSAEmail = spec.ModeGoogleServiceAccount, st.Annotation
	if st, _, err = w.Observe(ctx, r.ref(*m), probe); err != nil {
		diagnostics.Error(diags, "Could Not Import Workload Identity "+probe.Namespace+"/"+probe.KSA, err)
		return false
	}
	if st.GSAExists && st.GSAMarked {
		description, _ := spec.SplitGSADescription(st.GSA.GetDescription())
		m.CreateGSA = types.ObjectValueMust(createGSAType.AttrTypes, map[string]attr.Value{
			"account_id":   types.StringValue(accountID),
			"display_name": keepNullIfEmpty(types.StringNull(), st.GSA.GetDisplayName()),
			"description":  keepNullIfEmpty(types.StringNull(), description),
		})
	}
	return true
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
