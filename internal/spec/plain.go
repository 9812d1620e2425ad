package spec

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Plain-language checks of Kubernetes names, keys and values. They follow
// the rules k8s.io/apimachinery/pkg/util/validation applies (and the API
// server enforces), but say what is wrong in words, without quoting its
// regular expressions. Each returns "" when s is valid.

// Limits from k8s.io/apimachinery/pkg/util/validation.
const (
	dnsLabelMaxLength     = 63
	dnsSubdomainMaxLength = 253
	labelValueMaxLength   = 63
	qualifiedNameMaxLen   = 63
)

func isLowerAlnum(r rune) bool { return (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') }
func isAlnum(r rune) bool      { return isLowerAlnum(r) || (r >= 'A' && r <= 'Z') }

// badRunes lists, quoted, the distinct characters of s that allowed rejects.
func badRunes(s string, allowed func(rune) bool) string {
	var bad []string
	seen := map[rune]bool{}
	for _, r := range s {
		if !allowed(r) && !seen[r] {
			seen[r] = true
			switch r {
			case ' ':
				bad = append(bad, "a space")
			default:
				bad = append(bad, fmt.Sprintf("%q", r))
			}
		}
	}
	return strings.Join(bad, ", ")
}

// DNSLabelProblem checks a DNS-1123 label (namespace names, among others):
// 1 to 63 lower-case letters, digits and '-', starting and ending with a
// letter or digit.
func DNSLabelProblem(s string) string {
	switch {
	case s == "":
		return "it is empty"
	case len(s) > dnsLabelMaxLength:
		return fmt.Sprintf("it is %d characters long; the limit is %d", len(s), dnsLabelMaxLength)
	case strings.ToLower(s) != s:
		return "it has upper-case letters; use lower case"
	}
	if bad := badRunes(s, func(r rune) bool { return isLowerAlnum(r) || r == '-' }); bad != "" {
		return "it contains " + bad + "; only lower-case letters, digits and '-' are allowed"
	}
	if s[0] == '-' || s[len(s)-1] == '-' {
		return "it starts or ends with '-'; begin and end with a letter or digit"
	}
	return ""
}

// DNSSubdomainProblem checks a DNS-1123 subdomain (most object names): at
// most 253 characters, dot-separated parts each of lower-case letters,
// digits and '-', starting and ending with a letter or digit.
func DNSSubdomainProblem(s string) string {
	switch {
	case s == "":
		return "it is empty"
	case len(s) > dnsSubdomainMaxLength:
		return fmt.Sprintf("it is %d characters long; the limit is %d", len(s), dnsSubdomainMaxLength)
	case strings.ToLower(s) != s:
		return "it has upper-case letters; use lower case"
	}
	if bad := badRunes(s, func(r rune) bool { return isLowerAlnum(r) || r == '-' || r == '.' }); bad != "" {
		return "it contains " + bad + "; only lower-case letters, digits, '-' and '.' are allowed"
	}
	for _, part := range strings.Split(s, ".") {
		if part == "" || part[0] == '-' || part[len(part)-1] == '-' {
			return "each part between dots must begin and end with a letter or digit"
		}
	}
	return ""
}

// LabelValueProblem checks a label value: empty, or at most 63 letters,
// digits, '-', '_' and '.', starting and ending with a letter or digit.
func LabelValueProblem(s string) string {
	if s == "" {
		return ""
	}
	if len(s) > labelValueMaxLength {
		return fmt.Sprintf("it is %d characters long; the limit is %d", len(s), labelValueMaxLength)
	}
	if bad := badRunes(s, func(r rune) bool { return isAlnum(r) || r == '-' || r == '_' || r == '.' }); bad != "" {
		return "it contains " + bad + "; only letters, digits, '-', '_' and '.' are allowed"
	}
	if r0, _ := utf8.DecodeRuneInString(s); !isAlnum(r0) || !isAlnum(rune(s[len(s)-1])) {
		return "it must begin and end with a letter or digit"
	}
	return ""
}

// QualifiedNameProblem checks a label or annotation key, a taint key, or a
// resource name: an optional DNS subdomain prefix and '/', then a name of at
// most 63 letters, digits, '-', '_' and '.', starting and ending with a
// letter or digit.
func QualifiedNameProblem(s string) string {
	name := s
	if prefix, rest, ok := strings.Cut(s, "/"); ok {
		if strings.Contains(rest, "/") {
			return "it has more than one '/'; a key is NAME or PREFIX/NAME"
		}
		if p := DNSSubdomainProblem(prefix); p != "" {
			return "its prefix " + fmt.Sprintf("%q", prefix) + " is not a DNS name: " + p
		}
		name = rest
	}
	switch {
	case name == "":
		return "its name part is empty"
	case len(name) > qualifiedNameMaxLen:
		return fmt.Sprintf("its name part is %d characters long; the limit is %d", len(name), qualifiedNameMaxLen)
	}
	if bad := badRunes(name, func(r rune) bool { return isAlnum(r) || r == '-' || r == '_' || r == '.' }); bad != "" {
		return "it contains " + bad + "; only letters, digits, '-', '_' and '.' are allowed (and one '/' after a prefix)"
	}
	if !isAlnum(rune(name[0])) || !isAlnum(rune(name[len(name)-1])) {
		return "its name part must begin and end with a letter or digit"
	}
	return ""
}
