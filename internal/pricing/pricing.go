// Package pricing holds the dated default GPU price table (USD per GPU-hour
// by accelerator type and capacity type) and loads overrides from JSON.
//
// A price is the hourly price of the whole GKE node (the accelerator-optimized
// VM: its GPUs, vCPUs, memory and bundled Local SSD) divided by its GPUs, in
// us-central1, list price without committed-use or negotiated discounts. That
// is what a node pool costs per GPU, which is what a quota of GPUs costs.
//
// The package imports nothing from Terraform; the report, the gpu_pool
// resource's estimated_hourly_cost_usd and a provider-level prices override
// all read the same Table.
package pricing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Capacity types, as mlplatform_gpu_pool's capacity attribute spells them.
const (
	OnDemand    = "on_demand"
	Spot        = "spot"
	FlexStart   = "flex_start"
	Reservation = "reservation"
)

// Capacities lists the capacity types in display order.
func Capacities() []string { return []string{OnDemand, Spot, FlexStart, Reservation} }

func validCapacity(c string) bool {
	for _, k := range Capacities() {
		if c == k {
			return true
		}
	}
	return false
}

// Price is one cell of the table: USD per GPU-hour and where the figure comes
// from. An empty Note means the table's Source covers it.
type Price struct {
	USDPerGPUHour float64
	Note          string
	// Source and Date say whose figure this cell is and the day it was taken.
	// Empty means the table's Source and Date; Override and Rows fill them in,
	// so every cell of an overridden table and every row keeps its own
	// provenance.
	Source string
	Date   string
}

// Row is one accelerator × capacity cell, for listing the table.
type Row struct {
	Accelerator string
	Capacity    string
	Price
}

// Table is a price table. The zero Table has no prices.
type Table struct {
	source string
	date   string
	region string
	prices map[string]map[string]Price // accelerator → capacity → price
}

// Source says where the figures come from.
func (t Table) Source() string { return t.source }

// Date is the day (YYYY-MM-DD) the figures were taken.
func (t Table) Date() string { return t.date }

// Region is the region the prices are for.
func (t Table) Region() string { return t.region }

// HourlyPerGPU is the price of one GPU for one hour, and whether the table has
// one for this accelerator and capacity type.
func (t Table) HourlyPerGPU(accelerator, capacity string) (float64, bool) {
	p, ok := t.prices[accelerator][capacity]
	return p.USDPerGPUHour, ok
}

// PoolHourly is what a pool of nodes nodes with gpusPerNode GPUs each costs
// per hour, and whether the table has a price for it. The pool's computed
// estimate and the report both use it, so they agree.
func (t Table) PoolHourly(accelerator, capacity string, nodes, gpusPerNode int) (float64, bool) {
	p, ok := t.HourlyPerGPU(accelerator, capacity)
	return float64(nodes*gpusPerNode) * p, ok
}

// Lookup is HourlyPerGPU with the figure's note.
func (t Table) Lookup(accelerator, capacity string) (Price, bool) {
	p, ok := t.prices[accelerator][capacity]
	return p, ok
}

// Rows lists every cell, sorted by accelerator and then capacity order, each
// with its Source and Date filled in.
func (t Table) Rows() []Row {
	var rows []Row
	for a, byCap := range t.prices {
		for _, c := range Capacities() {
			if p, ok := byCap[c]; ok {
				rows = append(rows, Row{Accelerator: a, Capacity: c, Price: t.provenance(p)})
			}
		}
	}
	order := map[string]int{}
	for i, c := range Capacities() {
		order[c] = i
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Accelerator != rows[j].Accelerator {
			return rows[i].Accelerator < rows[j].Accelerator
		}
		return order[rows[i].Capacity] < order[rows[j].Capacity]
	})
	return rows
}

// provenance fills in a cell's empty Source and Date with the table's.
func (t Table) provenance(p Price) Price {
	if p.Source == "" {
		p.Source = t.source
	}
	if p.Date == "" {
		p.Date = t.date
	}
	return p
}

// Override returns t with every cell of o replacing t's, and o's source and
// date named alongside t's. Each cell keeps the source and date it came from.
func (t Table) Override(o Table) Table {
	out := Table{source: t.source, date: t.date, region: t.region, prices: map[string]map[string]Price{}}
	for a, byCap := range t.prices {
		out.prices[a] = map[string]Price{}
		for c, p := range byCap {
			out.prices[a][c] = t.provenance(p)
		}
	}
	for a, byCap := range o.prices {
		if out.prices[a] == nil {
			out.prices[a] = map[string]Price{}
		}
		for c, p := range byCap {
			if p.Note == "" {
				p.Note = "override: " + o.source
			}
			out.prices[a][c] = o.provenance(p)
		}
	}
	if len(o.prices) > 0 {
		out.source = fmt.Sprintf("%s (%s), overridden by %s (%s)", t.source, t.date, o.source, o.date)
		if o.region != "" && o.region != t.region {
			out.region = o.region + " (overrides), " + t.region + " (defaults)"
		}
	}
	return out
}

// File is the JSON format of a price file:
//
//	{
//	  "source": "our 2026 contract",
//	  "date":   "2026-05-01",
//	  "region": "us-central1",
//	  "prices": {
//	    "nvidia-h100-80gb": { "on_demand": 9.80, "spot": 3.90 }
//	  }
//	}
//
// source and date are required so a report always says whose figures it
// used; prices are USD per GPU-hour.
type File struct {
	Source string                        `json:"source"`
	Date   string                        `json:"date"`
	Region string                        `json:"region,omitempty"`
	Prices map[string]map[string]float64 `json:"prices"`
}

var acceleratorName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Load reads a price file (see File) and validates it. Unknown fields,
// unknown capacity types, negative or non-finite prices and a missing source
// or date are errors that name what is wrong.
func Load(r io.Reader) (Table, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return Table{}, fmt.Errorf("price file is not valid JSON of the expected shape ({\"source\", \"date\", \"region\", \"prices\": {ACCELERATOR: {CAPACITY: USD}}}): %w", err)
	}
	if dec.More() {
		return Table{}, errors.New("price file has more than one JSON value: put everything in one object")
	}
	return f.Table()
}

// Table validates f and converts it.
func (f File) Table() (Table, error) {
	var errs []string
	if strings.TrimSpace(f.Source) == "" {
		errs = append(errs, `"source" is missing: say where the figures come from`)
	}
	if _, err := time.Parse(time.DateOnly, f.Date); err != nil {
		errs = append(errs, fmt.Sprintf(`"date" must be the day the figures were taken, as YYYY-MM-DD; got %q`, f.Date))
	}
	if len(f.Prices) == 0 {
		errs = append(errs, `"prices" is empty: give at least one accelerator, e.g. {"nvidia-h100-80gb": {"on_demand": 11.06}}`)
	}
	t := Table{source: f.Source, date: f.Date, region: f.Region, prices: map[string]map[string]Price{}}
	accels := make([]string, 0, len(f.Prices))
	for a := range f.Prices {
		accels = append(accels, a)
	}
	sort.Strings(accels)
	for _, a := range accels {
		if !acceleratorName.MatchString(a) {
			errs = append(errs, fmt.Sprintf("accelerator %q is not a GKE accelerator type name (lowercase letters, digits and dashes, e.g. nvidia-l4)", a))
			continue
		}
		caps := make([]string, 0, len(f.Prices[a]))
		for c := range f.Prices[a] {
			caps = append(caps, c)
		}
		sort.Strings(caps)
		if len(caps) == 0 {
			errs = append(errs, fmt.Sprintf("accelerator %q has no prices", a))
		}
		for _, c := range caps {
			v := f.Prices[a][c]
			switch {
			case !validCapacity(c):
				errs = append(errs, fmt.Sprintf("%s: unknown capacity type %q: use one of %s", a, c, strings.Join(Capacities(), ", ")))
			case math.IsNaN(v) || math.IsInf(v, 0) || v < 0:
				errs = append(errs, fmt.Sprintf("%s %s: price must be a non-negative number of USD per GPU-hour, got %v", a, c, v))
			default:
				if t.prices[a] == nil {
					t.prices[a] = map[string]Price{}
				}
				t.prices[a][c] = Price{USDPerGPUHour: v}
			}
		}
	}
	if len(errs) > 0 {
		return Table{}, fmt.Errorf("price file is invalid:\n  - %s", strings.Join(errs, "\n  - "))
	}
	return t, nil
}
