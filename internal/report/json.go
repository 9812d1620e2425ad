package report

// The report as a JSON document (--format json): the same tables as the
// Markdown and text reports, for tools. Its shape is a contract, written
// down in docs/guides/report_formats.md and docs/schemas/report-v1.schema.json
// (which the tests validate the goldens against): fields are added, never
// renamed or removed, within one JSONVersion.

import (
	"encoding/json"
	"io"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// JSONVersion is the version of the JSON document's shape: raised when a
// field is renamed, removed or changes meaning.
const JSONVersion = 1

// JSON values that may be unknown until apply or absent on one side of the
// plan are the value, null (absent: the object does not exist on that side,
// or the amount does not apply), or this string.
const jsonUnknown = "known after apply"

type jsonReport struct {
	Version      int               `json:"version"`
	Summary      jsonSummary       `json:"summary"`
	Prices       jsonPrices        `json:"prices"`
	Destructive  []jsonDestructive `json:"destructive"`
	QuotaChanges []jsonQuotaGroup  `json:"quota_changes"`
	CohortQuotas []jsonQuotaRow    `json:"cohort_quotas"`
	Capacity     []jsonCapacity    `json:"capacity"`
	Cost         jsonCost          `json:"cost"`
	MultiKueue   []jsonMultiKueue  `json:"multikueue"`
	Drift        []jsonDrift       `json:"drift"`
	Checks       jsonChecks        `json:"checks"`
}

type jsonSummary struct {
	Destroys      bool `json:"destroys"`
	Overcommitted bool `json:"overcommitted"`
	Drifted       bool `json:"drifted"`
	ChecksFailed  bool `json:"checks_failed"`
}

// jsonPrices names the price table.
type jsonPrices struct {
	Source string `json:"source"`
	Date   string `json:"date"`
	Region string `json:"region"`
}

type jsonDestructive struct {
	Address  string   `json:"address"`
	Kind     string   `json:"kind"`
	Name     string   `json:"name"`
	Action   string   `json:"action"` // "replace" or "delete"
	Forcing  []string `json:"forcing"`
	GPU      string   `json:"gpu,omitempty"`
	GPUs     int64    `json:"gpus,omitempty"`
	Sentence string   `json:"sentence"`
}

type jsonDelta struct {
	Before any `json:"before"`
	After  any `json:"after"`
}

type jsonQuotaRow struct {
	Owner          string    `json:"owner"`
	Flavor         string    `json:"flavor"`
	Resource       string    `json:"resource"`
	NominalQuota   jsonDelta `json:"nominal_quota"`
	BorrowingLimit jsonDelta `json:"borrowing_limit"`
	LendingLimit   jsonDelta `json:"lending_limit"`
	NominalChange  any       `json:"nominal_change"`
	Note           string    `json:"note,omitempty"`
}

type jsonQuotaTotal struct {
	Flavor       string    `json:"flavor"`
	Resource     string    `json:"resource"`
	NominalQuota jsonDelta `json:"nominal_quota"`
	Change       any       `json:"change"`
}

type jsonQuotaGroup struct {
	Cohort string           `json:"cohort"`
	Rows   []jsonQuotaRow   `json:"rows"`
	Totals []jsonQuotaTotal `json:"totals"`
	Moves  []string         `json:"moves"`
}

type jsonCapacity struct {
	Flavor       string    `json:"flavor"`
	Topology     string    `json:"topology,omitempty"`
	Cluster      string    `json:"cluster,omitempty"`
	Admissible   jsonDelta `json:"admissible"`
	Peak         any       `json:"peak"`
	PeakQueue    string    `json:"peak_queue,omitempty"`
	Provided     jsonDelta `json:"provided"`
	Pools        []string  `json:"pools"`
	Status       string    `json:"status"`
	Overcommit   bool      `json:"overcommit"`
	OvercommitBy any       `json:"overcommit_by"`
	Objects      []string  `json:"objects"`
}

type jsonPoolCost struct {
	Pool         string    `json:"pool"`
	Accelerator  jsonDelta `json:"accelerator"`
	CapacityType jsonDelta `json:"capacity_type"`
	GPUs         jsonDelta `json:"gpus"`
	HourlyUSD    jsonDelta `json:"hourly_usd"`
	IdleFloorUSD jsonDelta `json:"idle_floor_hourly_usd"`
	WindowUSD    jsonDelta `json:"flex_start_window_usd"`
}

type jsonCost struct {
	Pools []jsonPoolCost `json:"pools"`
	Total struct {
		HourlyUSD           jsonDelta `json:"hourly_usd"`
		IdleFloorUSD        jsonDelta `json:"idle_floor_hourly_usd"`
		FloorUnknownBefore  int       `json:"idle_floor_pools_unknown_before"`
		FloorUnknownAfter   int       `json:"idle_floor_pools_unknown_after"`
		WindowUSD           jsonDelta `json:"flex_start_window_usd"`
		UnknownBefore       int       `json:"pools_unknown_before"`
		UnknownAfter        int       `json:"pools_unknown_after"`
		WindowUnknownBefore int       `json:"flex_start_pools_unknown_before"`
		WindowUnknownAfter  int       `json:"flex_start_pools_unknown_after"`
	} `json:"total"`
	WindowHours float64 `json:"flex_start_window_hours"`
}

type jsonMultiKueueRow struct {
	Resource string `json:"resource"`
	Manager  any    `json:"manager"`
	Workers  any    `json:"workers"`
}

type jsonMultiKueue struct {
	Team        string              `json:"team"`
	Managers    []string            `json:"managers"`
	Checks      []string            `json:"checks"`
	Workers     []string            `json:"workers"`
	NoWorker    bool                `json:"no_worker"`
	NotCompared string              `json:"not_compared,omitempty"`
	Rows        []jsonMultiKueueRow `json:"rows"`
}

// jsonDrift is one resource changed outside Terraform.
type jsonDrift struct {
	Address   string   `json:"address"`
	Sentences []string `json:"sentences"`
}

type jsonFinding struct {
	ID       string   `json:"id"`
	Check    string   `json:"check"`
	Severity string   `json:"severity"`
	Objects  []string `json:"objects"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
}

type jsonChecks struct {
	Count    int           `json:"count"`
	Findings []jsonFinding `json:"findings"`
}

// qtyJSON is a quantity as JSON: its text, null when absent, jsonUnknown.
func qtyJSON(q Qty) any {
	switch q.State {
	case qUnknown:
		return jsonUnknown
	case qKnown:
		return q.Raw
	}
	return nil
}

func deltaJSON(d Delta) jsonDelta { return jsonDelta{qtyJSON(d.Before), qtyJSON(d.After)} }

// moneyJSON is an amount as JSON: USD rounded to the cent, null when it
// does not apply, jsonUnknown.
func moneyJSON(m Money) any {
	switch m.State {
	case model.QUnknown:
		return jsonUnknown
	case model.QKnown:
		return float64(int64(m.USD*100+0.5)) / 100
	}
	return nil
}

func moneyDeltaJSON(d MoneyDelta) jsonDelta {
	return jsonDelta{moneyJSON(d.Before), moneyJSON(d.After)}
}

// nonNil keeps lists as [] rather than null, so a consumer never has to
// tell the two apart.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func quotaRowsJSON(rows []QuotaRow) []jsonQuotaRow {
	out := []jsonQuotaRow{}
	for _, r := range rows {
		out = append(out, jsonQuotaRow{
			Owner: r.Owner, Flavor: r.Flavor, Resource: r.Resource,
			NominalQuota: deltaJSON(r.Nominal), BorrowingLimit: deltaJSON(r.Borrowing), LendingLimit: deltaJSON(r.Lending),
			NominalChange: qtyJSON(r.NominalDelta), Note: r.Note,
		})
	}
	return out
}

// toJSON is the report as its JSON document.
func toJSON(r Report) jsonReport {
	j := jsonReport{
		Version:     JSONVersion,
		Summary:     jsonSummary{Destroys: len(r.Destructive) > 0, Overcommitted: r.Overcommitted(), Drifted: r.Drifted(), ChecksFailed: r.ChecksFailed()},
		Prices:      jsonPrices(r.Prices),
		Destructive: []jsonDestructive{}, QuotaChanges: []jsonQuotaGroup{}, Capacity: []jsonCapacity{},
		MultiKueue: []jsonMultiKueue{}, Drift: []jsonDrift{},
		CohortQuotas: quotaRowsJSON(r.CohortQuotas),
		Checks:       jsonChecks{Count: CheckCount(), Findings: []jsonFinding{}},
	}
	for _, d := range r.Destructive {
		action := "delete"
		if d.Replaced {
			action = "replace"
		}
		j.Destructive = append(j.Destructive, jsonDestructive{Address: d.Address, Kind: d.Kind, Name: d.Name, Action: action,
			Forcing: nonNil(d.Forcing), GPU: d.GPU, GPUs: d.GPUs, Sentence: d.Sentence()})
	}
	for _, g := range r.QuotaGroups {
		jg := jsonQuotaGroup{Cohort: g.Cohort, Rows: quotaRowsJSON(g.Rows), Totals: []jsonQuotaTotal{}, Moves: nonNil(g.Moves)}
		for _, t := range g.Totals {
			jg.Totals = append(jg.Totals, jsonQuotaTotal{Flavor: t.Flavor, Resource: t.Resource, NominalQuota: deltaJSON(t.Nominal), Change: qtyJSON(t.Change)})
		}
		j.QuotaChanges = append(j.QuotaChanges, jg)
	}
	for _, c := range r.Capacity {
		j.Capacity = append(j.Capacity, jsonCapacity{Flavor: c.Flavor, Topology: c.Topology, Cluster: c.Cluster,
			Admissible: deltaJSON(c.Admissible), Peak: qtyJSON(c.Peak), PeakQueue: c.PeakQueue, Provided: deltaJSON(c.Provided),
			Pools: nonNil(c.Pools), Status: c.Status, Overcommit: c.Overcommit, OvercommitBy: qtyJSON(c.OvercommitBy), Objects: nonNil(c.Objects)})
	}
	j.Cost.Pools = []jsonPoolCost{}
	for _, p := range r.Costs {
		j.Cost.Pools = append(j.Cost.Pools, jsonPoolCost{Pool: p.Pool, Accelerator: deltaJSON(p.Accelerator), CapacityType: deltaJSON(p.CapacityTyp),
			GPUs: deltaJSON(p.GPUs), HourlyUSD: moneyDeltaJSON(p.Hourly), IdleFloorUSD: moneyDeltaJSON(p.Floor), WindowUSD: moneyDeltaJSON(p.Window)})
	}
	t := r.CostTotal
	j.Cost.Total.HourlyUSD, j.Cost.Total.WindowUSD = moneyDeltaJSON(t.Hourly), moneyDeltaJSON(t.Window)
	j.Cost.Total.UnknownBefore, j.Cost.Total.UnknownAfter = t.UnknownBefore, t.UnknownAfter
	j.Cost.Total.IdleFloorUSD = moneyDeltaJSON(t.Floor)
	j.Cost.Total.FloorUnknownBefore, j.Cost.Total.FloorUnknownAfter = t.FloorUnknownBefore, t.FloorUnknown
	j.Cost.Total.WindowUnknownBefore, j.Cost.Total.WindowUnknownAfter = t.WindowUnknownBefore, t.WindowUnknown
	j.Cost.WindowHours = FlexStartWindowHours
	for _, m := range r.MultiKueue {
		jm := jsonMultiKueue{Team: m.Team, Managers: nonNil(m.Managers), Checks: nonNil(m.Checks), Workers: nonNil(m.Workers),
			NoWorker: m.NoWorker, NotCompared: m.NotCompared, Rows: []jsonMultiKueueRow{}}
		for _, row := range m.Rows {
			jm.Rows = append(jm.Rows, jsonMultiKueueRow{Resource: row.Resource, Manager: qtyJSON(row.Manager), Workers: qtyJSON(row.Workers)})
		}
		j.MultiKueue = append(j.MultiKueue, jm)
	}
	for _, d := range r.Drift {
		j.Drift = append(j.Drift, jsonDrift{Address: d.Address, Sentences: nonNil(d.Sentences)})
	}
	for _, f := range r.Checks {
		j.Checks.Findings = append(j.Checks.Findings, jsonFinding{ID: f.ID, Check: f.Check, Severity: string(f.Severity),
			Objects: nonNil(f.Objects), Message: f.Message, Fix: f.Fix})
	}
	return j
}

// renderJSON writes the report's JSON document, indented, with a final newline.
func renderJSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(toJSON(r))
}
