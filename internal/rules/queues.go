package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/spec"
)

func jobsOn(lqs []*model.LocalQueue, cq string) string {
	if len(lqs) == 0 {
		return "no job will ever be admitted to ClusterQueue " + cq
	}
	return "jobs submitted to " + namesOf(lqs, lqLabel) + " will never be admitted"
}

// describeSelector: "namespaces labelled mlplatform.dev/team=nlp-research".
func describeSelector(s *spec.LabelSelector) string {
	var parts []string
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+s.MatchLabels[k])
	}
	for _, e := range s.MatchExpressions {
		switch e.Operator {
		case "Exists":
			parts = append(parts, e.Key+" (any value)")
		case "DoesNotExist":
			parts = append(parts, "no "+e.Key)
		case "NotIn":
			parts = append(parts, e.Key+" not in ("+strings.Join(e.Values, ", ")+")")
		default:
			parts = append(parts, e.Key+" in ("+strings.Join(e.Values, ", ")+")")
		}
	}
	return "namespaces labelled " + strings.Join(parts, ", ")
}

// MLP001: a ClusterQueue whose namespace_selector selects none of the team
// namespaces (or is unset, which Kueue reads as none).
func checkQueueSelectsNoNamespace(c *ctx) {
	for _, q := range c.pl.Queues {
		name := q.Spec.Name
		lqs := c.lqsOf(q)
		res := append([]string{q.Label()}, labels(lqs)...)
		sel := q.Spec.NamespaceSelector
		switch {
		case q.SelectorAbsent:
			continue
		case q.Unknown.Any("namespace_selector"):
			c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s selects a team namespace: its namespace_selector is %s", name, unknownText))
			continue
		case sel == nil:
			c.add(SevError, res,
				fmt.Sprintf("%s: ClusterQueue %s has no namespace_selector, which Kueue reads as matching no namespace", jobsOn(lqs, name), name),
				"set namespace_selector to the team namespace's selector (namespace_selector = mlplatform_team_namespace.TEAM.selector); {} selects every namespace")
			continue
		case model.SelectsAll(sel) || len(model.InCluster(q.Src, c.pl.Namespaces)) == 0:
			continue // selects every namespace; or the namespaces are managed elsewhere
		}
		var unknown []string
		matched := false
		for _, ns := range model.InCluster(q.Src, c.pl.Namespaces) {
			switch {
			case ns.LabelsUnknown():
				unknown = append(unknown, ns.Label())
			case model.Selects(sel, ns.Labels):
				matched = true
			}
		}
		switch {
		case matched:
		case len(unknown) > 0:
			c.undecided(append(res, unknown...), fmt.Sprintf("could not decide whether ClusterQueue %s selects a team namespace: it selects %s, and the labels of %s are %s",
				name, describeSelector(sel), strings.Join(unknown, ", "), unknownText))
		default:
			c.add(SevError, res,
				fmt.Sprintf("%s: ClusterQueue %s selects %s, and no team namespace has that label", jobsOn(lqs, name), name, describeSelector(sel)),
				"set the ClusterQueue's namespace_selector to its team namespace's selector (mlplatform_team_namespace.TEAM.selector), or correct the team namespace's team or labels")
		}
	}
}

// MLP002: a LocalQueue in a namespace its ClusterQueue does not select.
func checkLocalQueueNamespace(c *ctx) {
	for _, l := range c.pl.LocalQueues {
		cq, nsName := lqField(l, "cluster_queue"), lqField(l, "namespace")
		if !cq.Known {
			continue // MLP003 says it could not decide
		}
		q := c.pl.Queue(l.Src, cq.S)
		if q == nil || q.SelectorAbsent || (q.Spec.NamespaceSelector == nil && !q.Unknown.Any("namespace_selector")) || model.SelectsAll(q.Spec.NamespaceSelector) {
			continue // MLP003, MLP001; or every namespace is selected
		}
		res := []string{l.Label(), q.Label()}
		sel := q.Spec.NamespaceSelector
		if q.Unknown.Any("namespace_selector") || !nsName.Known {
			c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s serves LocalQueue %s: its namespace_selector or the LocalQueue's namespace is %s", q.Spec.Name, lqLabel(l), unknownText))
			continue
		}
		selectsSome := false
		for _, ns := range model.InCluster(q.Src, c.pl.Namespaces) {
			if ns.LabelsUnknown() || model.Selects(sel, ns.Labels) {
				selectsSome = true
			}
		}
		if !selectsSome {
			continue // MLP001 reports the queue
		}
		ns := c.pl.Namespace(l.Src, nsName.S)
		switch {
		case ns == nil && c.pl.Live:
			continue // a namespace that does not exist: Kueue's own LocalQueue condition says so
		case ns == nil:
			c.undecided(res, fmt.Sprintf("could not decide whether ClusterQueue %s serves LocalQueue %s: namespace %s is not an mlplatform_team_namespace of this configuration, so its labels are not in the plan",
				q.Spec.Name, lqLabel(l), nsName.S))
		case ns.LabelsUnknown():
			c.undecided(append(res, ns.Label()), fmt.Sprintf("could not decide whether ClusterQueue %s serves LocalQueue %s: the labels of namespace %s are %s", q.Spec.Name, lqLabel(l), nsName.S, unknownText))
		case !model.Selects(sel, ns.Labels):
			team := ns.Labels[spec.TeamLabel]
			c.add(SevError, append(res, ns.Label()),
				fmt.Sprintf("jobs submitted to %s will never be admitted: its ClusterQueue %s selects %s, and namespace %s is labelled %s=%s", lqLabel(l), q.Spec.Name, describeSelector(sel), nsName.S, spec.TeamLabel, team),
				fmt.Sprintf("point the LocalQueue at the ClusterQueue of namespace %s's team, or move it to a namespace the ClusterQueue selects", nsName.S))
		}
	}
}

// MLP003: a LocalQueue naming a ClusterQueue that does not exist (in a
// plan: that is not in the configuration).
func checkLocalQueueClusterQueue(c *ctx) {
	for _, l := range c.pl.LocalQueues {
		cq := lqField(l, "cluster_queue")
		switch {
		case !cq.Known:
			c.undecided([]string{l.Label()}, fmt.Sprintf("could not decide whether LocalQueue %s's ClusterQueue is in this configuration: cluster_queue is %s", lqLabel(l), unknownText))
		case c.pl.Queue(l.Src, cq.S) != nil:
		case model.NameUnknown(c.pl.Queues, model.QueueName):
			c.undecided([]string{l.Label()}, fmt.Sprintf("could not decide whether ClusterQueue %s, named by LocalQueue %s, is in this configuration: a ClusterQueue's name is %s", cq.S, lqLabel(l), unknownText))
		case c.pl.Live:
			c.add(SevError, []string{l.Label()},
				fmt.Sprintf("jobs submitted to %s are never admitted: its ClusterQueue %s does not exist, and Kueue keeps a LocalQueue whose ClusterQueue is missing inactive", lqLabel(l), cq.S),
				"create ClusterQueue "+cq.S+" (mlplatform_cluster_queue; terraform apply puts back one deleted out of band), or point the LocalQueue's cluster_queue at one that exists")
		default:
			c.add(SevWarning, []string{l.Label()},
				fmt.Sprintf("jobs submitted to %s will never be admitted unless ClusterQueue %s exists: it is not in this configuration (if it exists in the cluster, ignore this), and Kueue keeps a LocalQueue whose ClusterQueue is missing inactive", lqLabel(l), cq.S),
				"set cluster_queue to a ClusterQueue of this configuration (mlplatform_cluster_queue.TEAM.name), or check the spelling")
		}
	}
}
