package spec

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

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

// Validate mirrors Kueue's rules for LocalQueue.
func (q LocalQueue) Validate() FieldErrors {
	var errs FieldErrors
	if q.Namespace == "" {
		errs.add(Path{"namespace"}, "Missing Namespace", "a LocalQueue lives in a namespace; set namespace to the team's namespace.")
	} else if p := validation.IsDNS1123Label(q.Namespace); len(p) > 0 {
		errs.add(Path{"namespace"}, "Invalid Namespace", "%q is not a valid namespace name: %s.", q.Namespace, strings.Join(p, "; "))
	}
	validateObjectName(&errs, Path{"name"}, "LocalQueue", q.Name)
	validateObjectName(&errs, Path{"cluster_queue"}, "ClusterQueue", q.ClusterQueue)
	validateStopPolicy(&errs, Path{"stop_policy"}, q.StopPolicy)
	return errs
}

func validateStopPolicy(errs *FieldErrors, path Path, p string) {
	if p != "" && !slices.Contains(StopPolicies, p) {
		errs.add(path, "Invalid Stop Policy", "stop_policy %q is not one of None, Hold, HoldAndDrain.", p)
	}
}
