package report

import (
	"k8s.io/apimachinery/pkg/api/resource"
)

// qstate says whether a quantity is set, unknown until apply, or absent
// (the attribute is null or the object does not exist on that side).
type qstate int

const (
	qAbsent qstate = iota
	qUnknown
	qKnown
)

// Qty is a Kubernetes quantity as the plan holds it: compared by value, so
// "16" and "16000m" are equal, and shown as written.
type Qty struct {
	State   qstate
	Raw     string
	q       resource.Quantity
	invalid bool // Raw is not a quantity; compared as text
}

func qtyOf(n node) Qty {
	if n.unknown() {
		return Qty{State: qUnknown}
	}
	s, ok := n.str()
	if !ok {
		return Qty{}
	}
	return knownQty(s)
}

func knownQty(s string) Qty {
	q, err := resource.ParseQuantity(s)
	return Qty{State: qKnown, Raw: s, q: q, invalid: err != nil}
}

func (a Qty) equal(b Qty) bool {
	if a.State != b.State {
		return false
	}
	if a.State != qKnown {
		return true
	}
	if a.invalid || b.invalid {
		return a.Raw == b.Raw
	}
	return a.q.Cmp(b.q) == 0
}

// orZero treats an absent quantity as zero (a quota not granted is 0).
func (a Qty) orZero() Qty {
	if a.State == qAbsent {
		return Qty{State: qKnown, Raw: "0"}
	}
	return a
}

// plus adds; unknown (or not a quantity) wins.
func (a Qty) plus(b Qty) Qty {
	a, b = a.orZero(), b.orZero()
	if a.State == qUnknown || b.State == qUnknown || a.invalid || b.invalid {
		return Qty{State: qUnknown}
	}
	s := a.q.DeepCopy()
	s.Add(b.q)
	return Qty{State: qKnown, Raw: s.String(), q: s}
}

// minus is a − b, or unknown.
func (a Qty) minus(b Qty) Qty {
	a, b = a.orZero(), b.orZero()
	if a.State == qUnknown || b.State == qUnknown || a.invalid || b.invalid {
		return Qty{State: qUnknown}
	}
	s := a.q.DeepCopy()
	s.Sub(b.q)
	return Qty{State: qKnown, Raw: s.String(), q: s}
}

func (a Qty) less(b Qty) bool { return a.q.Cmp(b.q) < 0 }

func (a Qty) sign() int { return a.q.Sign() }

// signed renders a delta: "+8", "-512Mi", "0".
func (a Qty) signed() string {
	switch {
	case a.State == qUnknown:
		return unknownText
	case a.sign() > 0:
		return "+" + a.Raw
	}
	return a.Raw
}

func (a Qty) text(absent string) string {
	switch a.State {
	case qAbsent:
		return absent
	case qUnknown:
		return unknownText
	}
	return a.Raw
}

const unknownText = "(known after apply)"

// gpuResource is the resource the capacity check and cost count.
const gpuResource = "nvidia.com/gpu"
