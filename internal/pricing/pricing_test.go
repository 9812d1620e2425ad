package pricing

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultCoversEveryAcceleratorAndCapacity(t *testing.T) {
	t.Parallel()
	d := Default()
	for _, a := range []string{"nvidia-l4", "nvidia-h100-80gb", "nvidia-h100-mega-80gb", "nvidia-tesla-a100", "nvidia-a100-80gb"} {
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
	for _, a := range []string{"nvidia-l4", "nvidia-h100-80gb", "nvidia-h100-mega-80gb", "nvidia-tesla-a100", "nvidia-a100-80gb"} {
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
