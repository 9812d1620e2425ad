package spec

import "slices"

// StopPolicies are the values of a queue's stop policy.
var StopPolicies = []string{"None", "Hold", "HoldAndDrain"}

// LocalQueue is a Kueue LocalQueue: a team namespace's entry point to a
// ClusterQueue. Jobs name it in the kueue.x-k8s.io/queue-name label.
type LocalQueue struct {
	Namespace    string
	Name         string
	ClusterQueue string
	StopPolicy   string // "" means None
}

// maxLocalQueueNameLength: jobs name their LocalQueue in the label
// kueue.x-k8s.io/queue-name (Kueue's jobframework validation checks the label
// names a valid object), and label values are at most 63 characters
// (k8s.io/apimachinery/pkg/util/validation IsValidLabelValue), so a longer
// LocalQueue, valid as an object, can never be used.
const maxLocalQueueNameLength = 63

// Validate mirrors Kueue's rules for LocalQueue
// (apis/kueue/v1beta2/localqueue_types.go).
func (q LocalQueue) Validate() FieldErrors {
	var errs FieldErrors
	// A namespace name is a DNS-1123 label (Kubernetes ValidateNamespaceName).
	if q.Namespace == "" {
		errs.add(Path{"namespace"}, "Missing Namespace", "a LocalQueue lives in a namespace; set namespace to the team's namespace, e.g. mlplatform_team_namespace.vision.name.")
	} else if p := DNSLabelProblem(q.Namespace); p != "" {
		errs.add(Path{"namespace"}, "Invalid Namespace",
			"%q is not a valid namespace name: %s. Namespace names are at most 63 lower-case letters, digits and '-' (no dots), beginning and ending with a letter or digit, e.g. %q.",
			q.Namespace, p, suggestLabel(q.Namespace))
	}
	validateObjectName(&errs, Path{"name"}, "LocalQueue", q.Name)
	if q.Name != "" && DNSSubdomainProblem(q.Name) == "" && len(q.Name) > maxLocalQueueNameLength {
		errs.add(Path{"name"}, "LocalQueue Name Too Long",
			"the name is %d characters long; jobs name their LocalQueue in the label kueue.x-k8s.io/queue-name, whose value is at most %d characters, "+
				"so no job could use this queue. Use a shorter name, e.g. %q.", len(q.Name), maxLocalQueueNameLength, suggestLabel(q.Name))
	}
	// clusterQueue is a ClusterQueueReference: a DNS subdomain of at most 253 characters.
	validateReference(&errs, Path{"cluster_queue"}, "cluster_queue", "ClusterQueue", "mlplatform_cluster_queue.vision.name", q.ClusterQueue)
	validateStopPolicy(&errs, Path{"stop_policy"}, q.StopPolicy)
	return errs
}

// validateStopPolicy checks a queue's stop policy (ClusterQueue and
// LocalQueue stopPolicy: Enum=None;Hold;HoldAndDrain). "" is unset (None):
// the schema refuses an explicit "".
func validateStopPolicy(errs *FieldErrors, path Path, p string) {
	if p != "" && !slices.Contains(StopPolicies, p) {
		errs.add(path, "Invalid Stop Policy",
			"stop_policy %q is not one of None (admit), Hold (admit nothing new) or HoldAndDrain (also evict what is admitted)%s; leave it out for None.",
			p, didYouMean(p, StopPolicies))
	}
}
