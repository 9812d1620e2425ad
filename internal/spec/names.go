package spec

import "strings"

// validateObjectName checks a Kubernetes object name: a DNS-1123 subdomain,
// as the API server requires of every custom resource's metadata.name
// (k8s.io/apimachinery/pkg/api/validation NameIsDNSSubdomain). Kueue's
// references to ClusterQueues, Cohorts, ResourceFlavors and Topologies follow
// the same rule (apis/kueue/v1beta2: ClusterQueueReference, CohortReference,
// ResourceFlavorReference, TopologyReference: MaxLength=253 and the DNS
// subdomain Pattern). kind names the object, e.g. "ClusterQueue".
func validateObjectName(errs *FieldErrors, path Path, kind, name string) {
	if name == "" {
		errs.add(path, "Missing Name", "the %s needs a name: at most 253 lower-case letters, digits, '-' and '.', e.g. %q.", kind, exampleName(kind))
		return
	}
	checkObjectName(errs, path, kind, name)
}

// validateReference checks name, the value of attribute attr, which names
// an object of kind (a Cohort, a ClusterQueue, a Topology...) by its
// metadata.name; example is what to write, e.g. `"research"`.
func validateReference(errs *FieldErrors, path Path, attr, kind, example, name string) {
	if name == "" {
		errs.add(path, "Missing "+kind+" Name", "%s is empty; set it to the name of the %s, e.g. %s.", attr, kind, example)
		return
	}
	checkObjectName(errs, path, kind, name)
}

func checkObjectName(errs *FieldErrors, path Path, kind, name string) {
	if p := DNSSubdomainProblem(name); p != "" {
		errs.add(path, "Invalid Name",
			"%q is not a valid %s name: %s. %s names are at most 253 lower-case letters, digits, '-' and '.', "+
				"each part between dots beginning and ending with a letter or digit; write e.g. %q.",
			name, kind, p, kind, suggestName(name))
	}
}

// exampleName is a name an object of kind might have, for messages.
func exampleName(kind string) string {
	switch kind {
	case "ClusterQueue":
		return "team-vision"
	case "Cohort":
		return "research"
	case "LocalQueue":
		return "gpu"
	case "ResourceFlavor":
		return "h100-spot"
	case "WorkloadPriorityClass":
		return "high-priority"
	case "AdmissionCheck":
		return "dws"
	case "Topology":
		return "gke-default"
	}
	return "my-object"
}

// suggestName turns s into a valid DNS-1123 subdomain, for error messages.
func suggestName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	out := b.String()
	// Each part between dots must begin and end with a letter or digit.
	parts := strings.Split(out, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p = strings.Trim(p, "-"); p != "" {
			kept = append(kept, p)
		}
	}
	out = strings.Join(kept, ".")
	if out == "" {
		return "my-object"
	}
	if len(out) > dnsSubdomainMaxLength {
		out = strings.Trim(out[:dnsSubdomainMaxLength], "-.")
	}
	return out
}

// suggestLabel turns s into a valid DNS-1123 label, for error messages.
func suggestLabel(s string) string {
	out := strings.ReplaceAll(suggestName(s), ".", "-")
	if len(out) > dnsLabelMaxLength {
		out = strings.Trim(out[:dnsLabelMaxLength], "-")
	}
	return out
}
