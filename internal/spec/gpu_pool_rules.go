package spec

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The Google Cloud and GKE rules a GPU pool's attributes follow, each with
// where it comes from, and plain-language checks for them: each *Problem
// function returns "" when its input is valid, else what is wrong, in words
// (no regular expression is quoted).

// GKE and Compute Engine limits.
const (
	// poolNameMaxLen: GKE node pool and cluster names are 1 to 40
	// lower-case letters, digits and '-', starting with a letter and not
	// ending with '-' (GKE's naming rule for node pools and clusters; the
	// API refuses longer names).
	poolNameMaxLen = 40
	// poolComputeNameMaxLen: Compute Engine resource names (reservations
	// among them) are 1 to 63 characters, a lower-case letter, then
	// lower-case letters, digits and '-', not ending with '-' (RFC 1035;
	// Compute Engine "Naming resources").
	poolComputeNameMaxLen = 63
	// poolMinDiskGB: containerpb NodeConfig.disk_size_gb, "The smallest
	// allowed disk size is 10GB."
	poolMinDiskGB = 10
	// poolMaxPDDiskGB: "Persistent Disk volumes can be up to 64 TiB in
	// size" (Compute Engine, About Persistent Disk). Hyperdisk Balanced's
	// own maximum is not checked: no source at hand confirmed it.
	poolMaxPDDiskGB = 64 * 1024
	// poolMaxNodesPerZone: "Nodes per node pool zone: 1,000" (GKE, Quotas
	// and limits).
	poolMaxNodesPerZone = 1000
	// poolMaxNodeLabelChars: containerpb NodeConfig.labels, "This field
	// supports up to 1,024 total characters in a single request."
	poolMaxNodeLabelChars = 1024
	// poolMaxResourceLabels: Google Cloud resources carry at most 64
	// labels (Resource Manager, "Requirements for labels").
	poolMaxResourceLabels = 64
	// poolLabelMaxChars: Google Cloud label keys are 1 to 63 characters,
	// values 0 to 63 (Resource Manager, "Requirements for labels").
	poolLabelMaxChars = 63
	// poolMinRunDuration: flex-start nodes must run at least 10 minutes.
	// This minimum comes from the platform's issue 14; no GKE or Compute
	// Engine page at hand states it. The 7-day maximum is GKE's ("Flex-start
	// lets you dynamically provision accelerators as needed, for up to
	// seven days", GKE, About flex-start).
	poolMinRunDuration = 10 * time.Minute
)

// poolNameProblem checks a GKE node pool or cluster name (max 40) or a
// Compute Engine resource name (max 63): lower-case letters, digits and
// '-', starting with a letter, not ending with '-'.
func poolNameProblem(s string, maxLen int) string {
	switch {
	case s == "":
		return "it is empty"
	case len(s) > maxLen:
		return fmt.Sprintf("it is %d characters long; the limit is %d", len(s), maxLen)
	case strings.ToLower(s) != s:
		return "it has upper-case letters; use lower case"
	}
	if bad := badRunes(s, func(r rune) bool { return isLowerAlnum(r) || r == '-' }); bad != "" {
		return "it contains " + bad + "; only lower-case letters, digits and '-' are allowed"
	}
	if s[0] < 'a' || s[0] > 'z' {
		return fmt.Sprintf("it starts with %q; begin with a letter", s[0])
	}
	if s[len(s)-1] == '-' {
		return "it ends with '-'; end with a letter or digit"
	}
	return ""
}

// poolSuggestName turns s into a valid name of at most maxLen characters,
// for error messages.
func poolSuggestName(s string, maxLen int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if isLowerAlnum(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if out == "" || out[0] < 'a' || out[0] > 'z' {
		out = "gpu-" + out
	}
	if len(out) > maxLen {
		out = out[:maxLen]
	}
	return strings.TrimRight(out, "-")
}

// poolRegionOK reports whether s is shaped like a Compute Engine region:
// a word of letters, '-', then letters ending in digits, e.g. "us-central1",
// "europe-west4", "northamerica-northeast1".
func poolRegionOK(s string) bool {
	area, place, ok := strings.Cut(s, "-")
	if !ok || area == "" || place == "" || strings.Contains(place, "-") {
		return false
	}
	for _, r := range area {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	letters := strings.TrimRight(place, "0123456789")
	if letters == "" || letters == place {
		return false
	}
	for _, r := range letters {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// poolZoneOK reports whether s is shaped like a Compute Engine zone: a
// region, '-' and one letter, e.g. "us-central1-a".
func poolZoneOK(s string) bool {
	i := strings.LastIndex(s, "-")
	return i > 0 && len(s) == i+2 && s[i+1] >= 'a' && s[i+1] <= 'z' && poolRegionOK(s[:i])
}

// poolZoneProblem checks a zone name (node_locations).
func poolZoneProblem(z string) string {
	switch {
	case z == "":
		return "it is empty"
	case strings.ToLower(z) != z:
		return "it has upper-case letters; zone names are lower case"
	case poolRegionOK(z):
		return "it is a region; a zone is a region, '-' and a letter"
	case !poolZoneOK(z):
		return "a zone is a region, '-' and a letter"
	}
	return ""
}

// poolLocationProblem checks a cluster location: a region or a zone.
func poolLocationProblem(l string) string {
	switch {
	case l == "":
		return "it is empty"
	case strings.ToLower(l) != l:
		return "it has upper-case letters; locations are lower case"
	case !poolRegionOK(l) && !poolZoneOK(l):
		return "it is neither a region nor a zone"
	}
	return ""
}

// poolRegionOf returns the region of a well-formed region or zone name.
func poolRegionOf(location string) string {
	if poolZoneOK(location) {
		return location[:strings.LastIndex(location, "-")]
	}
	return location
}

// poolProjectProblem checks a project ID: "a unique string of 6 to 30
// lowercase letters, digits, or hyphens. It must start with a letter, and
// cannot have a trailing hyphen" (Resource Manager, Creating and managing
// projects); a domain-scoped project is DOMAIN:ID.
func poolProjectProblem(p string) string {
	id := p
	if domain, rest, ok := strings.Cut(p, ":"); ok {
		if problem := DNSSubdomainProblem(domain); problem != "" {
			return fmt.Sprintf("its domain %q is not a domain name: %s", domain, problem)
		}
		id = rest
	}
	switch {
	case id == "":
		return "it is empty"
	case len(id) < 6 || len(id) > 30:
		return fmt.Sprintf("it is %d characters long; a project ID has 6 to 30", len(id))
	}
	return poolNameProblem(id, 30)
}

// poolServiceAccountProblem checks a node service account: "Specify the
// email address of the Service Account; otherwise, if no Service Account is
// specified, the "default" service account is used" (containerpb
// NodeConfig.service_account; GKE reports the default one as "default").
// Google service accounts' addresses end in .gserviceaccount.com:
// NAME@PROJECT.iam.gserviceaccount.com, or
// PROJECT_NUMBER-compute@developer.gserviceaccount.com for the Compute
// Engine default (IAM, Service accounts overview).
func poolServiceAccountProblem(s string) string {
	if s == "default" {
		return ""
	}
	local, domain, isEmail := strings.Cut(s, "@")
	switch {
	case strings.ContainsAny(s, " \t\n"):
		return "it contains a space"
	case !isEmail:
		return "it is not an e-mail address"
	case strings.Contains(domain, "@"):
		return "it has more than one '@'"
	case local == "":
		return "it has nothing before '@'"
	case strings.ToLower(s) != s:
		return "it has upper-case letters; service account e-mails are lower case"
	case !strings.HasSuffix(domain, ".gserviceaccount.com"):
		return fmt.Sprintf("%q is not a service account domain (those end in .gserviceaccount.com); a person's or a group's e-mail cannot run nodes", domain)
	}
	return ""
}

// poolIsLabelRune reports the characters Google Cloud labels allow: "lowercase
// letters, numeric characters, underscores, and dashes", international
// characters included (Resource Manager, "Requirements for labels").
func poolIsLabelRune(r rune) bool {
	return unicode.IsLower(r) || unicode.Is(unicode.Lo, r) || unicode.IsNumber(r) || r == '_' || r == '-'
}

// poolResourceLabelKeyProblem checks a Google Cloud label key: 1 to 63
// characters, starting with a lower-case letter (or an international
// character), then lower-case letters, digits, '_' and '-'.
func poolResourceLabelKeyProblem(k string) string {
	if k == "" {
		return "it is empty"
	}
	if p := poolResourceLabelValueProblem(k); p != "" {
		return p
	}
	if r, _ := utf8.DecodeRuneInString(k); !unicode.IsLower(r) && !unicode.Is(unicode.Lo, r) {
		return fmt.Sprintf("it starts with %q; begin with a lower-case letter", r)
	}
	return ""
}

// poolResourceLabelValueProblem checks a Google Cloud label value: at most
// 63 lower-case letters, digits, '_' and '-' (empty is allowed).
func poolResourceLabelValueProblem(v string) string {
	if n := utf8.RuneCountInString(v); n > poolLabelMaxChars {
		return fmt.Sprintf("it is %d characters long; the limit is %d", n, poolLabelMaxChars)
	}
	if strings.ToLower(v) != v {
		return "it has upper-case letters; Google Cloud labels are lower case"
	}
	if bad := badRunes(v, poolIsLabelRune); bad != "" {
		return "it contains " + bad + "; only lower-case letters, digits, '_' and '-' are allowed"
	}
	return ""
}

// poolKubeletLabels are the node labels the kubelet and GKE set on every
// node themselves: the kubelet's own set (k8s.io/kubelet/pkg/apis
// well_known_labels.go kubeletLabels). containerpb NodeConfig.labels: keys
// that "conflict with the keys of the default labels" make the result
// unpredictable: "avoid label key conflicts".
var poolKubeletLabels = []string{
	"beta.kubernetes.io/arch", "beta.kubernetes.io/instance-type", "beta.kubernetes.io/os",
	"failure-domain.beta.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
	"kubernetes.io/arch", "kubernetes.io/hostname", "kubernetes.io/os",
	"node.kubernetes.io/instance-type", "topology.kubernetes.io/region", "topology.kubernetes.io/zone",
}

// poolKubernetesLabelRefused reports node label keys in the kubernetes.io or
// k8s.io namespaces the kubelet refuses to start with: it allows only
// kubelet.kubernetes.io/ and node.kubernetes.io/ keys there, besides its own
// set ("unknown 'kubernetes.io' or 'k8s.io' labels specified with
// --node-labels", k8s.io/kubernetes cmd/kubelet/app/options
// ValidateKubeletFlags; kubeletLabelNamespaces in k8s.io/kubelet). GKE
// applies a pool's labels through the kubelet, so its nodes would not start.
func poolKubernetesLabelRefused(key string) bool {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	in := func(domain string) bool { return ns == domain || strings.HasSuffix(ns, "."+domain) }
	return (in("kubernetes.io") || in("k8s.io")) && !in("kubelet.kubernetes.io") && !in("node.kubernetes.io")
}

// poolKubernetesTaints are the taints Kubernetes adds and removes on nodes
// itself (k8s.io/api/core/v1 well_known_taints.go; k8s.io/cloud-provider
// api/well_known_taints.go): the node lifecycle controller sets them from
// the node's conditions, and out-of-service force-deletes a node's pods.
var poolKubernetesTaints = []string{
	"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/unschedulable",
	"node.kubernetes.io/memory-pressure", "node.kubernetes.io/disk-pressure", "node.kubernetes.io/network-unavailable",
	"node.kubernetes.io/pid-pressure", "node.kubernetes.io/out-of-service",
	"node.cloudprovider.kubernetes.io/uninitialized", "node.cloudprovider.kubernetes.io/shutdown",
}

// Boot disk types. GKE node boot disks are pd-balanced (the default since
// GKE 1.24), pd-standard, pd-ssd or hyperdisk-balanced (GKE, Customize node
// boot disks); "Hyperdisk Balanced and Hyperdisk Balanced High Availability
// are the only Hyperdisk types you can use as a boot disk" (Compute Engine,
// About Hyperdisk Balanced), and GKE boot disks are zonal. pd-extreme is a
// Compute Engine boot disk type none of the families here take.
var (
	poolBootDiskTypes    = []string{"pd-balanced", "pd-ssd", "pd-standard", "hyperdisk-balanced"}
	poolNonBootDiskTypes = []string{"hyperdisk-extreme", "hyperdisk-throughput", "hyperdisk-ml", "hyperdisk-balanced-high-availability"}
	// poolFamilyDiskTypes: the disk types each machine series supports
	// (Compute Engine, Accelerator-optimized machine family, "Supported
	// disk types": A3 High and Mega Hyperdisk Balanced/Extreme/ML/
	// Throughput, Balanced PD, SSD PD; A2 Hyperdisk ML, Standard, Balanced
	// and SSD PD; G2 Hyperdisk ML/Throughput, Balanced and SSD PD), kept to
	// those that can boot.
	// A3 Ultra (a3-ultragpu-*) and A4 support Hyperdisk only (Balanced,
	// Extreme, ML, Throughput: Compute Engine, Accelerator-optimized
	// machine family, A4 and A3 Ultra "Supported disk types"), so they boot
	// from hyperdisk-balanced alone; N1 takes Standard, Balanced and SSD PD
	// and no Hyperdisk (General-purpose machine family, N1).
	poolFamilyDiskTypes = map[string][]string{
		"a2":          {"pd-balanced", "pd-ssd", "pd-standard"},
		"a3":          {"pd-balanced", "pd-ssd", "hyperdisk-balanced"},
		"a3-ultragpu": {"hyperdisk-balanced"},
		"a4":          {"hyperdisk-balanced"},
		"g2":          {"pd-balanced", "pd-ssd"},
		"n1":          {"pd-balanced", "pd-ssd", "pd-standard"},
	}
	// poolSeriesNames name the series whose key is not just the family.
	poolSeriesNames = map[string]string{"a3-ultragpu": "A3 Ultra"}
)

// poolDiskTypeProblem checks a boot disk type for machines of family (""
// when the family is not known).
func poolDiskTypeProblem(t, family, machineType string) string {
	lower := strings.ToLower(t)
	switch {
	case lower != t && (slices.Contains(poolBootDiskTypes, lower) || lower == "pd-extreme"):
		return fmt.Sprintf("disk types are written in lower case: use %q", lower)
	case slices.Contains(poolNonBootDiskTypes, t):
		return fmt.Sprintf("%s cannot be a boot disk: the only Hyperdisk type a GKE node boots from is hyperdisk-balanced. Use %s", t, poolOrList(poolFamilyOr(family)))
	case !slices.Contains(poolBootDiskTypes, t) && t != "pd-extreme":
		return fmt.Sprintf("%q is not a boot disk type GKE offers; use %s", t, poolOrList(poolFamilyOr(family)))
	}
	if ok, known := poolFamilyDiskTypes[family]; known && !slices.Contains(ok, t) {
		name := poolSeriesNames[family]
		if name == "" {
			name = strings.ToUpper(family)
		}
		return fmt.Sprintf("%s machines (%s) do not take %s disks; use %s", name, machineType, t, poolOrList(ok))
	}
	return ""
}

func poolFamilyOr(family string) []string {
	if ok, known := poolFamilyDiskTypes[family]; known {
		return ok
	}
	return poolBootDiskTypes
}

// orList writes ss as "a, b or c".
func poolOrList(ss []string) string {
	if len(ss) == 1 {
		return ss[0]
	}
	return strings.Join(ss[:len(ss)-1], ", ") + " or " + ss[len(ss)-1]
}

// poolFamily is the machine series ("a2", "a3", "g2", "n1") of a catalog
// machine type name, or "a3-ultragpu" for A3 Ultra, whose disks differ
// from the rest of A3's.
func poolFamily(machineType string) string {
	if strings.HasPrefix(machineType, "a3-ultragpu-") {
		return "a3-ultragpu"
	}
	family, _, _ := strings.Cut(machineType, "-")
	return family
}

// FormatDuration writes d as people configure it ("72h", "90m").
func FormatDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}
