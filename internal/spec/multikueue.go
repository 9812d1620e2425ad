package spec

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// MultiKueue (beta, on by default since Kueue v0.9): a manager
// cluster's ClusterQueue lists an AdmissionCheck with controller
// MultiKueueControllerName whose parameters name a MultiKueueConfig; the
// config lists MultiKueueClusters (1 to 20), each pointing at a kubeconfig
// Secret in the manager's kueue-system namespace.
const (
	// MultiKueueControllerName is the controllerName of Kueue's MultiKueue
	// admission check controller.
	MultiKueueControllerName = "kueue.x-k8s.io/multikueue"
	// KueueNamespace is where Kueue runs and reads MultiKueue kubeconfig
	// Secrets from (its default; the provider does not support another).
	KueueNamespace = "kueue-system"
	// MultiKueueKubeconfigKey is the Secret key Kueue reads the kubeconfig from.
	MultiKueueKubeconfigKey = "kubeconfig"
	// MaxMultiKueueClusters is Kueue's limit on a MultiKueueConfig's clusters
	// (MultiKueueConfigSpec.clusters: MinItems=1, MaxItems=20).
	MaxMultiKueueClusters = 20
)

// Defaults of a worker's access.
const (
	DefaultWorkerServiceAccount = "mlplatform-multikueue"
	DefaultTokenValidity        = 30 * 24 * time.Hour
	DefaultTokenRotateBefore    = 7 * 24 * time.Hour
	// MinTokenValidity is the API server's floor for a TokenRequest
	// (ExpirationSeconds ≥ 600).
	MinTokenValidity = 10 * time.Minute
)

// MultiKueueCheck is a Kueue AdmissionCheck handled by the MultiKueue
// controller together with the MultiKueueConfig of the same name it points
// at, which lists the worker clusters.
type MultiKueueCheck struct {
	Name string
	// Clusters are MultiKueueCluster names, in order: from Kueue v0.19 the
	// incremental dispatcher nominates workers in this order (most
	// preferred first); before, the order is kept but not used.
	Clusters []string
}

// AdmissionCheck is the AdmissionCheck of c: Kueue's MultiKueue controller,
// configured by the MultiKueueConfig of the same name.
func (c MultiKueueCheck) AdmissionCheck() AdmissionCheck {
	return AdmissionCheck{Name: c.Name, ControllerName: MultiKueueControllerName,
		Parameters: &AdmissionCheckParameters{APIGroup: "kueue.x-k8s.io", Kind: "MultiKueueConfig", Name: c.Name}}
}

// Validate mirrors Kueue's rules for the AdmissionCheck and MultiKueueConfig.
func (c MultiKueueCheck) Validate() FieldErrors {
	var errs FieldErrors
	if c.Name == "" {
		errs.add(Path{"name"}, "Missing Name", "the MultiKueue check needs a name, e.g. \"multikueue\".")
	} else if problem := DNSLabelProblem(c.Name); problem != "" {
		// AdmissionCheckParametersReference.name: MaxLength=63, the DNS label pattern.
		errs.add(Path{"name"}, "Invalid Name",
			"%q cannot name a MultiKueue check: %s. The AdmissionCheck refers to its MultiKueueConfig by this name, which Kueue limits to lower-case letters, digits and '-' (no dots), at most 63 characters, e.g. %q.",
			c.Name, problem, suggestLabel(c.Name))
	}
	switch n := len(c.Clusters); {
	case n == 0:
		errs.add(Path{"clusters"}, "No Worker Clusters",
			"clusters is empty; Kueue needs at least one worker: list the names of mlplatform_multikueue_cluster resources, e.g. [mlplatform_multikueue_cluster.europe.name].")
	case n > MaxMultiKueueClusters:
		errs.add(Path{"clusters"}, "Too Many Worker Clusters", "%d clusters; Kueue accepts at most %d in one MultiKueueConfig. Remove %d.", n, MaxMultiKueueClusters, n-MaxMultiKueueClusters)
	}
	first := map[string]int{}
	for i, name := range c.Clusters {
		if p := DNSSubdomainProblem(name); p != "" {
			errs.add(Path{"clusters", i}, "Invalid Cluster Name", "%q is not a MultiKueueCluster name: %s. Use the name of an mlplatform_multikueue_cluster.", name, p)
		} else if j, dup := first[name]; dup {
			// MultiKueueConfigSpec.clusters (v0.19): "must be unique".
			errs.add(Path{"clusters", i}, "Duplicate Worker Cluster",
				"%q is listed twice, as clusters[%d] and clusters[%d]; Kueue refuses a MultiKueueConfig that lists a worker more than once. Remove clusters[%d].", name, j, i, i)
		} else {
			first[name] = i
		}
	}
	return errs
}

// GKECluster names a GKE cluster.
type GKECluster struct {
	Project, Location, Name string
}

// String is the cluster's resource name.
func (g GKECluster) String() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", g.Project, g.Location, g.Name)
}

// Worker says how the manager's provider reaches a worker cluster: a GKE
// cluster (endpoint and CA from the GKE API, a Google token, as for the
// provider's own cluster), or a kubeconfig file and context.
type Worker struct {
	GKE         *GKECluster
	Kubeconfig  string
	KubeContext string
}

// String names the worker for messages.
func (w Worker) String() string {
	if w.GKE != nil {
		return "GKE cluster " + w.GKE.String()
	}
	if w.KubeContext != "" {
		return fmt.Sprintf("kubeconfig %s (context %s)", w.Kubeconfig, w.KubeContext)
	}
	return "kubeconfig " + w.Kubeconfig
}

// MultiKueueCluster is the manager's access to one worker cluster: in the
// worker a service account, the RBAC MultiKueue documents for workers and a
// token; in the manager the kubeconfig Secret (inline CA and bearer token)
// and the MultiKueueCluster naming it.
type MultiKueueCluster struct {
	Name           string // MultiKueueCluster name; the Secret is Name + "-kubeconfig"
	Worker         Worker
	ServiceAccount string // in the worker's kueue-system; also the ClusterRole and ClusterRoleBinding name
	// Frameworks are the Kueue integrations the manager dispatches to the
	// worker (its integrations.frameworks): the worker's ClusterRole grants
	// the manager each one's kind (WorkerRBAC). nil = DefaultKueueConfiguration's.
	Frameworks    []string
	TokenValidity time.Duration
	RotateBefore  time.Duration
	// RewriteKubeconfig is not a setting: the plan says the Secret gets a
	// new token (a rotation, a changed worker or token validity).
	RewriteKubeconfig bool
}

// SecretName is the kubeconfig Secret's name in the manager's kueue-system.
func (c MultiKueueCluster) SecretName() string { return c.Name + "-kubeconfig" }

// Validate checks the spec's rules.
func (c MultiKueueCluster) Validate() FieldErrors {
	var errs FieldErrors
	if c.Name == "" {
		errs.add(Path{"name"}, "Missing Name", "the worker needs a name as the manager sees it, e.g. \"europe-west4\".")
	} else if p := DNSLabelProblem(c.Name); p != "" {
		// The Secret is NAME-kubeconfig and the name is used in messages and
		// MultiKueueConfigs: a DNS label keeps both valid.
		errs.add(Path{"name"}, "Invalid Name", "%q cannot name a MultiKueue worker: %s. Use lower-case letters, digits and '-', at most 52 characters, e.g. %q.",
			c.Name, p, suggestLabel(c.Name))
	} else if len(c.SecretName()) > 63 {
		errs.add(Path{"name"}, "Name Too Long", "%q has %d characters; the kubeconfig Secret %q would exceed 63. Use at most 52 characters.", c.Name, len(c.Name), c.SecretName())
	}
	w := c.Worker
	switch {
	case w.KubeContext != "" && w.Kubeconfig == "":
		errs.add(Path{"worker", "kube_context"}, "Context Without Kubeconfig",
			"kube_context needs kubeconfig: set kubeconfig to the file that holds context %q, or leave kube_context out (a gke_cluster needs none).", w.KubeContext)
	case w.GKE == nil && w.Kubeconfig == "":
		errs.add(Path{"worker"}, "No Worker Cluster",
			"worker names no cluster: set %v for a GKE cluster, or kubeconfig (and kube_context) for any other.",
			set("gke_cluster", obj("location", "europe-west4", "name", "training-eu")))
	case w.GKE != nil && w.Kubeconfig != "":
		errs.add(Path{"worker"}, "Two Worker Clusters", "worker sets both gke_cluster and kubeconfig; keep one.")
	case w.GKE != nil:
		// project may be empty: it defaults to the provider's.
		for _, f := range []struct{ attr, v, example string }{
			{"location", w.GKE.Location, "europe-west4"}, {"name", w.GKE.Name, "training-eu"},
		} {
			if f.v == "" {
				errs.add(Path{"worker", "gke_cluster", f.attr}, "Missing GKE Cluster "+title(f.attr),
					"gke_cluster.%s is empty; set it, e.g. %q.", f.attr, f.example)
			}
		}
	}
	names := KueueFrameworkNames()
	for i, f := range c.Frameworks {
		switch _, ok := LookupKueueFramework(f); {
		case !ok:
			errs.add(Path{"frameworks", i}, "Unknown Framework", "%q is not one of Kueue's integrations (%s)%s.", f, strings.Join(names, ", "), didYouMean(f, names))
		case slices.Index(c.Frameworks, f) < i:
			errs.add(Path{"frameworks", i}, "Duplicate Framework", "%s is listed twice; list each once.", f)
		}
	}
	if c.ServiceAccount != "" {
		if p := DNSSubdomainProblem(c.ServiceAccount); p != "" {
			errs.add(Path{"worker_service_account"}, "Invalid Service Account Name", "%q is not a service account name: %s, e.g. %q.", c.ServiceAccount, p, DefaultWorkerServiceAccount)
		}
	}
	if c.TokenValidity < MinTokenValidity {
		errs.add(Path{"token_validity"}, "Token Validity Too Short", "token_validity is %s; the Kubernetes API server issues tokens for at least %s. Default %s.",
			shortDuration(c.TokenValidity), shortDuration(MinTokenValidity), shortDuration(DefaultTokenValidity))
	}
	if c.RotateBefore < 0 || c.RotateBefore >= c.TokenValidity {
		errs.add(Path{"rotate_before"}, "Rotation Window Out Of Range",
			"rotate_before is %s; it must be at least 0 and shorter than token_validity (%s), or every plan would rotate the token. Default %s.",
			shortDuration(c.RotateBefore), shortDuration(c.TokenValidity), shortDuration(DefaultTokenRotateBefore))
	}
	return errs
}

// shortDuration writes d as a user would (168h, 10m, 1h30m), not 168h0m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func title(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// WorkerRBAC are the rules MultiKueue documents for the manager's account in
// a worker (Kueue site, "Setup a MultiKueue environment", the ClusterRole of
// its create-multikueue-kubeconfig.sh), for each of the frameworks the
// manager dispatches: the objects of its kind it creates there, and their
// status (batch/v1 Jobs, JobSets, ... alike), then the Workloads it mirrors,
// with their status. Frameworks Kueue has no MultiKueue adapter for
// (deployment, sparkoperator.k8s.io/sparkapplication) are never dispatched
// and grant nothing; unknown ones are refused by Validate. A manager watches
// every kind it manages in each worker: Kueue v0.19 marks a worker whose role
// lacks one inactive (ClientConnectionFailed), for every kind.
func WorkerRBAC(frameworks []string) []PolicyRule {
	objects := []string{"create", "delete", "get", "list", "watch"}
	var rules []PolicyRule
	for _, f := range DispatchedKinds(frameworks) {
		rules = append(rules,
			PolicyRule{APIGroups: []string{f.Group}, Resources: []string{f.Resource}, Verbs: objects},
			PolicyRule{APIGroups: []string{f.Group}, Resources: []string{f.Resource + "/status"}, Verbs: []string{"get"}})
	}
	return append(rules,
		PolicyRule{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads"}, Verbs: objects},
		PolicyRule{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads/status"}, Verbs: []string{"get", "patch", "update"}})
}

// DispatchedKinds are the frameworks a MultiKueue manager dispatches to
// its workers (those with a MultiKueue adapter), each once, in the order
// given; nil frameworks are DefaultKueueConfiguration's.
func DispatchedKinds(frameworks []string) []KueueFramework {
	if frameworks == nil {
		frameworks = DefaultKueueConfiguration().Frameworks
	}
	var out []KueueFramework
	for _, name := range frameworks {
		if f, ok := LookupKueueFramework(name); ok && f.MultiKueue && !slices.ContainsFunc(out, func(o KueueFramework) bool { return o.Name == name }) {
			out = append(out, f)
		}
	}
	return out
}

// PolicyRule is an RBAC rule.
type PolicyRule struct {
	APIGroups, Resources, Verbs []string
}
