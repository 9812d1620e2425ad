package testenv

import "testing"

// The ports an environment is given lie below the kernel's ephemeral range,
// where no outgoing connection takes them between the pick and the use.
func TestFreePortsBelowTheEphemeralRange(t *testing.T) {
	t.Parallel()
	low := ephemeralLow()
	ports, err := freePorts(50)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p < 10000 || p >= low {
			t.Errorf("port %d is outside 10000-%d", p, low-1)
		}
		if seen[p] {
			t.Errorf("port %d given twice", p)
		}
		seen[p] = true
	}
	if len(ports) != 50 {
		t.Errorf("got %d ports, want 50", len(ports))
	}
}
