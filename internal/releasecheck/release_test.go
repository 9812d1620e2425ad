package releasecheck

import (
	"archive/zip"
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
)

const project = "terraform-provider-mlplatform"

// registryZip is the name the Terraform Registry reads a provider's release
// archives by: terraform-provider-<NAME>_<VERSION>_<OS>_<ARCH>.zip, VERSION
// a semantic version without the "v".
var registryZip = regexp.MustCompile(`^terraform-provider-([a-z0-9-]+)_(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)_([a-z0-9]+)_([a-z0-9]+)\.zip$`)

// The platforms the Registry gets from us.
var platforms = []string{"linux_amd64", "linux_arm64", "darwin_amd64", "darwin_arm64", "windows_amd64", "windows_arm64"}

type artifact struct {
	Name   string         `json:"name"`
	Path   string         `json:"path"`
	Goos   string         `json:"goos"`
	Goarch string         `json:"goarch"`
	Type   string         `json:"type"`
	Extra  map[string]any `json:"extra"`
}

// dist finds goreleaser's output: $MLPLATFORM_DIST or dist/ at the
// repository's root. Without a build it skips, unless make release-check
// runs it (MLPLATFORM_RELEASE_CHECK=1), where a missing build is a failure.
func dist(t *testing.T) (dir, version string, artifacts []artifact) {
	t.Helper()
	dir = os.Getenv("MLPLATFORM_DIST")
	if dir == "" {
		dir = filepath.Join("..", "..", "dist")
	}
	// goreleaser writes artifacts.json last: without it there is no build, or
	// one still running.
	raw, err := os.ReadFile(filepath.Join(dir, "artifacts.json"))
	if err != nil {
		if os.Getenv("MLPLATFORM_RELEASE_CHECK") == "1" {
			t.Fatalf("no finished goreleaser build in %s (%v): make release-check builds it first", dir, err)
		}
		t.Skipf("no finished goreleaser build in %s: run make release-check to build and check the release archives", dir)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(meta, &m); err != nil || m.Version == "" {
		t.Fatalf("%s/metadata.json: no version (%v)", dir, err)
	}
	if err := json.Unmarshal(raw, &artifacts); err != nil {
		t.Fatalf("%s/artifacts.json: %v", dir, err)
	}
	return dir, m.Version, artifacts
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestReleaseArchivesMatchRegistryLayout: the provider's zips, as goreleaser
// lists them in artifacts.json and as they are in dist/, are exactly one per
// platform, named as the Registry wants, each holding the binary alone; the
// SHA256SUMS covers them and the manifest; the signature is there when a key
// was configured.
func TestReleaseArchivesMatchRegistryLayout(t *testing.T) {
	dir, version, artifacts := dist(t)
	t.Logf("release %s in %s", version, dir)

	var fromArtifacts []string
	for _, a := range artifacts {
		if a.Type == "Archive" && strings.HasPrefix(a.Name, project+"_") {
			fromArtifacts = append(fromArtifacts, a.Name)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var fromDir []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), project+"_") && strings.HasSuffix(e.Name(), ".zip") {
			fromDir = append(fromDir, e.Name())
		}
	}
	sort.Strings(fromArtifacts)
	sort.Strings(fromDir)
	if strings.Join(fromArtifacts, " ") != strings.Join(fromDir, " ") {
		t.Errorf("artifacts.json lists %v, dist/ holds %v", fromArtifacts, fromDir)
	}

	want := map[string]bool{}
	for _, p := range platforms {
		want[project+"_"+version+"_"+p+".zip"] = true
	}
	for _, name := range fromDir {
		m := registryZip.FindStringSubmatch(name)
		if m == nil {
			t.Errorf("%s does not match the Registry's pattern %s", name, registryZip)
			continue
		}
		if m[1] != "mlplatform" || m[2] != version {
			t.Errorf("%s: provider %q version %q, want mlplatform %s", name, m[1], m[2], version)
		}
		if !want[name] {
			t.Errorf("%s: not one of the platforms %v", name, platforms)
		}
		delete(want, name)
		checkZip(t, filepath.Join(dir, name), version, m[3])
	}
	for name := range want {
		t.Errorf("missing %s", name)
	}

	// SHA256SUMS: every zip and the manifest, with the right hashes, nothing else.
	sumsName := project + "_" + version + "_SHA256SUMS"
	manifestName := project + "_" + version + "_manifest.json"
	f, err := os.Open(filepath.Join(dir, sumsName))
	if err != nil {
		t.Fatalf("no %s: %v", sumsName, err)
	}
	defer f.Close() //nolint:errcheck // read-only file
	listed := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			t.Errorf("%s: line %q is not \"<sha256>  <file>\"", sumsName, sc.Text())
			continue
		}
		listed[fields[1]] = fields[0]
	}
	for _, name := range fromDir {
		if got, want := listed[name], sha256File(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s lists %s as %q, the file's sha256 is %s", sumsName, name, got, want)
		}
		delete(listed, name)
	}
	if got, want := listed[manifestName], sha256File(t, filepath.Join("..", "..", "terraform-registry-manifest.json")); got != want {
		t.Errorf("%s lists %s as %q, terraform-registry-manifest.json's sha256 is %s", sumsName, manifestName, got, want)
	}
	delete(listed, manifestName)
	for name := range listed {
		t.Errorf("%s lists %s, which the Registry does not read", sumsName, name)
	}

	// The manifest the release uploads, beside the zips.
	if b, err := os.ReadFile(filepath.Join(dir, manifestName)); err != nil {
		t.Errorf("no %s in %s: %v", manifestName, dir, err)
	} else {
		var m struct {
			Version  int `json:"version"`
			Metadata struct {
				ProtocolVersions []string `json:"protocol_versions"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(b, &m); err != nil || m.Version != 1 || strings.Join(m.Metadata.ProtocolVersions, ",") != "6.0" {
			t.Errorf("%s: %s (%v), want version 1 and protocol_versions [6.0]", manifestName, b, err)
		}
	}

	sig := filepath.Join(dir, sumsName+".sig")
	_, sigErr := os.Stat(sig)
	switch {
	case os.Getenv("GPG_FINGERPRINT") != "" && sigErr != nil:
		t.Errorf("GPG_FINGERPRINT is set but %s is missing: %v", sig, sigErr)
	case sigErr != nil:
		t.Logf("%s not signed: no GPG_FINGERPRINT configured (the Registry needs %s.sig; a real release sets the key)", sumsName, sumsName)
	}
}

// checkZip: the Registry's zip holds the provider binary alone, named
// terraform-provider-mlplatform_v<version>[.exe].
func checkZip(t *testing.T, path, version, goos string) {
	t.Helper()
	r, err := zip.OpenReader(path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	defer r.Close() //nolint:errcheck // read-only archive
	want := project + "_v" + version
	if goos == "windows" {
		want += ".exe"
	}
	var names []string
	for _, f := range r.File {
		names = append(names, f.Name)
	}
	if len(names) != 1 || names[0] != want {
		t.Errorf("%s holds %v, want only %s", filepath.Base(path), names, want)
	}
}

// TestReleaseBinariesReportTheVersion: the snapshot's provider and CLI for
// this machine print the release's version (set by ldflags -X main.version).
func TestReleaseBinariesReportTheVersion(t *testing.T) {
	_, version, artifacts := dist(t)
	found := map[string]string{}
	for _, a := range artifacts {
		if a.Type == "Binary" && a.Goos == runtime.GOOS && a.Goarch == runtime.GOARCH {
			id, _ := a.Extra["ID"].(string)
			found[id] = a.Path
		}
	}
	for _, tc := range []struct{ id, arg, want string }{
		{"provider", "-version", project + " " + version},
		{"cli", "version", "mlplatform " + version},
	} {
		path, ok := found[tc.id]
		if !ok {
			t.Errorf("artifacts.json has no %s binary for %s/%s", tc.id, runtime.GOOS, runtime.GOARCH)
			continue
		}
		if !filepath.IsAbs(path) {
			path = filepath.Join("..", "..", path)
		}
		out, err := exec.Command(path, tc.arg).CombinedOutput()
		if err != nil {
			t.Errorf("%s %s: %v\n%s", path, tc.arg, err, out)
			continue
		}
		if got := string(bytes.TrimSpace(out)); got != tc.want {
			t.Errorf("%s %s printed %q, want %q", filepath.Base(path), tc.arg, got, tc.want)
		} else {
			t.Logf("%s %s: %s", filepath.Base(path), tc.arg, got)
		}
	}
}
