package acctest

import (
	"encoding/base64"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

// CredentialMarkers are the secrets in a kubeconfig (client keys, tokens,
// passwords), raw and base64-encoded, and a line of each PEM key body.
func CredentialMarkers(t *testing.T, kubeconfig string) []string {
	t.Helper()
	cfg, err := clientcmd.Load([]byte(kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range cfg.AuthInfos {
		if len(a.ClientKeyData) > 0 {
			out = append(out, base64.StdEncoding.EncodeToString(a.ClientKeyData))
			for _, line := range strings.Split(string(a.ClientKeyData), "\n") {
				if len(line) > 40 && !strings.HasPrefix(line, "-----") {
					out = append(out, line)
				}
			}
		}
		for _, s := range []string{a.Token, a.Password} {
			if s != "" {
				out = append(out, s)
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("the test kubeconfig holds no credential: the check would prove nothing")
	}
	return out
}
