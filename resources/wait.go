package resources

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Settings shared by queues: wait until Kueue reports the queue active after
// create and update, so a queue that cannot admit anything fails the apply
// with Kueue's reason instead of silently doing nothing.
const defaultActiveTimeout = "2m"

func waitAttributes(what string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"wait_for_active": schema.BoolAttribute{Optional: true, Computed: true, Default: booldefault.StaticBool(true),
			MarkdownDescription: "After create and update, wait until Kueue reports the " + what + " active, and fail with Kueue's reason " +
				"(in plain words) if it does not become active within `active_timeout`. Skipped while `stop_policy` holds the queue. Default `true`."},
		"active_timeout": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString(defaultActiveTimeout),
			Validators:          []validator.String{durationValidator{}},
			MarkdownDescription: "How long to wait for the " + what + " to become active, as a Go duration (`90s`, `5m`). Default `" + defaultActiveTimeout + "`."},
	}
}

// waitSettings are the two attributes above, read from a model.
func waitSettings(wait types.Bool, timeout types.String) (bool, time.Duration) {
	d, err := time.ParseDuration(timeout.ValueString())
	if err != nil || d <= 0 {
		d, _ = time.ParseDuration(defaultActiveTimeout)
	}
	return wait.IsNull() || wait.IsUnknown() || wait.ValueBool(), d
}

// waitDefaults are the values an imported queue gets.
func waitDefaults() map[string]attr.Value {
	return map[string]attr.Value{"wait_for_active": types.BoolValue(true), "active_timeout": types.StringValue(defaultActiveTimeout)}
}

type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "a positive Go duration such as 90s or 5m"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }
func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration",
			fmt.Sprintf("Attribute %s: %q is not a positive duration; write it like 90s, 5m or 1h.", req.Path, req.ConfigValue.ValueString()))
	}
}
