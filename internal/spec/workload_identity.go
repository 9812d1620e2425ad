package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
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

// Limits IAM documents for a service account (UTF-8 bytes).
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

var (
	accountIDRE  = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$`)
	gsaEmailRE   = regexp.MustCompile(`^[a-z0-9][-a-z0-9]*[a-z0-9]@[a-z0-9][-a-z0-9.:]*\.gserviceaccount\.com$`)
	projectIDRE  = regexp.MustCompile(`^[a-z][-a-z0-9]{4,28}[a-z0-9]$|^[a-z][-a-z0-9.]*:[a-z][-a-z0-9]{4,28}[a-z0-9]$`)
	projectNumRE = regexp.MustCompile(`^[1-9][0-9]{0,19}$`)
)

// Validate checks the binding before anything is sent.
func (w WorkloadIdentity) Validate() FieldErrors {
	var errs FieldErrors
	if w.Project == "" {
		errs.add(Path{"project"}, "Missing Project",
			"the binding needs the cluster's project (its workload pool is PROJECT.svc.id.goog): set project here or on the provider (or MLPLATFORM_PROJECT).")
	} else if !projectIDRE.MatchString(w.Project) {
		errs.add(Path{"project"}, "Invalid Project", "%q is not a project ID (6-30 lower-case letters, digits and '-', starting with a letter); use the ID, not the name or number.", w.Project)
	}
	if w.ProjectNumber != "" && !projectNumRE.MatchString(w.ProjectNumber) {
		errs.add(Path{"project_number"}, "Invalid Project Number", "%q is not a project number (digits only, e.g. 123456789012); it is shown by `gcloud projects describe PROJECT --format='value(projectNumber)'`.", w.ProjectNumber)
	}
	if p := validation.IsDNS1123Label(w.Namespace); len(p) > 0 {
		errs.add(Path{"namespace"}, "Invalid Namespace", "%q is not a valid namespace name: %s.", w.Namespace, strings.Join(p, "; "))
	}
	if p := validation.IsDNS1123Subdomain(w.KSA); len(p) > 0 {
		errs.add(Path{"kubernetes_service_account"}, "Invalid Kubernetes Service Account Name", "%q is not a valid service account name: %s.", w.KSA, strings.Join(p, "; "))
	}
	if !slices.Contains(WorkloadIdentityModes, w.Mode) {
		errs.add(Path{"mode"}, "Invalid Mode", "%q is not one of %s.", w.Mode, strings.Join(WorkloadIdentityModes, ", "))
		return errs
	}
	if !w.UsesGSA() {
		if w.GSAEmail != "" {
			errs.add(Path{"google_service_account"}, "Google Service Account In Direct Mode",
				"mode = %q grants nothing on a Google service account, so google_service_account has no effect: remove it, or remove mode to bind through it.", ModeDirect)
		}
		if w.CreateGSA != nil {
			errs.add(Path{"create_google_service_account"}, "Google Service Account In Direct Mode",
				"mode = %q uses no Google service account: remove create_google_service_account, or remove mode to bind through one.", ModeDirect)
		}
		if w.ProjectNumber == "" {
			errs.add(Path{"project_number"}, "Missing Project Number",
				"mode = %q exposes the KSA's principal:// identifier, which names the project by number: set project_number (e.g. from data.google_project.this.number).", ModeDirect)
		}
		return errs
	}
	switch {
	case w.GSAEmail != "" && w.CreateGSA != nil:
		errs.add(Path{"create_google_service_account"}, "Conflicting Google Service Accounts",
			"set either google_service_account (an existing account's e-mail) or create_google_service_account (to create one), not both.")
	case w.GSAEmail == "" && w.CreateGSA == nil:
		errs.add(Path{"google_service_account"}, "Missing Google Service Account",
			"set google_service_account to an existing account's e-mail, or create_google_service_account { account_id = \"...\" } to create one, or mode = %q for direct grants to the KSA.", ModeDirect)
	case w.GSAEmail != "" && !gsaEmailRE.MatchString(w.GSAEmail):
		errs.add(Path{"google_service_account"}, "Invalid Google Service Account",
			"%q is not a service account e-mail (NAME@PROJECT.iam.gserviceaccount.com).", w.GSAEmail)
	case w.CreateGSA != nil && !accountIDRE.MatchString(w.CreateGSA.AccountID):
		errs.add(Path{"create_google_service_account", "account_id"}, "Invalid Account ID",
			"%q is not a valid service account ID: 6-30 characters, lower-case letters, digits and '-', starting with a letter and not ending with '-'.", w.CreateGSA.AccountID)
	case w.CreateGSA != nil && len(w.CreateGSA.DisplayName) > MaxGSADisplayName:
		errs.add(Path{"create_google_service_account", "display_name"}, "Display Name Too Long",
			"display_name is %d bytes long; IAM allows at most %d (UTF-8 bytes).", len(w.CreateGSA.DisplayName), MaxGSADisplayName)
	case w.CreateGSA != nil && len(w.CreateGSA.Description) > MaxGSAConfiguredDescription:
		errs.add(Path{"create_google_service_account", "description"}, "Description Too Long",
			"description is %d bytes long; IAM allows %d, and the provider ends it with %q (%d bytes with the space before it), "+
				"which marks the account as created by mlplatform: shorten it to at most %d bytes.",
			len(w.CreateGSA.Description), MaxGSADescription, GSAMarker, len(GSAMarker)+1, MaxGSAConfiguredDescription)
	}
	return errs
}
