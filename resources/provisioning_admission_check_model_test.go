package resources

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// A configuration leaves defaulted attributes null; they convert to the
// same defaults the schema plans.
func TestProvisioningAdmissionCheckToSpec(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	null := provisioningAdmissionCheckModel{
		Name: types.StringValue("dws"), ProvisioningClass: types.StringNull(), ManagedResources: types.SetNull(types.StringType),
		Parameters: types.MapNull(types.StringType), RetryStrategy: types.ObjectNull(retryStrategyType.AttrTypes), PodSetNodeSelectorUpdate: types.BoolNull(),
	}
	gke := []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector}
	partialRetry := types.ObjectValueMust(retryStrategyType.AttrTypes, map[string]attr.Value{
		"backoff_limit_count": types.Int64Value(0), "backoff_base_seconds": types.Int64Null(), "backoff_max_seconds": types.Int64Unknown(),
	})
	cases := map[string]struct {
		in   provisioningAdmissionCheckModel
		want spec.ProvisioningAdmissionCheck
	}{
		"defaults": {in: null, want: spec.ProvisioningAdmissionCheck{Name: "dws", ProvisioningClass: "queued-provisioning.gke.io",
			ManagedResources: []string{"nvidia.com/gpu"}, RetryStrategy: spec.RetryStrategy{BackoffLimitCount: 3, BackoffBaseSeconds: 60, BackoffMaxSeconds: 1800}, PodSetNodeSelectors: gke}},
		"set": {in: func() provisioningAdmissionCheckModel {
			m := null
			m.ProvisioningClass = types.StringValue("check-capacity.autoscaling.x-k8s.io")
			m.ManagedResources = types.SetValueMust(types.StringType, []attr.Value{types.StringValue("nvidia.com/gpu"), types.StringValue("cpu")})
			m.Parameters = types.MapValueMust(types.StringType, map[string]attr.Value{"a": types.StringValue("b")})
			m.RetryStrategy = partialRetry
			m.PodSetNodeSelectorUpdate = types.BoolValue(false)
			return m
		}(), want: spec.ProvisioningAdmissionCheck{Name: "dws", ProvisioningClass: "check-capacity.autoscaling.x-k8s.io",
			ManagedResources: []string{"cpu", "nvidia.com/gpu"}, Parameters: map[string]string{"a": "b"}, RetryStrategy: spec.RetryStrategy{BackoffLimitCount: 0, BackoffBaseSeconds: 60, BackoffMaxSeconds: 1800}}},
		"every resource": {in: func() provisioningAdmissionCheckModel {
			m := null
			m.ManagedResources = types.SetValueMust(types.StringType, []attr.Value{})
			return m
		}(), want: spec.ProvisioningAdmissionCheck{Name: "dws", ProvisioningClass: "queued-provisioning.gke.io",
			ManagedResources: []string{}, RetryStrategy: spec.DefaultRetryStrategy, PodSetNodeSelectors: gke}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d diag.Diagnostics
			got := tc.in.toSpec(ctx, &d)
			if d.HasError() {
				t.Fatal(d)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestProvisioningAdmissionCheckState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cases := map[string]struct {
		server       spec.ProvisioningAdmissionCheck
		wantSelector bool
		wantManaged  int
	}{
		"GKE selector":      {server: spec.ProvisioningAdmissionCheck{Name: "dws", ManagedResources: []string{"nvidia.com/gpu"}, PodSetNodeSelectors: []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector}}, wantSelector: true, wantManaged: 1},
		"no selector":       {server: spec.ProvisioningAdmissionCheck{Name: "dws"}, wantSelector: false},
		"another selector":  {server: spec.ProvisioningAdmissionCheck{Name: "dws", PodSetNodeSelectors: []spec.PodSetNodeSelector{{Key: "k", ValueFromProvisioningClassDetail: "v"}}}},
		"GKE's and another": {server: spec.ProvisioningAdmissionCheck{Name: "dws", PodSetNodeSelectors: []spec.PodSetNodeSelector{spec.GKEProvisioningNodeSelector, {Key: "k", ValueFromProvisioningClassDetail: "v"}}}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var d diag.Diagnostics
			got := provisioningAdmissionCheckState(ctx, tc.server, provisioningAdmissionCheckModel{Parameters: types.MapNull(types.StringType)}, &d)
			if d.HasError() {
				t.Fatal(d)
			}
			if got.PodSetNodeSelectorUpdate.ValueBool() != tc.wantSelector {
				t.Errorf("pod_set_node_selector_update = %v, want %v", got.PodSetNodeSelectorUpdate, tc.wantSelector)
			}
			if got.ManagedResources.IsNull() || len(got.ManagedResources.Elements()) != tc.wantManaged {
				t.Errorf("managed_resources = %s, want %d elements (never null)", got.ManagedResources, tc.wantManaged)
			}
		})
	}
}
