package resources

import (
	"context"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type workloadIdentityModel struct {
	ID            types.String `tfsdk:"id"`
	Project       types.String `tfsdk:"project"`
	ProjectNumber types.String `tfsdk:"project_number"`
	Namespace     types.String `tfsdk:"namespace"`
	KSA           types.String `tfsdk:"kubernetes_service_account"`
	CreateKSA     types.Bool   `tfsdk:"create_kubernetes_service_account"`
	Mode          types.String `tfsdk:"mode"`
	GSA           types.String `tfsdk:"google_service_account"`
	CreateGSA     types.Object `tfsdk:"create_google_service_account"`
	Member        types.String `tfsdk:"member"`
	Principal     types.String `tfsdk:"principal"`
	Annotation    types.String `tfsdk:"kubernetes_service_account_annotation"`
	Granted       types.Bool   `tfsdk:"iam_member_granted"`
	KSAUID        types.String `tfsdk:"kubernetes_service_account_uid"`
}

type createGSAModel struct {
	AccountID   types.String `tfsdk:"account_id"`
	DisplayName types.String `tfsdk:"display_name"`
	Description types.String `tfsdk:"description"`
}

var createGSAType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"account_id": types.StringType, "display_name": types.StringType, "description": types.StringType,
}}

// toSpec converts a plan, state or config. project is the provider's,
// used when the model has none.
func (m workloadIdentityModel) toSpec(ctx context.Context, project string, diags *diag.Diagnostics) spec.WorkloadIdentity {
	s := spec.WorkloadIdentity{
		Project: m.Project.ValueString(), ProjectNumber: m.ProjectNumber.ValueString(),
		Namespace: m.Namespace.ValueString(), KSA: m.KSA.ValueString(),
		CreateKSA: m.CreateKSA.IsNull() || m.CreateKSA.IsUnknown() || m.CreateKSA.ValueBool(),
		Mode:      m.Mode.ValueString(), GSAEmail: m.GSA.ValueString(),
	}
	if m.Project.IsNull() || m.Project.IsUnknown() {
		s.Project = project
	}
	if s.Mode == "" {
		s.Mode = spec.ModeGoogleServiceAccount
	}
	if !m.CreateGSA.IsNull() && !m.CreateGSA.IsUnknown() {
		var c createGSAModel
		diags.Append(objectInto(m.CreateGSA, &c)...)
		s.CreateGSA = &spec.GoogleServiceAccount{AccountID: c.AccountID.ValueString(), DisplayName: c.DisplayName.ValueString(), Description: c.Description.ValueString()}
		if s.GSAEmail == spec.GSAEmail(s.Project, s.CreateGSA.AccountID) {
			s.GSAEmail = "" // computed from account_id (plan, state), not configured
		}
	}
	return s
}

// known says which configurable attributes are fully known, for plan-time
// validation. Only those: ModifyPlan waits until every one of them is known,
// and the computed ones (member, principal, the annotation, ...) are unknown
// in every new plan.
func (m workloadIdentityModel) known(ctx context.Context) map[string]bool {
	k := knownAttrs(ctx, m)
	configurable := workloadIdentityConfigurable()
	for name := range k {
		if !configurable[name] {
			delete(k, name)
		}
	}
	return k
}

// workloadIdentityConfigurable is the set of the resource's root attributes
// a configuration can set, from its schema.
var workloadIdentityConfigurable = sync.OnceValue(func() map[string]bool {
	return configurableAttributes(&WorkloadIdentity{})
})

// planned fills the attributes whose values follow from the configuration,
// so they are known in the plan: the project, the GSA e-mail, the member and
// principal identifiers, and what the KSA annotation and the IAM grant will
// be once applied.
func (m workloadIdentityModel) planned(s spec.WorkloadIdentity, prior workloadIdentityModel) workloadIdentityModel {
	m.Project = types.StringValue(s.Project)
	m.ID = types.StringValue(s.Namespace + "/" + s.KSA)
	m.Member = types.StringValue(s.Member())
	m.Principal = optString(s.Principal())
	if m.CreateKSA.IsUnknown() || m.CreateKSA.IsNull() {
		m.CreateKSA = types.BoolValue(s.CreateKSA)
	}
	m.Mode = types.StringValue(s.Mode)
	if s.UsesGSA() {
		m.GSA = types.StringValue(s.GSA())
		m.Annotation = types.StringValue(s.GSA())
		m.Granted = types.BoolValue(true)
	} else {
		m.GSA, m.Annotation, m.Granted = types.StringNull(), types.StringNull(), types.BoolNull()
	}
	m.KSAUID = prior.KSAUID
	if prior.KSAUID.IsNull() || prior.KSAUID.IsUnknown() {
		m.KSAUID = types.StringUnknown() // the KSA is (re)created
	}
	return m
}

// workloadIdentityState records what the cluster and IAM hold. s is the
// binding as configured (from plan or prior state).
func workloadIdentityState(s spec.WorkloadIdentity, st reconcile.WorkloadIdentityStatus, prior workloadIdentityModel) workloadIdentityModel {
	m := prior.planned(s, prior)
	m.KSAUID = optString(st.KSAUID)
	if s.UsesGSA() {
		m.Annotation = optString(st.Annotation)
		m.Granted = types.BoolValue(st.MemberGranted)
	}
	if s.CreateGSA != nil && st.GSAExists {
		description, _ := spec.SplitGSADescription(st.GSA.GetDescription())
		m.CreateGSA = types.ObjectValueMust(createGSAType.AttrTypes, map[string]attr.Value{
			"account_id":   types.StringValue(s.CreateGSA.AccountID),
			"display_name": keepNullIfEmpty(prior.createGSA("display_name"), st.GSA.GetDisplayName()),
			"description":  keepNullIfEmpty(prior.createGSA("description"), description),
		})
	}
	return m
}

// createGSA returns one attribute of create_google_service_account, or a
// null string.
func (m workloadIdentityModel) createGSA(name string) types.String {
	if m.CreateGSA.IsNull() || m.CreateGSA.IsUnknown() {
		return types.StringNull()
	}
	v, _ := m.CreateGSA.Attributes()[name].(types.String)
	return v
}

// keepNullIfEmpty is the server's value, except that an unset attribute the
// server holds as "" stays unset.
func keepNullIfEmpty(prior types.String, server string) types.String {
	if server == "" && prior.IsNull() {
		return prior
	}
	return types.StringValue(server)
}
