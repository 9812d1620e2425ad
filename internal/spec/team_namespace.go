package spec

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Labels the platform puts on a team namespace.
const (
	TeamLabel      = "mlplatform.dev/team"
	OwnerLabel     = "mlplatform.dev/owner"
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "mlplatform" // the value of ManagedByLabel on every object the platform makes
	PodSecurityKey = "pod-security.kubernetes.io/enforce"
)

// PodSecurityLevels are the Pod Security Standards levels.
var PodSecurityLevels = []string{"restricted", "baseline", "privileged"}

// TeamNamespace is a team's namespace: cost labels, the restricted Pod
// Security level by default, and the label a ClusterQueue selects it by.
type TeamNamespace struct {
	Name        string
	Team        string
	Owner       string
	PodSecurity string // "" = restricted
	Labels      map[string]string
	Annotations map[string]string
}

// ManagedLabels is every label the platform sets on the namespace.
func (n TeamNamespace) ManagedLabels() map[string]string {
	out := map[string]string{}
	for k, v := range n.Labels {
		out[k] = v
	}
	out[TeamLabel] = n.Team
	if n.Owner != "" {
		out[OwnerLabel] = n.Owner
	}
	out[ManagedByLabel] = ManagedBy
	level := n.PodSecurity
	if level == "" {
		level = "restricted"
	}
	out[PodSecurityKey] = level
	return out
}

// Validate checks names and labels before anything is sent.
func (n TeamNamespace) Validate() FieldErrors {
	var errs FieldErrors
	if p := validation.IsDNS1123Label(n.Name); len(p) > 0 {
		errs.add(Path{"name"}, "Invalid Namespace Name", "%q is not a valid namespace name: %s.", n.Name, strings.Join(p, "; "))
	}
	if p := validation.IsValidLabelValue(n.Team); n.Team == "" || len(p) > 0 {
		errs.add(Path{"team"}, "Invalid Team", "team %q must be a non-empty label value (letters, digits, '-', '_', '.', at most 63): it becomes label %s.", n.Team, TeamLabel)
	}
	if n.Owner != "" {
		if p := validation.IsValidLabelValue(n.Owner); len(p) > 0 {
			errs.add(Path{"owner"}, "Invalid Owner", "owner %q must be a label value (use a user name, not an e-mail address): %s.", n.Owner, strings.Join(p, "; "))
		}
	}
	if n.PodSecurity != "" && !slices.Contains(PodSecurityLevels, n.PodSecurity) {
		errs.add(Path{"pod_security_level"}, "Invalid Pod Security Level", "%q is not one of restricted, baseline, privileged.", n.PodSecurity)
	}
	validateLabels(&errs, Path{"labels"}, n.Labels)
	for _, k := range []string{TeamLabel, OwnerLabel, ManagedByLabel, PodSecurityKey} {
		if _, ok := n.Labels[k]; ok {
			errs.add(Path{"labels", Key(k)}, "Reserved Label", "label %s is set by the platform; use the matching attribute (team, owner, pod_security_level) instead.", k)
		}
	}
	for k := range n.Annotations {
		if p := validation.IsQualifiedName(k); len(p) > 0 {
			errs.add(Path{"annotations", Key(k)}, "Invalid Annotation Key", "annotation key %q is not valid: %s.", k, strings.Join(p, "; "))
		}
	}
	return errs
}
