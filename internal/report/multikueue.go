package report

// MultiKueue: a manager cluster's ClusterQueue carries an admission check of
// an mlplatform_multikueue_check, and admits a team's workloads only to
// dispatch them to worker clusters, where the same team's LocalQueue (same
// namespace and name) points at a worker ClusterQueue without that check.
// The manager's quota is what it admits; the workers' quota is what can run.
// One configuration holds every cluster (a provider alias each), and a plan
// does not say which cluster a resource is in, so a team is its LocalQueue
// namespace/name and the clusters are told apart by the MultiKueue check
// on the manager's ClusterQueue.

import (
	"fmt"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/rules"
)

// MultiKueueTeam compares, for one team, the nominal quota of its
// MultiKueue manager ClusterQueue with the sum over its workers'
// ClusterQueues, after the plan (rules.MultiKueueTeam).
type MultiKueueTeam = rules.MultiKueueTeam

// MultiKueueRow is one resource of a team (rules.MultiKueueRow).
type MultiKueueRow = rules.MultiKueueRow

// status is the row's verdict in the report's table.
func status(t MultiKueueTeam, r MultiKueueRow) string {
	switch {
	case t.NoWorker:
		return warn + "no worker queue in this plan: no worker can run what the manager admits"
	case t.NotCompared != "":
		return t.NotCompared
	case r.Manager.State == qUnknown || r.Workers.State == qUnknown:
		return "unknown until apply: quota " + unknownText
	case !r.Known():
		return "not compared: a quota is not a quantity"
	case r.Above():
		return fmt.Sprintf("%smanager above workers by %s: it admits work no worker can run", warn, r.Manager.Minus(r.Workers).Raw)
	case r.Below():
		return fmt.Sprintf("%smanager below workers by %s: workers' quota unused", warn, r.Workers.Minus(r.Manager).Raw)
	}
	return "ok"
}

func multiKueueBlocks(r Report) []any {
	if len(r.MultiKueue) == 0 {
		return nil
	}
	t := table{header: []string{"Team (LocalQueue)", "Manager ClusterQueue", "Resource", "Manager quota", "Workers' quota", "Worker ClusterQueues", "Status"}}
	for _, team := range r.MultiKueue {
		workers := unset
		if len(team.Workers) > 0 {
			workers = strings.Join(team.Workers, ", ")
		}
		if len(team.Rows) == 0 {
			t.rows = append(t.rows, []string{team.Team, strings.Join(team.Managers, ", "), unset, unset, unset, workers, status(team, MultiKueueRow{})})
			continue
		}
		for _, row := range team.Rows {
			t.rows = append(t.rows, []string{team.Team, strings.Join(team.Managers, ", "), row.Resource, row.Manager.Text(unset), row.Workers.Text(unset), workers, status(team, row)})
		}
	}
	return []any{heading{2, "MultiKueue: manager quota vs workers"}, t}
}
