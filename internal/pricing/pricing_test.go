package pricing

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/catalog"
)

// The new accelerators' cells, and what a pool of them costs per hour: the
// per-GPU price × GPUs per node × nodes (for T4, the GPU with an
// n1-standard-4's share of machine per GPU).
func TestDefaultNewAcceleratorPools(t *testing.T) {
	t.Parallel()
	d := Default()
	type pool struct {
		accel, capacity string
		nodes, gpus     int
	}
	got := map[pool]float64{}
	want := map[pool]float64{
		{"nvidia-h200-141gb", OnDemand, 2, 8}:  173.52,  // 2 × a3-ultragpu-8g at 86.76
		{"nvidia-h200-141gb", Spot, 2, 8}:      69.7904, // 2 × 8 × 4.3619
		{"nvidia-h200-141gb", FlexStart, 1, 8}: 43.36,
		{"nvidia-b200", OnDemand, 1, 8}:        148.2104, // a4-highgpu-8g at 148.21 (rounded per GPU)
		{"nvidia-b200", Reservation, 3, 8}:     444.6312,
		{"nvidia-tesla-t4", OnDemand, 4, 1}:    2.16, // 4 × (T4 0.35 + n1-standard-4 0.19)
		{"nvidia-tesla-t4", Spot, 1, 4}:        0.828,
	}
	for p := range want {
		usd, ok := d.PoolHourly(p.accel, p.capacity, p.nodes, p.gpus)
		if !ok {
			t.Errorf("no price for %+v", p)
		}
		got[p] = math.Round(usd*1e4) / 1e4
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pool hourly cost (-want +got):\n%s", diff)
	}
	for _, a := range []string{"nvidia-h200-141gb", "nvidia-b200"} {
		for _, c := range Capacities() {
			if p, _ := d.Lookup(a, c); !strings.Contains(p.Note, "estimate") {
				t.Errorf("%s %s: third-party figure not marked as an estimate: %q", a, c, p.Note)
			}
		}
	}
	if p, _ := d.Lookup("nvidia-tesla-t4", OnDemand); !strings.Contains(p.Note, "n1-standard-4") {
		t.Errorf("T4 note does not say which machine its price includes: %q", p.Note)
	}
}

func TestDefaultCoversEveryAcceleratorAndCapacity(t *testing.T) {
	t.Parallel()
	d := Default()
	for _, a := range catalog.Types() { // every accelerator the platform offers
		for _, c := range Capacities() {
			p, ok := d.Lookup(a, c)
			if !ok || p.USDPerGPUHour <= 0 {
				t.Errorf("%s %s: no positive default price (%v, %v)", a, c, p, ok)
			}
			if p.Note == "" {
				t.Errorf("%s %s: no source note", a, c)
			}
		}
	}
	if d.Date() == "" || d.Source() == "" || d.Region() != "us-central1" {
		t.Errorf("default table lacks provenance: date %q, region %q, source %q", d.Date(), d.Region(), d.Source())
	}
	if !strings.Contains(d.Source(), "cloud.google.com/compute/gpus-pricing") {
		t.Errorf("source does not name the GCP GPU pricing page: %q", d.Source())
	}
	// Spot is cheaper than on-demand, reservation bills at on-demand.
	for _, a := range catalog.Types() {
		od, _ := d.HourlyPerGPU(a, OnDemand)
		sp, _ := d.HourlyPerGPU(a, Spot)
		rs, _ := d.HourlyPerGPU(a, Reservation)
		if sp >= od || rs != od {
			t.Errorf("%s: on-demand %v, spot %v, reservation %v", a, od, sp, rs)
		}
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		in      string
		want    map[string]float64 // "accel/capacity" → price
		wantErr []string
	}{
		"valid": {
			in:   `{"source": "contract", "date": "2026-05-01", "prices": {"nvidia-h100-80gb": {"on_demand": 9.8, "spot": 3.9}, "nvidia-b200": {"flex_start": 7}}}`,
			want: map[string]float64{"nvidia-h100-80gb/on_demand": 9.8, "nvidia-h100-80gb/spot": 3.9, "nvidia-b200/flex_start": 7},
		},
		"not json": {
			in:      `nvidia-l4 on_demand 0.7`,
			wantErr: []string{"not valid JSON"},
		},
		"unknown field": {
			in:      `{"source": "x", "date": "2026-05-01", "price": {}}`,
			wantErr: []string{`unknown field "price"`},
		},
		"everything wrong at once": {
			in: `{"source": " ", "date": "May 2026", "prices": {"NVIDIA L4": {"on_demand": 1}, "nvidia-l4": {"ondemand": 1, "spot": -1}}}`,
			wantErr: []string{
				`"source" is missing`,
				`"date" must be the day the figures were taken, as YYYY-MM-DD; got "May 2026"`,
				`accelerator "NVIDIA L4" is not a GKE accelerator type name`,
				`nvidia-l4: unknown capacity type "ondemand": use one of on_demand, spot, flex_start, reservation`,
				`nvidia-l4 spot: price must be a non-negative number of USD per GPU-hour, got -1`,
			},
		},
		"empty prices": {
			in:      `{"source": "x", "date": "2026-05-01", "prices": {}}`,
			wantErr: []string{`"prices" is empty`},
		},
		"two values": {
			in:      `{"source": "x", "date": "2026-05-01", "prices": {"nvidia-l4": {"spot": 1}}} {}`,
			wantErr: []string{"more than one JSON value"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Load(strings.NewReader(tc.in))
			if len(tc.wantErr) > 0 {
				if err == nil {
					t.Fatalf("Load succeeded, want error containing %q", tc.wantErr)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			flat := map[string]float64{}
			for _, r := range got.Rows() {
				flat[r.Accelerator+"/"+r.Capacity] = r.USDPerGPUHour
			}
			if diff := cmp.Diff(tc.want, flat); diff != "" {
				t.Errorf("prices (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverride(t *testing.T) {
	t.Parallel()
	o, err := Load(strings.NewReader(`{"source": "contract", "date": "2026-05-01", "prices": {"nvidia-h100-80gb": {"spot": 3.5}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := Default().Override(o)
	spot, _ := got.Lookup("nvidia-h100-80gb", Spot)
	if diff := cmp.Diff(Price{USDPerGPUHour: 3.5, Note: "override: contract", Source: "contract", Date: "2026-05-01"}, spot); diff != "" {
		t.Errorf("overridden cell (-want +got):\n%s", diff)
	}
	kept, _ := got.Lookup("nvidia-h100-80gb", OnDemand)
	if kept.Source != Default().Source() || kept.Date != Default().Date() {
		t.Errorf("a cell not overridden lost the default table's provenance: source %q, date %q", kept.Source, kept.Date)
	}
	od, _ := got.HourlyPerGPU("nvidia-h100-80gb", OnDemand)
	want, _ := Default().HourlyPerGPU("nvidia-h100-80gb", OnDemand)
	if od != want {
		t.Errorf("untouched cell changed: %v, want %v", od, want)
	}
	if !strings.Contains(got.Source(), "overridden by contract (2026-05-01)") {
		t.Errorf("source does not name the override: %q", got.Source())
	}
	for _, r := range got.Rows() {
		if r.Source == "" || r.Date == "" {
			t.Errorf("row %s %s has no source or date: %+v", r.Accelerator, r.Capacity, r)
		}
	}
	if d, _ := Default().HourlyPerGPU("nvidia-h100-80gb", Spot); d == 3.5 {
		t.Error("Override changed the default table")
	}
}
