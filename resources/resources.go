// Package resources holds the mlplatform resources: schema, plan-time
// validation and the glue from Terraform state to internal/spec and
// internal/reconcile. No resource calls a cloud or Kubernetes client directly.
package resources

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/platform"
)

// Every resource implements the framework interfaces it needs.
var (
	_ resource.ResourceWithConfigure      = &ClusterQueue{}
	_ resource.ResourceWithImportState    = &ClusterQueue{}
	_ resource.ResourceWithValidateConfig = &ClusterQueue{}
	_ resource.ResourceWithConfigure      = &Cohort{}
	_ resource.ResourceWithImportState    = &Cohort{}
	_ resource.ResourceWithValidateConfig = &Cohort{}
	_ resource.ResourceWithConfigure      = &GPUPool{}
	_ resource.ResourceWithImportState    = &GPUPool{}
	_ resource.ResourceWithValidateConfig = &GPUPool{}
	_ resource.ResourceWithModifyPlan     = &GPUPool{}
	_ resource.ResourceWithConfigure      = &LocalQueue{}
	_ resource.ResourceWithImportState    = &LocalQueue{}
	_ resource.ResourceWithValidateConfig = &LocalQueue{}
	_ resource.ResourceWithConfigure      = &MultiKueueCheck{}
	_ resource.ResourceWithImportState    = &MultiKueueCheck{}
	_ resource.ResourceWithValidateConfig = &MultiKueueCheck{}
	_ resource.ResourceWithUpgradeState   = &MultiKueueCheck{}
	_ resource.ResourceWithConfigure      = &MultiKueueCluster{}
	_ resource.ResourceWithImportState    = &MultiKueueCluster{}
	_ resource.ResourceWithValidateConfig = &MultiKueueCluster{}
	_ resource.ResourceWithModifyPlan     = &MultiKueueCluster{}
	_ resource.ResourceWithConfigure      = &ProvisioningAdmissionCheck{}
	_ resource.ResourceWithImportState    = &ProvisioningAdmissionCheck{}
	_ resource.ResourceWithValidateConfig = &ProvisioningAdmissionCheck{}
	_ resource.ResourceWithConfigure      = &ResourceFlavor{}
	_ resource.ResourceWithImportState    = &ResourceFlavor{}
	_ resource.ResourceWithValidateConfig = &ResourceFlavor{}
	_ resource.ResourceWithConfigure      = &TeamNamespace{}
	_ resource.ResourceWithImportState    = &TeamNamespace{}
	_ resource.ResourceWithValidateConfig = &TeamNamespace{}
	_ resource.ResourceWithModifyPlan     = &TeamNamespace{}
	_ resource.ResourceWithConfigure      = &Topology{}
	_ resource.ResourceWithImportState    = &Topology{}
	_ resource.ResourceWithValidateConfig = &Topology{}
	_ resource.ResourceWithModifyPlan     = &Topology{}
	_ resource.ResourceWithConfigure      = &TrainingNetworkPolicy{}
	_ resource.ResourceWithImportState    = &TrainingNetworkPolicy{}
	_ resource.ResourceWithValidateConfig = &TrainingNetworkPolicy{}
	_ resource.ResourceWithModifyPlan     = &TrainingNetworkPolicy{}
	_ resource.ResourceWithConfigure      = &WorkloadIdentity{}
	_ resource.ResourceWithImportState    = &WorkloadIdentity{}
	_ resource.ResourceWithValidateConfig = &WorkloadIdentity{}
	_ resource.ResourceWithModifyPlan     = &WorkloadIdentity{}
	_ resource.ResourceWithConfigure      = &WorkloadPriorityClass{}
	_ resource.ResourceWithImportState    = &WorkloadPriorityClass{}
	_ resource.ResourceWithValidateConfig = &WorkloadPriorityClass{}
)

// All lists every resource of the provider, each with its schema's nested
// object types computed once (typedSchema, fw_schema.go).
func All() []func() resource.Resource {
	all := []func() resource.Resource{
		NewWorkloadPriorityClass,
		NewTopology,
		NewResourceFlavor,
		NewCohort,
		NewProvisioningAdmissionCheck,
		NewLocalQueue,
		NewClusterQueue,
		NewTeamNamespace,
		NewTrainingNetworkPolicy,
		NewGPUPool,
		NewWorkloadIdentity,
		NewMultiKueueCluster,
		NewMultiKueueCheck,
	}
	for i, newResource := range all {
		all[i] = typedSchema(newResource)
	}
	return all
}

// clientsFrom unpacks the provider's clients in a resource's Configure. It
// returns nil (without error) before the provider is configured, which
// Terraform does for validation-only calls.
func clientsFrom(data any, diags *diag.Diagnostics) *platform.Clients {
	if data == nil {
		return nil
	}
	c, ok := data.(*platform.Clients)
	if !ok {
		diags.AddError("Unexpected Provider Data",
			fmt.Sprintf("Expected *platform.Clients, got %T. This is a bug in the provider; please report it.", data))
		return nil
	}
	return c
}
