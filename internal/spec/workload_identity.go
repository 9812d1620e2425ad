package spec

// About 450 lines, on purpose: a binding's spec and its validation, which
// must cover the account rules of IAM (account IDs, e-mails, display names,
// descriptions) and of Kubernetes (service account names) in one place.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Workload Identity modes.
const (
	// ModeGoogleServiceAccount links the Kubernetes service account to a
	// Google service account: the KSA is annotated with the GSA's e-mail and
	// granted roles/iam.workloadIdentityUser on it.
	ModeGoogleServiceAccount = "google_service_account"
	// ModeDirect grants nothing on a GSA: resources are granted to the KSA's
	// principal:// identifier directly.
	ModeDirect = "direct"
)

// WorkloadIdentityModes lists the modes, default first.
var WorkloadIdentityModes = []string{ModeGoogleServiceAccount, ModeDirect}

// GSAAnnotation is the KSA annotation naming the Google service account
// that pods running as the KSA act as.
const GSAAnnotation = "iam.gke.io/gcp-service-account"

// GoogleServiceAccount is a Google service account the platform creates.
type GoogleServiceAccount struct {
	AccountID   string
	DisplayName string
	Description string // as configured; IAM holds it with GSAMarker appended
}

// GSAMarker ends the description of every Google service account the
// platform creates: IAM has no labels on service accounts, and the
// description is the one field a create can mark. A create that finds an
// account without it (made by hand, or by another tool) leaves it alone.
const GSAMarker = "(managed by mlplatform)"

// Limits IAM documents for a service account (UTF-8 bytes): ServiceAccount
// display_name "The maximum length is 100 UTF-8 bytes", description "The
// maximum length is 256 UTF-8 bytes" (google.iam.admin.v1, in
// cloud.google.com/go/iam admin/apiv1/adminpb/iam.pb.go).
const (
	MaxGSADisplayName = 100
	MaxGSADescription = 256
)

// MaxGSAConfiguredDescription is the longest description that fits with
// the marker.
const MaxGSAConfiguredDescription = MaxGSADescription - len(GSAMarker) - 1

// StoredDescription is the description IAM holds for the account: the
// configured one, then the marker.
func (g GoogleServiceAccount) StoredDescription() string {
	if g.Description == "" {
		return GSAMarker
	}
	return g.Description + " " + GSAMarker
}

// SplitGSADescription splits a description IAM holds into the configured
// part and whether it carries the marker.
func SplitGSADescription(stored string) (configured string, marked bool) {
	rest, marked := strings.CutSuffix(stored, GSAMarker)
	if !marked {
		return stored, false
	}
	return strings.TrimSuffix(rest, " "), true
}

// WorkloadIdentity binds a Kubernetes service account to a Google identity.
type WorkloadIdentity struct {
	// Project is the cluster's project: the workload pool is
	// PROJECT.svc.id.goog.
	Project string
	// ProjectNumber, when known, gives the principal:// identifier.
	ProjectNumber string
	Namespace     string
	KSA           string
	// CreateKSA: the platform creates (and deletes) the KSA; otherwise it
	// adopts an existing one and only sets (and removes) its annotation.
	CreateKSA bool
	Mode      string
	// GSAEmail is an existing Google service account's e-mail; empty when
	// CreateGSA is set.
	GSAEmail  string
	CreateGSA *GoogleServiceAccount
}

// WorkloadPool is the cluster's Workload Identity pool.
func (w WorkloadIdentity) WorkloadPool() string { return w.Project + ".svc.id.goog" }

// Member is the IAM member of the KSA.
func (w WorkloadIdentity) Member() string {
	return fmt.Sprintf("serviceAccount:%s[%s/%s]", w.WorkloadPool(), w.Namespace, w.KSA)
}

// Principal is the KSA's principal:// identifier for direct grants, or ""
// without a project number.
func (w WorkloadIdentity) Principal() string {
	if w.ProjectNumber == "" {
		return ""
	}
	return fmt.Sprintf("principal://iam.googleapis.com/projects/%s/locations/global/workloadIdentityPools/%s/subject/ns/%s/sa/%s",
		w.ProjectNumber, w.WorkloadPool(), w.Namespace, w.KSA)
}

// UsesGSA reports whether the binding goes through a Google service account.
func (w WorkloadIdentity) UsesGSA() bool { return w.Mode != ModeDirect }

// GSA is the e-mail of the Google service account the KSA acts as, or "" in
// direct mode.
func (w WorkloadIdentity) GSA() string {
	switch {
	case !w.UsesGSA():
		return ""
	case w.CreateGSA != nil:
		return GSAEmail(w.Project, w.CreateGSA.AccountID)
	}
	return w.GSAEmail
}

// GSAEmail is the e-mail of service account accountID in project.
func GSAEmail(project, accountID string) string {
	return accountID + "@" + project + ".iam.gserviceaccount.com"
}

// Limits of the IDs IAM and Resource Manager document.
const (
	// IAM CreateServiceAccountRequest.account_id: "must be 6-30 characters
	// long" (adminpb/iam.pb.go).
	minAccountID, maxAccountID = 6, 30
	// Resource Manager Project.projectId: "It must be 6 to 30 lowercase
	// ASCII letters, digits, or hyphens. It must start with a letter.
	// Trailing hyphens are prohibited."
	// (https://cloud.google.com/resource-manager/reference/rest/v3/projects).
	minProjectID, maxProjectID = 6, 30
)

// Validate checks the binding before anything is sent. Each mistake is
// reported once, at the attribute to change; rules that depend on the mode
// are checked only when the mode is valid.
func (w WorkloadIdentity) Validate() FieldErrors {
	var errs FieldErrors
	if w.Project == "" {
		errs.add(Path{"project"}, "Missing Project",
			"the binding needs the cluster's project (its workload pool is PROJECT.svc.id.goog): set project here or on the provider (or MLPLATFORM_PROJECT).")
	} else if p := projectIDProblem(w.Project); p != "" {
		errs.add(Path{"project"}, "Invalid Project",
			"%q is not a project ID: %s. A project ID is 6 to 30 lower-case letters, digits and '-', starting with a letter and not ending with '-' "+
				"(e.g. \"ml-prod\"), or DOMAIN:ID for a domain-scoped project (e.g. \"example.com:ml-prod\"); `gcloud projects list` shows it.", w.Project, p)
	}
	if w.ProjectNumber != "" {
		if p := projectNumberProblem(w.ProjectNumber); p != "" {
			errs.add(Path{"project_number"}, "Invalid Project Number",
				"%q is not a project number: %s. A project number is digits only (e.g. 123456789012); "+
					"`gcloud projects describe PROJECT --format='value(projectNumber)'` shows it, and so does data.google_project.this.number.", w.ProjectNumber, p)
		}
	}
	// Namespaces are DNS-1123 labels (k8s.io/apimachinery/pkg/api/validation:
	// ValidateNamespaceName = NameIsDNSLabel).
	if p := DNSLabelProblem(w.Namespace); p != "" {
		errs.add(Path{"namespace"}, "Invalid Namespace",
			"%q is not a valid namespace name: %s. A namespace name is 1 to 63 lower-case letters, digits and '-', starting and ending with a letter or digit (e.g. %q).",
			w.Namespace, p, exampleKubeName(w.Namespace, false, "team-vision"))
	}
	// Service account names are DNS-1123 subdomains (same package:
	// ValidateServiceAccountName = NameIsDNSSubdomain).
	if p := DNSSubdomainProblem(w.KSA); p != "" {
		errs.add(Path{"kubernetes_service_account"}, "Invalid Kubernetes Service Account Name",
			"%q is not a valid service account name: %s. Use at most 253 lower-case letters, digits, '-' and '.', starting and ending with a letter or digit (e.g. %q).",
			w.KSA, p, exampleKubeName(w.KSA, true, "trainer"))
	} else if w.KSA == "default" && w.CreateKSA {
		// The ServiceAccount controller of kube-controller-manager creates
		// "default" in every namespace, so a create would find it there and
		// stop (it is not the platform's).
		errs.add(Path{"kubernetes_service_account"}, "Default Service Account Cannot Be Created",
			"Kubernetes creates the service account \"default\" in every namespace, so the provider cannot create it. Set "+
				"%v to bind the existing one (then every pod of namespace %s that names no service "+
				"account acts as the Google identity), or name a service account for the training pods, e.g. \"trainer\".",
			set("create_kubernetes_service_account", false), w.Namespace)
	}
	if !slices.Contains(WorkloadIdentityModes, w.Mode) {
		hint := ""
		if l := strings.ToLower(strings.TrimSpace(w.Mode)); slices.Contains(WorkloadIdentityModes, l) {
			hint = fmt.Sprintf(" (modes are lower case: write %q)", l)
		}
		errs.add(Path{"mode"}, "Invalid Mode",
			"%q is not a mode%s. Use %q (the default: pods act as a Google service account) or %q (no Google service account: grant resources to principal).",
			w.Mode, hint, ModeGoogleServiceAccount, ModeDirect)
		return errs // which of the rules below apply depends on the mode
	}
	if !w.UsesGSA() {
		w.validateDirect(&errs)
		return errs
	}
	switch {
	case w.GSAEmail != "" && w.CreateGSA != nil:
		errs.add(Path{"create_google_service_account"}, "Conflicting Google Service Accounts",
			"set either google_service_account (an existing account's e-mail) or create_google_service_account (to create one), not both.")
	case w.GSAEmail == "" && w.CreateGSA == nil:
		errs.add(Path{"google_service_account"}, "Missing Google Service Account",
			"set google_service_account to an existing account's e-mail, or %v to create one, or %v for direct grants to the KSA.",
			set("create_google_service_account", obj("account_id", "...")), set("mode", ModeDirect))
	}
	if w.GSAEmail != "" {
		if p := gsaEmailProblem(w.GSAEmail, w.Project); p.format != "" {
			errs.add(Path{"google_service_account"}, "Invalid Google Service Account",
				"%q is not a Google service account e-mail: %s. A service account's e-mail is NAME@PROJECT.iam.gserviceaccount.com "+
					"(the account may be in another project than the cluster).", w.GSAEmail, p)
		}
	}
	if w.CreateGSA != nil {
		w.CreateGSA.validate(&errs)
	}
	return errs
}

// validateDirect checks mode = "direct": no Google service account, and a
// project number for the principal:// identifier.
func (w WorkloadIdentity) validateDirect(errs *FieldErrors) {
	alsoNumber := ""
	if w.ProjectNumber == "" {
		alsoNumber = " and set project_number (the principal:// identifier names the project by number)"
	}
	switch {
	case w.GSAEmail != "":
		errs.add(Path{"google_service_account"}, "Google Service Account In Direct Mode",
			"%v grants nothing on a Google service account, so google_service_account would have no effect: remove it%s, or remove mode to bind through the account.",
			set("mode", ModeDirect), alsoNumber)
	case w.CreateGSA != nil:
		errs.add(Path{"create_google_service_account"}, "Google Service Account In Direct Mode",
			"%v uses no Google service account: remove create_google_service_account%s, or remove mode to bind through the account it creates.",
			set("mode", ModeDirect), alsoNumber)
	case w.ProjectNumber == "":
		errs.add(Path{"project_number"}, "Missing Project Number",
			"%v exposes the KSA's principal:// identifier, which names the project by number: set project_number (e.g. from %v).",
			set("mode", ModeDirect), ProjectNumberRef)
	}
}

// validate checks a service account to create against IAM's rules
// (CreateServiceAccountRequest.account_id, ServiceAccount.display_name and
// description in adminpb/iam.pb.go).
func (g GoogleServiceAccount) validate(errs *FieldErrors) {
	const in = "create_google_service_account"
	if p := accountIDProblem(g.AccountID); p != "" {
		errs.add(Path{in, "account_id"}, "Invalid Account ID",
			"%q is not a valid service account ID: %s. IAM takes 6 to 30 lower-case letters, digits and '-', starting with a letter and ending with a letter or digit "+
				"(e.g. %q); the account's e-mail is then ACCOUNT_ID@PROJECT.iam.gserviceaccount.com.", g.AccountID, p, suggestAccountID(g.AccountID))
	}
	if n := len(g.DisplayName); n > MaxGSADisplayName {
		errs.add(Path{in, "display_name"}, "Display Name Too Long",
			"display_name is %d bytes long in UTF-8 (%d characters); IAM allows at most %d bytes: shorten it.",
			n, utf8RuneCount(g.DisplayName), MaxGSADisplayName)
	}
	if n := len(g.Description); n > MaxGSAConfiguredDescription {
		errs.add(Path{in, "description"}, "Description Too Long",
			"description is %d bytes long in UTF-8 (%d characters); IAM allows %d, and the provider ends it with %q (%d bytes with the space before it), "+
				"which marks the account as created by mlplatform: shorten it to at most %d bytes.",
			n, utf8RuneCount(g.Description), MaxGSADescription, GSAMarker, len(GSAMarker)+1, MaxGSAConfiguredDescription)
	}
}

func utf8RuneCount(s string) int { return len([]rune(s)) }

// exampleKubeName turns s into a valid Kubernetes name for messages: a
// DNS-1123 subdomain, or with dots false a DNS-1123 label; fallback when s
// is empty or too long to make a readable one of.
func exampleKubeName(s string, dots bool, fallback string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if isLowerAlnum(r) || r == '-' || (dots && r == '.') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	var parts []string
	for _, part := range strings.Split(b.String(), ".") {
		if part = strings.Trim(part, "-"); part != "" {
			parts = append(parts, part)
		}
	}
	out := strings.Join(parts, ".")
	if out == "" || len(out) > dnsLabelMaxLength {
		return fallback
	}
	return out
}

func isLower(r rune) bool { return r >= 'a' && r <= 'z' }

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// gcpIDProblem checks an ID of IAM's and Resource Manager's common shape:
// min to max lower-case letters, digits and '-', starting with a letter and
// ending with a letter or digit. "" when id is valid.
func gcpIDProblem(id string, minLen, maxLen int) string {
	switch {
	case id == "":
		return "it is empty"
	case strings.ToLower(id) != id:
		return "it has upper-case letters; use lower case"
	}
	if bad := badRunes(id, func(r rune) bool { return isLowerAlnum(r) || r == '-' }); bad != "" {
		return "it contains " + bad + "; only lower-case letters, digits and '-' are allowed"
	}
	switch n := len(id); {
	case n < minLen:
		return fmt.Sprintf("it is %d characters long; the minimum is %d", n, minLen)
	case n > maxLen:
		return fmt.Sprintf("it is %d characters long; the limit is %d", n, maxLen)
	case !isLower(rune(id[0])):
		return "it must start with a letter"
	case id[len(id)-1] == '-':
		return "it must not end with '-'"
	}
	return ""
}

// projectIDProblem checks a project ID (Resource Manager's rule, see
// minProjectID), or DOMAIN:ID for a domain-scoped project.
func projectIDProblem(s string) string {
	if isDigits(s) {
		return "it is a project number; project takes the project ID (`gcloud projects describe " + s + " --format='value(projectId)'` shows it)"
	}
	if strings.Contains(s, " ") && strings.ToLower(s) != s {
		return "it looks like the project's display name; use its ID"
	}
	id := s
	if domain, rest, ok := strings.Cut(s, ":"); ok {
		if p := DNSSubdomainProblem(domain); p != "" || !strings.Contains(domain, ".") {
			if p == "" {
				p = "it has no '.'"
			}
			return fmt.Sprintf("the domain %q before ':' is not a domain name (%s)", domain, p)
		}
		id = rest
		if p := gcpIDProblem(id, minProjectID, maxProjectID); p != "" {
			return fmt.Sprintf("the ID %q after ':' is not valid: %s", id, p)
		}
		return ""
	}
	return gcpIDProblem(id, minProjectID, maxProjectID)
}

// projectNumberProblem checks a project number: Resource Manager's
// Project.projectNumber is an int64 (v1 API, "format: int64").
func projectNumberProblem(s string) string {
	if rest, ok := strings.CutPrefix(s, "projects/"); ok {
		return fmt.Sprintf("it is a resource name; write the number alone: %q", rest)
	}
	if !isDigits(s) {
		if r := rune(s[0]); isLower(r) || (r >= 'A' && r <= 'Z') {
			return "it looks like a project ID; project_number takes the project's number"
		}
		return "it contains " + badRunes(s, func(r rune) bool { return r >= '0' && r <= '9' }) + "; only digits are allowed"
	}
	if s[0] == '0' {
		return "it starts with 0"
	}
	if _, err := strconv.ParseInt(s, 10, 64); err != nil {
		return fmt.Sprintf("it has %d digits, too many for a project number", len(s))
	}
	return ""
}

// accountIDProblem checks an IAM service account ID (see minAccountID).
func accountIDProblem(id string) string {
	if name, _, ok := strings.Cut(id, "@"); ok {
		return fmt.Sprintf("it is an e-mail address; account_id is the part before '@' (%q). To bind an account that exists, "+
			"set google_service_account to its e-mail instead of create_google_service_account", name)
	}
	return gcpIDProblem(id, minAccountID, maxAccountID)
}

// suggestAccountID turns s into a valid service account ID, for messages.
func suggestAccountID(s string) string {
	s, _, _ = strings.Cut(s, "@")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if isLowerAlnum(r) || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > maxAccountID {
		out = strings.TrimRight(out[:maxAccountID], "-")
	}
	if len(out) < minAccountID || !isLower(rune(out[0])) {
		return "vision-trainer"
	}
	return out
}

// gsaEmailProblem checks the e-mail of an existing Google service account.
// Service account e-mails end in gserviceaccount.com: user-managed accounts
// are ACCOUNT_ID@PROJECT.iam.gserviceaccount.com, the Compute Engine default
// account PROJECT_NUMBER-compute@developer.gserviceaccount.com (IAM,
// "Service account types"). The account may be in any project: Workload
// Identity Federation for GKE grants roles/iam.workloadIdentityUser on the
// account wherever it is. project (the cluster's) is used in examples only.
func gsaEmailProblem(email, project string) text {
	if project == "" {
		project = "PROJECT"
	}
	if rest, ok := strings.CutPrefix(email, "serviceAccount:"); ok {
		return textf("it is an IAM member; write the e-mail alone: %q", rest)
	}
	if _, rest, ok := strings.Cut(email, "/serviceAccounts/"); ok && strings.HasPrefix(email, "projects/") {
		return textf("it is the account's resource name; write its e-mail alone: %q", rest)
	}
	name, domain, ok := strings.Cut(email, "@")
	switch {
	case !ok:
		return textf("it has no '@'. If it is an account ID, write the e-mail (%q), or create the account with "+
			"%v instead", email+"@"+project+".iam.gserviceaccount.com", set("create_google_service_account", obj("account_id", email)))
	case strings.Contains(domain, "@"):
		return text{format: "it has more than one '@'"}
	case name == "":
		return text{format: "nothing comes before '@'"}
	case strings.ToLower(email) != email:
		return textf("it has upper-case letters; service account e-mails are lower case (%q)", strings.ToLower(email))
	}
	if bad := badRunes(email, func(r rune) bool { return isLowerAlnum(r) || r == '-' || r == '.' || r == '@' }); bad != "" {
		return text{format: "it contains " + bad + "; a service account e-mail has only lower-case letters, digits, '-', '.' and '@'"}
	}
	switch {
	case domain == "iam.gserviceaccount.com":
		return textf("the project is missing after '@' (e.g. %q)", name+"@"+project+".iam.gserviceaccount.com")
	case !strings.HasSuffix(domain, ".gserviceaccount.com"):
		return textf("it is not a service account's address (those end in .gserviceaccount.com): a user or group cannot be the identity "+
			"pods act as. To bind a new account, use %v", set("create_google_service_account", obj("account_id", "...")))
	}
	return text{}
}
