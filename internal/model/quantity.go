package model

import "k8s.io/apimachinery/pkg/api/resource"

// QState says whether a quantity is set, known only after apply, or absent
// (the attribute is null, or the object does not exist on that side).
type QState int

// The states.
const (
	QAbsent QState = iota
	QUnknown
	QKnown
)

// Qty is a Kubernetes quantity as a source holds it: compared by value, so
// "16" and "16000m" are equal, and shown as written.
type Qty struct {
	State   QState
	Raw     string
	q       resource.Quantity
	invalid bool // Raw is not a quantity; compared as text
}

// KnownQty is the quantity s.
func KnownQty(s string) Qty {
	q, err := resource.ParseQuantity(s)
	return Qty{State: QKnown, Raw: s, q: q, invalid: err != nil}
}

// UnknownQty is a quantity known only after apply.
func UnknownQty() Qty { return Qty{State: QUnknown} }

// QtyOf is a quantity attribute's value: absent when "", unknown when
// unknown says so.
func QtyOf(s string, unknown bool) Qty {
	switch {
	case unknown:
		return UnknownQty()
	case s == "":
		return Qty{}
	}
	return KnownQty(s)
}

// Invalid reports a known value that is not a quantity.
func (a Qty) Invalid() bool { return a.invalid }

// Equal compares by value.
func (a Qty) Equal(b Qty) bool {
	if a.State != b.State {
		return false
	}
	if a.State != QKnown {
		return true
	}
	if a.invalid || b.invalid {
		return a.Raw == b.Raw
	}
	return a.q.Cmp(b.q) == 0
}

// OrZero treats an absent quantity as zero (a quota not granted is 0).
func (a Qty) OrZero() Qty {
	if a.State == QAbsent {
		return Qty{State: QKnown, Raw: "0"}
	}
	return a
}

// Plus adds; unknown (or not a quantity) wins.
func (a Qty) Plus(b Qty) Qty {
	a, b = a.OrZero(), b.OrZero()
	if a.State == QUnknown || b.State == QUnknown || a.invalid || b.invalid {
		return Qty{State: QUnknown}
	}
	s := a.q.DeepCopy()
	s.Add(b.q)
	return Qty{State: QKnown, Raw: s.String(), q: s}
}

// Minus is a − b, or unknown.
func (a Qty) Minus(b Qty) Qty {
	a, b = a.OrZero(), b.OrZero()
	if a.State == QUnknown || b.State == QUnknown || a.invalid || b.invalid {
		return Qty{State: QUnknown}
	}
	s := a.q.DeepCopy()
	s.Sub(b.q)
	return Qty{State: QKnown, Raw: s.String(), q: s}
}

// Less compares known quantities.
func (a Qty) Less(b Qty) bool { return a.q.Cmp(b.q) < 0 }

// Sign is -1, 0 or 1.
func (a Qty) Sign() int { return a.q.Sign() }

// Whole reports whether a known quantity is a whole number (an extended
// resource like nvidia.com/gpu cannot be requested in fractions).
func (a Qty) Whole() bool {
	if a.State != QKnown || a.invalid {
		return true
	}
	return a.q.MilliValue()%1000 == 0
}

// Signed renders a delta: "+8", "-512Mi", "0".
func (a Qty) Signed() string {
	switch {
	case a.State == QUnknown:
		return UnknownText
	case a.Sign() > 0:
		return "+" + a.Raw
	}
	return a.Raw
}

// Text renders the quantity, absent as the given text.
func (a Qty) Text(absent string) string {
	switch a.State {
	case QAbsent:
		return absent
	case QUnknown:
		return UnknownText
	}
	return a.Raw
}

// UnknownText is how a value known only after apply reads.
const UnknownText = "(known after apply)"

// TextQty is a known value that is not a quantity, compared as text (a
// pool's accelerator, shown where quantities are).
func TextQty(s string) Qty { return Qty{State: QKnown, Raw: s, invalid: true} }
