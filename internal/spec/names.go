package spec

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// validateObjectName checks a cluster-scoped Kubernetes object name (a DNS-1123
// subdomain, as the apiserver requires for custom resources).
func validateObjectName(errs *FieldErrors, path Path, kind, name string) {
	if name == "" {
		errs.add(path, "Missing Name", "%s needs a name.", kind)
		return
	}
	if problems := validation.IsDNS1123Subdomain(name); len(problems) > 0 {
		errs.add(path, "Invalid Name",
			"%q is not a valid %s name: %s. Use lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, e.g. %q.",
			name, kind, strings.Join(problems, "; "), suggestName(name))
	}
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
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "my-object"
	}
	if len(out) > validation.DNS1123SubdomainMaxLength {
		out = strings.Trim(out[:validation.DNS1123SubdomainMaxLength], "-.")
	}
	return out
}
