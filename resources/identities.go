package resources

import (
	"context"
	"encoding/json"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/reconcile"
)

// Each resource instance keeps, in its private state, the server's identity
// of every object it created or took over (a reconcile.Ledger: Kubernetes
// UIDs, Google service account uniqueIds, node pool creation ids), so a
// create never takes another configuration's object for its own, and a read
// or delete knows an object made again under the same name from the one it
// made. Private state is Terraform's per-instance store that plans do not
// show; it is saved with the state, also after a failed or interrupted apply
// that records what it wrote.

// privateIdentities is the private state key of the identities.
const privateIdentities = "identities"

// privateData is what the framework's private state of a request or a
// response offers.
type privateData interface {
	GetKey(ctx context.Context, key string) ([]byte, diag.Diagnostics)
	SetKey(ctx context.Context, key string, value []byte) diag.Diagnostics
}

// loadLedger starts the ledger of an operation: empty for a create (a
// create records only what it makes), the saved identities otherwise (none
// for state written before identities: reads then record what they find).
func loadLedger(ctx context.Context, p privateData, creating bool, diags *diag.Diagnostics) *reconcile.Ledger {
	if creating || p == nil {
		return reconcile.NewLedger(nil)
	}
	b, ds := p.GetKey(ctx, privateIdentities)
	diags.Append(ds...)
	var ids map[string]string
	if len(b) > 0 {
		if err := json.Unmarshal(b, &ids); err != nil {
			diags.AddWarning("Unreadable Private State",
				"The identities this resource recorded of its objects could not be read ("+err.Error()+"); they are recorded again from what is there now.")
		}
	}
	return reconcile.NewLedger(ids)
}

// saveLedger stores the ledger's identities in the response's private state.
func saveLedger(ctx context.Context, p privateData, l *reconcile.Ledger, diags *diag.Diagnostics) {
	if p == nil {
		return
	}
	ids := l.IDs()
	if len(ids) == 0 {
		diags.Append(p.SetKey(ctx, privateIdentities, nil)...)
		return
	}
	b, err := json.Marshal(ids)
	if err != nil {
		diags.AddError("Could Not Record Object Identities", err.Error())
		return
	}
	diags.Append(p.SetKey(ctx, privateIdentities, b)...)
}
