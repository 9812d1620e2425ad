package reconcile

import (
	"encoding/json"
	"testing"
)

// readBack marshals an apply configuration and reads it as the server
// object, as a server would store it (without defaulting or webhooks).
func readBack[AC any, O any, S any](t *testing.T, ac AC, read func(*O) S) S {
	t.Helper()
	data, err := json.Marshal(ac)
	if err != nil {
		t.Fatal(err)
	}
	obj := new(O)
	if err := json.Unmarshal(data, obj); err != nil {
		t.Fatal(err)
	}
	return read(obj)
}
