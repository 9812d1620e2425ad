package report

// The cost table: each pool at its maximum size, priced from the price table.

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/model"
	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

// poolFloor is what the pool costs per hour when nothing runs: min_nodes ×
// gpu.count × the price per GPU-hour, the same figure doctor's DOC022 gives
// a live pool.
func poolFloor(p *poolState, prices pricing.Table) Money {
	if p == nil {
		return Money{}
	}
	if p.Capacity == "" || p.GPUType == "" {
		return Money{State: qUnknown, Why: "gpu type or capacity " + unknownText}
	}
	if _, ok := prices.HourlyPerGPU(p.GPUType, p.Capacity); !ok {
		return Money{State: qUnknown, Why: fmt.Sprintf("no price for %s %s: add it with --prices", p.GPUType, p.Capacity)}
	}
	if !p.MinKnown || !p.CountKnown {
		return Money{State: qUnknown, Why: "min_nodes " + unknownText}
	}
	usd, _ := prices.PoolHourly(p.GPUType, p.Capacity, int(p.MinNodes), int(p.GPUCount))
	return Money{State: qKnown, USD: usd}
}

func poolCost(p *poolState, prices pricing.Table) (hourly, window Money) {
	if p == nil {
		return Money{}, Money{}
	}
	if p.Capacity == "" || p.GPUType == "" {
		return Money{State: qUnknown, Why: "gpu type or capacity " + unknownText}, Money{State: qUnknown}
	}
	window = Money{}
	if _, ok := prices.HourlyPerGPU(p.GPUType, p.Capacity); !ok {
		m := Money{State: qUnknown, Why: fmt.Sprintf("no price for %s %s: add it with --prices", p.GPUType, p.Capacity)}
		if p.Capacity == pricing.FlexStart {
			window = m
		}
		return m, window
	}
	if !p.MaxKnown || !p.CountKnown {
		m := Money{State: qUnknown, Why: "pool size " + unknownText}
		if p.Capacity == pricing.FlexStart {
			window = m
		}
		return m, window
	}
	usd, _ := prices.PoolHourly(p.GPUType, p.Capacity, int(p.MaxNodes), int(p.GPUCount))
	hourly = Money{State: qKnown, USD: usd}
	if p.Capacity == pricing.FlexStart {
		window = Money{State: qKnown, USD: hourly.USD * FlexStartWindowHours}
	}
	return hourly, window
}

// poolsByLabel indexes both sides' pools by label, in label order: a pool's
// name, or where pools of different addresses share a name (one per cluster
// of a MultiKueue platform) the name and the pool's project/location/cluster,
// or its address when those do not tell them apart. Pools are never merged
// by name alone.
func poolsByLabel(before, after []*poolState) (b, a map[string]*poolState, sorted []string) {
	addrs := map[string]map[string]bool{}
	where := map[string]map[string]string{} // name → where → address
	for _, p := range append(append([]*poolState{}, before...), after...) {
		if addrs[p.Name] == nil {
			addrs[p.Name], where[p.Name] = map[string]bool{}, map[string]string{}
		}
		addrs[p.Name][p.Address] = true
		if p.Where != "" {
			if other, seen := where[p.Name][p.Where]; !seen || other == p.Address {
				where[p.Name][p.Where] = p.Address
			} else {
				where[p.Name][p.Where] = "" // two addresses at one place: use addresses
			}
		}
	}
	label := func(p *poolState) string {
		if len(addrs[p.Name]) <= 1 {
			return p.Name
		}
		if p.Where != "" && where[p.Name][p.Where] == p.Address {
			return p.Name + " (" + p.Where + ")"
		}
		return p.Address
	}
	b, a = map[string]*poolState{}, map[string]*poolState{}
	labels := map[string]bool{}
	for _, p := range before {
		b[label(p)], labels[label(p)] = p, true
	}
	for _, p := range after {
		a[label(p)], labels[label(p)] = p, true
	}
	sorted = make([]string, 0, len(labels))
	for n := range labels {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	return b, a, sorted
}

func costs(before, after snapshot, prices pricing.Table) ([]PoolCost, CostTotal) {
	b, a, sorted := poolsByLabel(before.Pools, after.Pools)
	var out []PoolCost
	var total CostTotal
	add := func(t *Money, m Money, unknown *int) {
		switch m.State {
		case qKnown:
			t.State = qKnown
			t.USD += m.USD
		case qUnknown:
			*unknown++
		}
	}
	for _, n := range sorted {
		pc := PoolCost{Pool: n}
		pc.Hourly.Before, pc.Window.Before = poolCost(b[n], prices)
		pc.Hourly.After, pc.Window.After = poolCost(a[n], prices)
		pc.Floor = MoneyDelta{poolFloor(b[n], prices), poolFloor(a[n], prices)}
		pc.Accelerator = Delta{poolText(b[n], func(p *poolState) string { return p.GPUType }), poolText(a[n], func(p *poolState) string { return p.GPUType })}
		pc.CapacityTyp = Delta{poolText(b[n], func(p *poolState) string { return p.Capacity }), poolText(a[n], func(p *poolState) string { return p.Capacity })}
		pc.GPUs = Delta{poolGPUs(b[n]), poolGPUs(a[n])}
		add(&total.Hourly.Before, pc.Hourly.Before, &total.UnknownBefore)
		add(&total.Hourly.After, pc.Hourly.After, &total.UnknownAfter)
		add(&total.Floor.Before, pc.Floor.Before, &total.FloorUnknownBefore)
		add(&total.Floor.After, pc.Floor.After, &total.FloorUnknown)
		add(&total.Window.Before, pc.Window.Before, &total.WindowUnknownBefore)
		add(&total.Window.After, pc.Window.After, &total.WindowUnknown)
		out = append(out, pc)
	}
	return out, total
}

func poolText(p *poolState, f func(*poolState) string) Qty {
	if p == nil {
		return Qty{}
	}
	if s := f(p); s != "" {
		return model.TextQty(s)
	}
	return Qty{State: qUnknown}
}

func poolGPUs(p *poolState) Qty {
	if p == nil {
		return Qty{}
	}
	return p.gpus()
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// --- drift -------------------------------------------------------------------
