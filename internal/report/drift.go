package report

// Drift: each resource changed outside Terraform, in sentences.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/tfplan"
)

func drift(entries []ResourceChange) []DriftEntry {
	var out []DriftEntry
	for _, c := range entries {
		if c.Mode != "" && c.Mode != "managed" {
			continue
		}
		if e := driftEntry(c); len(e.Sentences) > 0 {
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

func driftEntry(c ResourceChange) DriftEntry {
	e := DriftEntry{Address: c.Address}
	before, after := tfplan.Node{V: c.Change.Before}, tfplan.Node{V: c.Change.After}
	if !strings.HasPrefix(c.Type, "mlplatform_") {
		paths := diffPaths("", c.Change.Before, c.Change.After)
		names := make([]string, 0, len(paths))
		for _, p := range paths {
			names = append(names, p.Path)
		}
		switch {
		case c.Change.After == nil:
			e.Sentences = append(e.Sentences, c.Address+" was deleted outside Terraform")
		case len(names) > 0:
			e.Sentences = append(e.Sentences, c.Address+" changed outside Terraform: "+strings.Join(names, ", "))
		}
		return e
	}
	name := c.Address
	if n, ok := before.Get("name").Str(); ok {
		name = n
	}
	who := kindOf(c.Type) + " " + name
	if ns, ok := before.Get("namespace").Str(); ok && ns != "" {
		who = kindOf(c.Type) + " " + ns + "/" + name
	}
	if after.Null() {
		e.Sentences = append(e.Sentences, who+" was deleted outside Terraform")
		return e
	}
	skip := ""
	if c.Type == "mlplatform_cluster_queue" || c.Type == "mlplatform_cohort" {
		skip = "resource_groups"
		bo, ao := driftOwner(c, tfplan.Before), driftOwner(c, tfplan.After)
		for _, row := range ownerRows(bo.Name, bo, ao) {
			e.Sentences = append(e.Sentences, quotaDriftSentences(who, row)...)
		}
		if len(e.Sentences) == 0 && !sameJSON(before.Get("resource_groups").V, after.Get("resource_groups").V) {
			skip = "" // the groups differ only in shape (e.g. order): show the paths
		}
	}
	for _, d := range diffPaths("", c.Change.Before, c.Change.After) {
		if skip != "" && (d.Path == skip || strings.HasPrefix(d.Path, skip+".") || strings.HasPrefix(d.Path, skip+"[")) {
			continue
		}
		e.Sentences = append(e.Sentences, fmt.Sprintf("%s: %s changed outside Terraform: %s → %s", who, d.Path, scalarText(d.Before), scalarText(d.After)))
	}
	return e
}

func quotaDriftSentences(who string, row QuotaRow) []string {
	var out []string
	for _, f := range []struct {
		what string
		d    Delta
	}{{"nominal quota", row.Nominal}, {"borrowing limit", row.Borrowing}, {"lending limit", row.Lending}} {
		if !f.d.changed() {
			continue
		}
		out = append(out, fmt.Sprintf("%s: %s of %s on %s changed outside Terraform: %s → %s",
			who, f.what, row.Resource, row.Flavor, f.d.Before.Text("(unset)"), f.d.After.Text("(unset)")))
	}
	return out
}

// driftOwner is a drifted ClusterQueue's or Cohort's quotas on one side,
// read by the model as every plan object is.
func driftOwner(c ResourceChange, side tfplan.Side) *quotaOwner {
	c.Change.AfterUnknown = nil
	if side == tfplan.After {
		c.Change.Before = c.Change.After
	}
	s := snapshotOf(model.FromPlan(Plan{ResourceChanges: []ResourceChange{c}}, tfplan.Before))
	for _, o := range append(s.Queues, s.Cohorts...) {
		return o
	}
	return &quotaOwner{Address: c.Address, Quotas: map[qkey]quota{}}
}
