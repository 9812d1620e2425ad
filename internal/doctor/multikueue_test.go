package doctor

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Where the workers were not asked, or one could not be, doctor says so in
// a note and gives no DOC019 verdict on their access.
func TestMultiKueueWorkerNotes(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		workers []WorkerAccess
		want    string
	}{
		"not asked": {nil, "the MultiKueue workers (worker-1) were not asked what the manager may do there (DOC019): --multikueue-workers reads their " +
			"kubeconfig Secrets in kueue-system to ask"},
		"could not ask": {[]WorkerAccess{{Cluster: "worker-1", Err: errors.New("read Secret kueue-system/worker-1-kubeconfig: forbidden")}},
			"MultiKueue worker worker-1 could not be asked what the manager may do there: read Secret kueue-system/worker-1-kubeconfig: forbidden; " +
				"DOC019 gives no verdict for it"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := healthy()
			s.Workers = tc.workers
			res := Analyze(s, Options{})
			if res.Failed() {
				t.Fatalf("findings: %+v", res.Findings)
			}
			if !slices.Contains(res.Notes, tc.want) {
				t.Errorf("notes %q lack %q", res.Notes, tc.want)
			}
		})
	}
}

// A worker kubeconfig from a Secret is used only when everything it needs
// is inline: doctor runs no command and reads no file on a Secret's say.
func TestWorkerConfigRefusesPluginsAndFiles(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: v1\nkind: Config\ncurrent-context: w\ncontexts:\n- name: w\n  context: {cluster: w, user: w}\n"
	const inlineCluster = "clusters:\n- name: w\n  cluster: {server: 'https://10.0.0.2', certificate-authority-data: Zm9v}\n"
	for name, tc := range map[string]struct {
		kubeconfig string
		err        string
	}{
		"inline token and CA": {head + inlineCluster + "users:\n- name: w\n  user: {token: t}\n", ""},
		"empty":               {"", `no key "kubeconfig"`},
		"credential plugin": {head + inlineCluster + "users:\n- name: w\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: gke-gcloud-auth-plugin}\n",
			`user "w" runs a credential plugin, which doctor does not run from a Secret`},
		"token file": {head + inlineCluster + "users:\n- name: w\n  user: {tokenFile: /var/run/secrets/token}\n",
			`user "w" names files, which doctor does not read on a Secret's say`},
		"client key file": {head + inlineCluster + "users:\n- name: w\n  user: {client-certificate: /c.pem, client-key: /k.pem}\n",
			`user "w" names files`},
		"CA file": {head + "clusters:\n- name: w\n  cluster: {server: 'https://10.0.0.2', certificate-authority: /ca.pem}\nusers:\n- name: w\n  user: {token: t}\n",
			`cluster "w" names a CA file, which doctor does not read on a Secret's say`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := workerConfig([]byte(tc.kubeconfig))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if tc.err == "" && got != "" || tc.err != "" && !strings.Contains(got, tc.err) {
				t.Errorf("%s", cmp.Diff(tc.err, got))
			}
		})
	}
}
