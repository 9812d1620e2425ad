package spec

import (
	"slices"
	"strings"
)

// Labels the platform puts on a team namespace.
const (
	TeamLabel      = "mlplatform.dev/team"
	OwnerLabel     = "mlplatform.dev/owner"
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "mlplatform" // the value of ManagedByLabel on every object the platform creates
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
	// ForceDestroy lets a delete remove the namespace while it holds data
	// (PersistentVolumeClaims, unfinished Jobs, JobSets or Kueue Workloads),
	// which go with it; otherwise the delete is refused. It is the caller's
	// word, not the server's: a namespace read back has it false, and it is
	// never drift.
	ForceDestroy bool
}

// ManagedLabels is every label the configuration sets on the namespace
// (the platform's marker, ManagedByLabel, is the reconciler's: it marks the
// namespaces the platform created, not those it imported).
func (n TeamNamespace) ManagedLabels() map[string]string {
	out := map[string]string{}
	for k, v := range n.Labels {
		out[k] = v
	}
	out[TeamLabel] = n.Team
	if n.Owner != "" {
		out[OwnerLabel] = n.Owner
	}
	level := n.PodSecurity
	if level == "" {
		level = "restricted"
	}
	out[PodSecurityKey] = level
	return out
}

// systemNamespaces are namespaces Kubernetes, GKE, Kueue and GKE's add-ons
// own, and why a team namespace must not be one of them (team namespaces
// enforce restricted Pod Security, carry a default-deny policy and may be
// deleted with everything in them).
var systemNamespaces = map[string]string{
	"default": "it is where every object created without a namespace lands, and Kubernetes never lets it be deleted; " +
		"restricted Pod Security and team labels on it would apply to all of them",
	"kube-system": "it runs the cluster's own components (DNS, the GKE metadata server, the NVIDIA device plugin); restricted " +
		"Pod Security there would block new system pods, and deleting it would break the cluster",
	"kube-public":                     "Kubernetes keeps the cluster-info ConfigMap there, readable by everyone",
	"kube-node-lease":                 "Kubernetes keeps the nodes' heartbeats (Leases) there",
	"kueue-system":                    "Kueue's controller and webhooks run there; restricted Pod Security or deleting it would stop Kueue",
	"gmp-system":                      "Google Cloud Managed Service for Prometheus runs there",
	"gmp-public":                      "Google Cloud Managed Service for Prometheus keeps its public configuration there",
	"config-management-system":        "Config Sync runs there",
	"config-management-monitoring":    "Config Sync's monitoring runs there",
	"resource-group-system":           "Config Sync's resource-group controller runs there",
	"cnrm-system":                     "Config Connector runs there",
	"configconnector-operator-system": "the Config Connector operator runs there",
}

// systemNamespacePrefixes are reserved prefixes, and why.
var systemNamespacePrefixes = []struct{ prefix, why string }{
	{"kube-", "Kubernetes reserves names beginning with kube- for its system namespaces"},
	{"gke-", "GKE creates and manages the namespaces beginning with gke- (gke-managed-system, gke-gmp-system, gke-connect, ...)"},
}

// SystemNamespace says why name is a namespace the system owns, or "".
func SystemNamespace(name string) string {
	if why, ok := systemNamespaces[name]; ok {
		return why
	}
	for _, p := range systemNamespacePrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.why
		}
	}
	return ""
}

// Validate checks names and labels before anything is sent.
func (n TeamNamespace) Validate() FieldErrors {
	var errs FieldErrors
	if p := DNSLabelProblem(n.Name); p != "" {
		errs.add(Path{"name"}, "Invalid Namespace Name", "%q is not a valid namespace name: %s (e.g. %q).", n.Name, p, suggestLabel(n.Name))
	} else if why := SystemNamespace(n.Name); why != "" {
		errs.add(Path{"name"}, "System Namespace",
			"%q cannot be a team namespace: %s. Choose a name of the team's own, e.g. \"team-%s\".", n.Name, why, n.Team)
	}
	if p := LabelValueProblem(n.Team); n.Team == "" || p != "" {
		if n.Team == "" {
			p = "it is empty"
		}
		errs.add(Path{"team"}, "Invalid Team", "team %q becomes the value of label %s, so it must be 1 to 63 letters, digits, '-', '_' and '.', "+
			"beginning and ending with a letter or digit: %s.", n.Team, TeamLabel, p)
	}
	if p := LabelValueProblem(n.Owner); p != "" {
		errs.add(Path{"owner"}, "Invalid Owner", "owner %q becomes the value of label %s, so it must be a label value "+
			"(a user or group name, not an e-mail address): %s.", n.Owner, OwnerLabel, p)
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
	for _, k := range sortedKeys(n.Annotations) {
		if p := QualifiedNameProblem(k); p != "" {
			errs.add(Path{"annotations", Key(k)}, "Invalid Annotation Key", "annotation key %q is not valid: %s.", k, p)
		}
	}
	return errs
}
