package report

import (
	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

// Qty is a Kubernetes quantity as the plan holds it (model.Qty).
type Qty = model.Qty

// States of a Qty.
const (
	qAbsent  = model.QAbsent
	qUnknown = model.QUnknown
	qKnown   = model.QKnown
)

const unknownText = model.UnknownText

// gpuResource is the resource the capacity check and cost count.
const gpuResource = spec.GPUResource
