package report

// The quota tables: each ClusterQueue and Cohort quota that changes, grouped by cohort, with the cohort totals.

import (
	"fmt"
	"sort"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
)

// byName indexes both sides' owners by name, or by address where several
// resources share a name (queues of the same team module in each cluster of
// a MultiKueue platform), so that none hides another.
func byName(before, after []*quotaOwner) (b, a map[string]*quotaOwner) {
	addrs := map[string]map[string]bool{}
	for _, o := range append(append([]*quotaOwner{}, before...), after...) {
		if addrs[o.Name] == nil {
			addrs[o.Name] = map[string]bool{}
		}
		addrs[o.Name][o.Address] = true
	}
	index := func(owners []*quotaOwner) map[string]*quotaOwner {
		m := map[string]*quotaOwner{}
		for _, o := range owners {
			if len(addrs[o.Name]) > 1 {
				m[o.Address] = o
			} else {
				m[o.Name] = o
			}
		}
		return m
	}
	return index(before), index(after)
}

// quotaRows lists the changed owner × flavor × resource quotas, by owner name
// and then in configuration order.
func quotaRows(before, after []*quotaOwner) []QuotaRow {
	b, a := byName(before, after)
	names := map[string]bool{}
	for n := range b {
		names[n] = true
	}
	for n := range a {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var rows []QuotaRow
	for _, n := range sorted {
		rows = append(rows, ownerRows(n, b[n], a[n])...)
	}
	return rows
}

func ownerRows(name string, b, a *quotaOwner) []QuotaRow {
	if a != nil && a.GroupsUnknown {
		return []QuotaRow{{Owner: name, Flavor: unknownText, Resource: unknownText,
			NominalDelta: Qty{State: qUnknown}, Note: "resource_groups known after apply"}}
	}
	empty := &quotaOwner{Quotas: map[qkey]quota{}}
	note := ""
	switch {
	case b == nil:
		b, note = empty, "new"
	case a == nil:
		a, note = empty, "removed"
	}
	var keys []qkey
	seen := map[qkey]bool{}
	for _, k := range append(append([]qkey{}, a.Keys...), b.Keys...) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	var rows []QuotaRow
	for _, k := range keys {
		bq, aq := b.Quotas[k], a.Quotas[k]
		row := QuotaRow{
			Owner: name, Flavor: k.Flavor, Resource: k.Resource, Note: note,
			Nominal:   Delta{bq.Nominal, aq.Nominal},
			Borrowing: Delta{bq.Borrowing, aq.Borrowing},
			Lending:   Delta{bq.Lending, aq.Lending},
		}
		if !row.Nominal.changed() && !row.Borrowing.changed() && !row.Lending.changed() {
			continue
		}
		row.NominalDelta = aq.Nominal.Minus(bq.Nominal)
		if note == "" {
			if _, ok := b.Quotas[k]; !ok {
				row.Note = "flavor/resource added"
			} else if _, ok := a.Quotas[k]; !ok {
				row.Note = "flavor/resource removed"
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// cohortKey names the cohort a queue belongs to, as a group label.
func cohortKey(q *quotaOwner) string {
	switch q.Parent.State {
	case qUnknown:
		return unknownText
	case qKnown:
		return q.Parent.Raw
	}
	return ""
}

func queueQuotaGroups(before, after snapshot) []QuotaGroup {
	rows := quotaRows(before.Queues, after.Queues)
	b, a := byName(before.Queues, after.Queues)
	groups := map[string]*QuotaGroup{}
	group := func(c string) *QuotaGroup {
		if groups[c] == nil {
			groups[c] = &QuotaGroup{Cohort: c}
		}
		return groups[c]
	}
	for _, row := range rows {
		q := a[row.Owner]
		if q == nil {
			q = b[row.Owner]
		}
		g := group(cohortKey(q))
		g.Rows = append(g.Rows, row)
	}
	// Queues changing cohort change both cohorts' totals even without a quota change.
	for name, aq := range a {
		bq := b[name]
		if bq == nil || cohortKey(bq) == cohortKey(aq) {
			continue
		}
		msg := fmt.Sprintf("%s moves from %s to %s", name, cohortLabel(cohortKey(bq)), cohortLabel(cohortKey(aq)))
		group(cohortKey(aq)).Moves = append(group(cohortKey(aq)).Moves, msg)
		group(cohortKey(bq)).Moves = append(group(cohortKey(bq)).Moves, msg)
		for _, g := range []*QuotaGroup{group(cohortKey(aq)), group(cohortKey(bq))} {
			g.movedKeys = append(g.movedKeys, aq.Keys...)
			g.movedKeys = append(g.movedKeys, bq.Keys...)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { // named cohorts first, then no cohort, then unknown
		ri, rj := groupRank(keys[i]), groupRank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	out := make([]QuotaGroup, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		sort.Strings(g.Moves)
		if k != "" && k != unknownText {
			g.Totals = cohortTotals(k, g.Rows, g.movedKeys, before.Queues, after.Queues)
		}
		out = append(out, *g)
	}
	return out
}

func groupRank(k string) int {
	switch k {
	case "":
		return 1
	case unknownText:
		return 2
	}
	return 0
}

func cohortLabel(c string) string {
	switch c {
	case "":
		return "no cohort"
	case unknownText:
		return "a cohort " + unknownText
	}
	return "cohort " + c
}

// cohortTotals sums the nominal quota of the cohort's member queues, before
// and after, for each flavor × resource the group's rows change.
func cohortTotals(cohort string, rows []QuotaRow, moved []qkey, before, after []*quotaOwner) []QuotaTotal {
	var keys []qkey
	seen := map[qkey]bool{}
	all := make([]qkey, 0, len(rows)+len(moved))
	for _, r := range rows {
		all = append(all, qkey{Flavor: r.Flavor, Resource: r.Resource})
	}
	for _, k := range append(all, moved...) {
		if !seen[k] && k.Flavor != unknownText {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sum := func(owners []*quotaOwner, k qkey) Qty {
		total := model.KnownQty("0")
		for _, q := range owners {
			switch {
			case q.Parent.State == qUnknown:
				// a queue whose cohort is unknown may or may not count
				if _, ok := q.Quotas[k]; ok || q.GroupsUnknown {
					return Qty{State: qUnknown}
				}
			case cohortKey(q) != cohort:
				continue
			case q.GroupsUnknown:
				return Qty{State: qUnknown}
			default:
				total = total.Plus(q.Quotas[k].Nominal)
			}
		}
		return total
	}
	out := make([]QuotaTotal, 0, len(keys))
	for _, k := range keys {
		t := QuotaTotal{Flavor: k.Flavor, Resource: k.Resource, Nominal: Delta{sum(before, k), sum(after, k)}}
		t.Change = t.Nominal.After.Minus(t.Nominal.Before)
		out = append(out, t)
	}
	return out
}

// --- capacity ----------------------------------------------------------------
