package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Format is an output format.
type Format string

// Formats.
const (
	Markdown Format = "markdown"
	Text     Format = "text"
	JSON     Format = "json"  // json.go: the report's tables as a versioned document
	SARIF    Format = "sarif" // sarif.go: results at the configuration's lines, for code scanning
)

// ParseFormat accepts "markdown" (or "md"), "text", "json" and "sarif".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "markdown", "md":
		return Markdown, nil
	case "text", "txt":
		return Text, nil
	case "json":
		return JSON, nil
	case "sarif":
		return SARIF, nil
	}
	return "", fmt.Errorf("unknown format %q: use markdown, text, json or sarif", s)
}

// The report is built as blocks, rendered by either format.
type (
	heading struct {
		level int
		text  string
	}
	para  struct{ text string }
	table struct {
		header []string
		rows   [][]string
	}
	bullets struct{ items []string }
	// mermaid is a diagram under a heading, in Markdown only (diagramBlocks).
	mermaid struct {
		heading heading
		src     string
	}
)

// warn marks a cell or item that needs attention; each format shows it its own way.
const warn = "\x00warn"

// mdOnly marks an item that only the Markdown format shows.
const mdOnly = "\x00md"

// Render writes the report; SARIF without locations (RenderSARIF with a
// Locator adds them).
func Render(w io.Writer, r Report, f Format) error {
	switch f {
	case JSON:
		return renderJSON(w, r)
	case SARIF:
		return RenderSARIF(w, r, SARIFOptions{})
	}
	var b strings.Builder
	for _, blk := range blocks(r) {
		switch x := blk.(type) {
		case heading:
			renderHeading(&b, x, f)
		case para:
			b.WriteString(markWarn(x.text, f) + "\n\n")
		case bullets:
			for _, it := range x.items {
				if strings.HasPrefix(it, mdOnly) && f != Markdown {
					continue
				}
				it = strings.TrimPrefix(it, mdOnly)
				if f == Markdown {
					b.WriteString("- " + markWarn(it, f) + "\n")
				} else {
					b.WriteString("  - " + markWarn(it, f) + "\n")
				}
			}
			b.WriteString("\n")
		case table:
			renderTable(&b, x, f)
		case mermaid:
			if f == Markdown {
				renderHeading(&b, x.heading, f)
				b.WriteString("```mermaid\n" + x.src + "```\n\n")
			}
		}
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), "\n")+"\n")
	return err
}

func markWarn(s string, f Format) string {
	if f == Markdown {
		return strings.ReplaceAll(s, warn, "⚠️ ")
	}
	return strings.ReplaceAll(s, warn, "!! ")
}

func renderHeading(b *strings.Builder, h heading, f Format) {
	if f == Markdown {
		b.WriteString(strings.Repeat("#", h.level+1) + " " + h.text + "\n\n")
		return
	}
	under := map[int]string{1: "=", 2: "-", 3: "~"}[h.level]
	b.WriteString(h.text + "\n" + strings.Repeat(under, len([]rune(h.text))) + "\n\n")
}

func renderTable(b *strings.Builder, t table, f Format) {
	if f == Markdown {
		esc := func(cells []string) string {
			out := make([]string, len(cells))
			for i, c := range cells {
				out[i] = strings.ReplaceAll(markWarn(c, f), "|", `\|`)
			}
			return "| " + strings.Join(out, " | ") + " |\n"
		}
		b.WriteString(esc(t.header))
		sep := make([]string, len(t.header))
		for i := range sep {
			sep[i] = "---"
		}
		b.WriteString("|" + strings.Join(sep, "|") + "|\n")
		for _, r := range t.rows {
			b.WriteString(esc(r))
		}
		b.WriteString("\n")
		return
	}
	width := make([]int, len(t.header))
	all := append([][]string{t.header}, t.rows...)
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(markWarn(c, f))))
		}
	}
	line := func(cells []string) {
		var parts []string
		for i, c := range cells {
			c = markWarn(c, f)
			parts = append(parts, c+strings.Repeat(" ", width[i]-len([]rune(c))))
		}
		b.WriteString("  " + strings.TrimRight(strings.Join(parts, "  "), " ") + "\n")
	}
	line(t.header)
	dashes := make([]string, len(width))
	for i, w := range width {
		dashes[i] = strings.Repeat("-", w)
	}
	line(dashes)
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
}

// --- content -----------------------------------------------------------------

const unset = "—"

func deltaText(d Delta) string {
	if !d.changed() {
		return d.After.Text(unset)
	}
	return d.Before.Text(unset) + " → " + d.After.Text(unset)
}

func usd(v float64) string {
	cents := int64(math.Round(v * 100))
	neg := cents < 0
	if neg {
		cents = -cents
	}
	whole := strconv.FormatInt(cents/100, 10)
	var g []string
	for len(whole) > 3 {
		g = append([]string{whole[len(whole)-3:]}, g...)
		whole = whole[:len(whole)-3]
	}
	g = append([]string{whole}, g...)
	s := fmt.Sprintf("$%s.%02d", strings.Join(g, ","), cents%100)
	if neg {
		return "-" + s
	}
	return s
}

func moneyText(m Money) string {
	switch m.State {
	case qAbsent:
		return unset
	case qUnknown:
		if m.Why != "" {
			return "unknown: " + m.Why
		}
		return unknownText
	}
	return usd(m.USD)
}

func moneyDeltaText(d MoneyDelta) string {
	b, a := moneyText(d.Before), moneyText(d.After)
	if b == a {
		return a
	}
	return b + " → " + a
}

func totalText(m Money, unknown int) string {
	switch {
	case m.State == qAbsent && unknown == 0:
		return unset // no pool (or no flex-start pool) on this side
	case m.State == qAbsent:
		return fmt.Sprintf("%s (%d pool(s))", unknownText, unknown)
	}
	s := usd(m.USD)
	if unknown > 0 {
		s = fmt.Sprintf("at least %s (+%d pool(s) %s)", s, unknown, unknownText)
	}
	return s
}

// totalDeltaText is a total before → after, or one value when unchanged.
func totalDeltaText(d MoneyDelta, unknownBefore, unknownAfter int) string {
	b, a := totalText(d.Before, unknownBefore), totalText(d.After, unknownAfter)
	if b == a {
		return a
	}
	return b + " → " + a
}

func blocks(r Report) []any {
	out := []any{heading{1, "mlplatform plan report"}, para{summary(r)}}
	if len(r.Destructive) > 0 {
		var items []string
		for _, d := range r.Destructive {
			items = append(items, d.Sentence())
		}
		out = append(out, heading{2, "What this plan destroys"}, bullets{items})
	}
	out = append(out, diagramBlocks(r)...)

	out = append(out, heading{2, "Quota changes"})
	if len(r.QuotaGroups) == 0 && len(r.CohortQuotas) == 0 {
		out = append(out, para{"No quota changes."})
	}
	for _, g := range r.QuotaGroups {
		title := "Cohort " + g.Cohort
		switch g.Cohort {
		case "":
			title = "Queues without a cohort"
		case unknownText:
			title = "Cohort " + unknownText
		}
		out = append(out, heading{3, title})
		if len(g.Rows) > 0 {
			out = append(out, quotaTable("ClusterQueue", g.Rows, r.Sharing))
		}
		if len(g.Moves) > 0 {
			out = append(out, bullets{g.Moves})
		}
		if len(g.Totals) > 0 {
			t := table{header: []string{"Cohort total (member queues' nominal quota)", "Resource", "Before", "After", "Change"}}
			for _, tot := range g.Totals {
				fs := sharingOf(r.Sharing, tot.Flavor, tot.Resource)
				t.rows = append(t.rows, []string{tot.Flavor, tot.Resource, tot.Nominal.Before.Text("0"), tot.Nominal.After.Text("0"), fs.inUnits(tot.Change.Signed(), tot.Change)})
			}
			out = append(out, t)
		}
	}
	if len(r.CohortQuotas) > 0 {
		out = append(out, heading{3, "Cohort quota (mlplatform_cohort, shared by the cohort's queues)"}, quotaTable("Cohort", r.CohortQuotas, r.Sharing))
	}

	out = append(out, heading{2, "Capacity check (" + gpuResource + ")"})
	if len(r.Capacity) == 0 {
		out = append(out, para{"No flavor has GPU quota."})
	} else {
		t := table{header: []string{"Flavor", "Queues may admit", "Largest single queue", "Pools provide", "Pools", "Status"}}
		for _, c := range r.Capacity {
			peak := unset
			if c.Peak.State != qAbsent {
				peak = c.PeakQueue + ": " + c.Peak.Text(unset)
			}
			status := c.Status
			if c.Overcommit {
				status = warn + status
			}
			pools := unset
			if len(c.Pools) > 0 {
				pools = strings.Join(c.Pools, ", ")
			}
			t.rows = append(t.rows, []string{r.flavorLabel(c), deltaText(c.Admissible), peak, deltaText(c.Provided), pools, status})
		}
		out = append(out, t)
		var notes []string
		for _, c := range r.Capacity {
			if fs := r.Sharing[c.Flavor]; fs != nil {
				notes = append(notes, fs.notes()...)
			}
		}
		for _, c := range r.Capacity {
			if c.Topology != "" {
				out = append(out, para{"Topology-aware: Kueue admits a gang whose pods ask for kueue.x-k8s.io/podset-required-topology on such a " +
					"flavor only with all its pods inside one domain of the level asked for, on nodes that carry the Topology's level labels; " +
					"podset-preferred-topology packs them as close as the free capacity allows."})
				break
			}
		}
		if r.poolsGrow() {
			out = append(out, para{"GPU quota is not in the plan: pools past the project's quota stay short of their max (nodes Pending). " +
				"`mlplatform doctor --plan PLAN_JSON` compares what the pools may scale to with the regional, preemptible and " +
				"all-regions GPU quota, and checks the cluster's prerequisites, before apply."})
		}
		if len(notes) > 0 {
			out = append(out, para{"GPU sharing: each MIG slice or time-sharing/MPS share is one " + gpuResource +
				" on GKE, so these flavors' quota and capacity count slices or shares, not GPUs:"}, bullets{notes})
		}
	}

	out = append(out, multiKueueBlocks(r)...)

	out = append(out, heading{2, "Cost (estimated, pools at max nodes)"})
	if len(r.Costs) == 0 {
		out = append(out, para{"No mlplatform_gpu_pool in this plan."})
	} else {
		t := table{header: []string{"Pool", "Accelerator", "Capacity", "GPUs at max", "USD per hour", "Idle floor, USD per hour (min_nodes)", "USD per " + windowDays() + " flex-start window"}}
		for _, c := range r.Costs {
			t.rows = append(t.rows, []string{c.Pool, deltaText(c.Accelerator), deltaText(c.CapacityTyp), deltaText(c.GPUs), moneyDeltaText(c.Hourly), moneyDeltaText(c.Floor), moneyDeltaText(c.Window)})
		}
		tot := r.CostTotal
		hourly := totalDeltaText(tot.Hourly, tot.UnknownBefore, tot.UnknownAfter)
		floor := totalDeltaText(tot.Floor, tot.FloorUnknownBefore, tot.FloorUnknown)
		window := totalDeltaText(tot.Window, tot.WindowUnknownBefore, tot.WindowUnknown)
		t.rows = append(t.rows, []string{"Total", "", "", "", hourly, floor, window})
		out = append(out, t)
	}
	if len(r.SlicedPools) > 0 {
		t := table{header: []string{"Sliced or shared pool", "GPU sharing", gpuResource + " per node", gpuResource + " at max", "USD per GPU-hour", "USD per slice- or share-hour"}}
		for _, p := range r.SlicedPools {
			t.rows = append(t.rows, []string{p.Pool, pairText(p.Slicing[0], p.Slicing[1]), deltaText(p.PerNode), deltaText(p.AtMax), moneyDeltaText(p.PerGPU), moneyDeltaText(p.PerUnit)})
		}
		out = append(out, t)
	}
	out = append(out, para{fmt.Sprintf("Prices: USD per GPU-hour of the whole node, %s, taken %s. Source: %s.", r.Prices.Region, r.Prices.Date, r.Prices.Source)})

	out = append(out, heading{2, "Drift (changed outside Terraform)"})
	if len(r.Drift) == 0 {
		out = append(out, para{"No changes outside Terraform."})
	} else {
		var items []string
		for _, d := range r.Drift {
			items = append(items, d.Sentences...)
		}
		out = append(out, bullets{items})
	}

	out = append(out, checkBlocks(r)...)

	howTo := []string{
		"a → b is before → after; " + unset + " is unset (a quota not granted; no borrowing limit; lends all unused quota); " +
			unknownText + " is a value Terraform learns only during apply and is never guessed. Quantities are compared by value (16 = 16000m).",
		"Queues may admit: the sum of the nominal " + gpuResource + " quota of every ClusterQueue and Cohort on the flavor. " +
			"Borrowing moves unused quota between members of a cohort tree but never adds to it, so this sum is the most the queues can hold at once.",
		"Largest single queue: its nominal quota plus what it may borrow, which is its borrowing_limit (unset: no limit) capped by what the rest of " +
			"its cohort can lend (each other member's lending_limit, or its whole nominal quota when unset, plus the cohort's own quota); parent cohorts are not counted.",
		"Pools provide: autoscaling.max_nodes × gpu.count summed over the mlplatform_gpu_pool resources the flavor stands for: those whose nodes carry every one of its node_labels. " +
			"Over-commit: the queues may admit more GPUs than the pools can provide.",
		"Cost: max_nodes × gpu.count × the price per GPU-hour for the pool's accelerator and capacity type; the " + windowDays() + " window (" + strconv.FormatFloat(FlexStartWindowHours, 'f', -1, 64) + " hours, " +
			"the longest a flex-start node runs) is shown for flex-start pools only. Idle floor: min_nodes × gpu.count × the same price, what the pool costs when nothing runs " +
			"(the nodes the autoscaler may not remove; mlplatform doctor reports a live pool's floor as DOC022).",
	}
	howTo = append(howTo[:1], append(diagramHowTo(r), howTo[1:]...)...) // the diagram comes first
	if len(r.Sharing) > 0 || len(r.SlicedPools) > 0 {
		howTo = append(howTo,
			"GPU sharing: a MIG-partitioned (gpu.partition_size), time-shared or MPS (gpu.sharing) pool's node reports allocatable_gpus_per_node = "+
				"gpu.count × partitions per GPU × clients per GPU as "+gpuResource+", so Pools provide counts max_nodes × allocatable_gpus_per_node "+
				"and a quota on its flavor counts slices (MIG, with or without sharing) or shares (sharing without MIG); (= n GPU) is the whole-GPU equivalent. "+
				"USD per slice- or share-hour is the GPU-hour price ÷ slices or shares per GPU; the pool's cost is unchanged. "+
				"A job with no node selector may be given a sliced flavor listed first in its queue: order the flavors or taint the pools.")
	}
	if len(r.MultiKueue) > 0 {
		howTo = append(howTo,
			"MultiKueue: a team is a LocalQueue namespace/name whose ClusterQueue carries an mlplatform_multikueue_check (the manager); its workers are the "+
				"ClusterQueues without one behind the LocalQueues of the same namespace and name. Manager quota and workers' quota are nominal quota summed over "+
				"all flavors (the workers' over all of them), after the plan. A resource's cluster is its provider configuration (the plan's provider_config_key, "+
				"e.g. mlplatform.europe): names are looked up in the referring resource's cluster, then its module. The capacity check compares each cluster's "+
				"queues with its own pools and leaves the manager's ClusterQueues out: what they admit runs in the workers.")
	}
	out = append(out, heading{2, "How to read this report"}, bullets{howTo})
	return out
}

// pairText is before → after for text that may be absent ("") on a side.
func pairText(b, a string) string {
	if b == "" {
		b = unset
	}
	if a == "" {
		a = unset
	}
	if b == a {
		return a
	}
	return b + " → " + a
}

// sharingOf is the flavor's sharing when the row counts nvidia.com/gpu.
func sharingOf(m map[string]*FlavorSharing, flavor, resource string) *FlavorSharing {
	if resource != gpuResource {
		return nil
	}
	return m[flavor]
}

func quotaTable(owner string, rows []QuotaRow, sharing map[string]*FlavorSharing) table {
	t := table{header: []string{owner, "Flavor", "Resource", "Nominal", "Borrowing limit", "Lending limit", "Δ nominal"}}
	for _, r := range rows {
		name := r.Owner
		if r.Note != "" {
			name += " (" + r.Note + ")"
		}
		fs := sharingOf(sharing, r.Flavor, r.Resource)
		nominal := deltaText(r.Nominal)
		if fs != nil && r.Nominal.After.State == qKnown {
			nominal = fs.inUnits(nominal, r.Nominal.After)
		}
		t.rows = append(t.rows, []string{name, r.Flavor, r.Resource, nominal, deltaText(r.Borrowing), deltaText(r.Lending), fs.inUnits(r.NominalDelta.Signed(), r.NominalDelta)})
	}
	return t
}

func summary(r Report) string {
	n := 0
	for _, g := range r.QuotaGroups {
		n += len(g.Rows)
	}
	parts := []string{fmt.Sprintf("%d queue quota change(s)", n)}
	if len(r.CohortQuotas) > 0 {
		parts = append(parts, fmt.Sprintf("%d cohort quota change(s)", len(r.CohortQuotas)))
	}
	var over []string
	for _, c := range r.Capacity {
		if c.Overcommit {
			over = append(over, r.flavorLabel(c))
		}
	}
	if len(over) > 0 {
		parts = append(parts, warn+"over-commit on "+strings.Join(over, ", "))
	} else {
		parts = append(parts, "no over-commit found")
	}
	if len(r.Costs) > 0 {
		parts = append(parts, "pools at max: "+totalDeltaText(r.CostTotal.Hourly, r.CostTotal.UnknownBefore, r.CostTotal.UnknownAfter)+" per hour")
	}
	if len(r.Drift) > 0 {
		parts = append(parts, fmt.Sprintf("%sdrift on %d resource(s)", warn, len(r.Drift)))
	} else {
		parts = append(parts, "no drift")
	}
	return strings.Join(parts, " · ") + "."
}

// windowDays is the flex-start window as "7-day".
func windowDays() string {
	return strconv.FormatFloat(FlexStartWindowHours/24, 'f', -1, 64) + "-day"
}

// poolsGrow says whether the plan lets a flavor's pools provide more GPUs
// than before (a pool added or its max raised): what GPU quota may cap.
func (r Report) poolsGrow() bool {
	for _, c := range r.Capacity {
		if c.Provided.After.State == qKnown && c.Provided.Before.OrZero().Less(c.Provided.After) {
			return true
		}
	}
	return false
}
