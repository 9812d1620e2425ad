package resources

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

type localQueueModel struct {
	ID            types.String `tfsdk:"id"`
	Namespace     types.String `tfsdk:"namespace"`
	Name          types.String `tfsdk:"name"`
	ClusterQueue  types.String `tfsdk:"cluster_queue"`
	StopPolicy    types.String `tfsdk:"stop_policy"`
	WaitForActive types.Bool   `tfsdk:"wait_for_active"`
	ActiveTimeout types.String `tfsdk:"active_timeout"`
}

func (m localQueueModel) toSpec() spec.LocalQueue {
	return spec.LocalQueue{
		Namespace: m.Namespace.ValueString(), Name: m.Name.ValueString(),
		ClusterQueue: m.ClusterQueue.ValueString(), StopPolicy: m.StopPolicy.ValueString(),
	}
}

// known says which attributes are fully known, for plan-time validation.
func (m localQueueModel) known(ctx context.Context) map[string]bool {
	return knownAttrs(ctx, m)
}

// localQueueState is the server's view; the wait settings are not on the
// server and carry over from prior.
func localQueueState(s spec.LocalQueue, prior localQueueModel) localQueueModel {
	return localQueueModel{
		ID:            types.StringValue(s.Namespace + "/" + s.Name),
		Namespace:     types.StringValue(s.Namespace),
		Name:          types.StringValue(s.Name),
		ClusterQueue:  types.StringValue(s.ClusterQueue),
		StopPolicy:    types.StringValue(s.StopPolicy),
		WaitForActive: prior.WaitForActive,
		ActiveTimeout: prior.ActiveTimeout,
	}
}
