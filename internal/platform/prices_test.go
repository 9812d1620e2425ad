package platform

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mlplatform/terraform-provider-mlplatform/internal/pricing"
)

func TestLoadPrices(t *testing.T) {
	t.Parallel()
	const contract = `{"source": "contract", "date": "2026-05-01", "prices": {"nvidia-h100-80gb": {"spot": 3.5}}}`
	files := map[string]string{
		"/etc/prices.json": `{"source": "file", "date": "2026-06-01", "prices": {"nvidia-h100-80gb": {"spot": 2.5}}}`,
		"/etc/bad.json":    `{"source": "file", "date": "June", "prices": {"nvidia-h100-80gb": {"spot": 2.5}}}`,
	}
	readFile := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("open %s: %w", name, fs.ErrNotExist)
	}
	type result struct {
		Spot   float64 // nvidia-h100-80gb spot
		Source string  // of that cell
		Errs   []string
	}
	def, _ := pricing.Default().HourlyPerGPU("nvidia-h100-80gb", pricing.Spot)
	tests := map[string]struct {
		in   PriceOverride
		want result
		// wantDetail: substrings of the one error's "path: detail"
		wantDetail []string
	}{
		"unset: the default table":   {want: result{Spot: def, Source: pricing.Default().Source()}},
		"inline":                     {in: PriceOverride{Inline: contract}, want: result{Spot: 3.5, Source: "contract"}},
		"file":                       {in: PriceOverride{File: "/etc/prices.json"}, want: result{Spot: 2.5, Source: "file"}},
		"file from the environment":  {in: PriceOverride{File: "/etc/prices.json", FileFromEnv: true}, want: result{Spot: 2.5, Source: "file"}},
		"inline wins over env file":  {in: PriceOverride{Inline: contract, File: "/etc/prices.json", FileFromEnv: true}, want: result{Spot: 3.5, Source: "contract"}},
		"both in the configuration":  {in: PriceOverride{Inline: contract, File: "/etc/prices.json"}, want: result{Errs: []string{"prices"}}, wantDetail: []string{"prices and prices_file are both set"}},
		"inline not json":            {in: PriceOverride{Inline: "h100 = 3"}, want: result{Errs: []string{"prices"}}, wantDetail: []string{"not valid JSON"}},
		"inline blank":               {in: PriceOverride{Inline: "  "}, want: result{Errs: []string{"prices"}}, wantDetail: []string{"prices is blank"}},
		"file missing":               {in: PriceOverride{File: "/nope.json"}, want: result{Errs: []string{"prices_file"}}, wantDetail: []string{`prices_file is "/nope.json", which could not be read`, "relative to the directory Terraform runs in"}},
		"env file missing names env": {in: PriceOverride{File: "/nope.json", FileFromEnv: true}, want: result{Errs: []string{"prices_file"}}, wantDetail: []string{"MLPLATFORM_PRICES_FILE"}},
		"file invalid":               {in: PriceOverride{File: "/etc/bad.json"}, want: result{Errs: []string{"prices_file"}}, wantDetail: []string{`prices_file is "/etc/bad.json"`, `"date" must be the day`}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			table, errs := LoadPrices(tc.in, readFile)
			var got result
			for _, e := range errs {
				got.Errs = append(got.Errs, e.Path.String())
				for _, w := range tc.wantDetail {
					if !strings.Contains(e.Error(), w) {
						t.Errorf("error %q does not contain %q", e.Error(), w)
					}
				}
			}
			if len(errs) == 0 {
				p, _ := table.Lookup("nvidia-h100-80gb", pricing.Spot)
				got.Spot = p.USDPerGPUHour
				got.Source = p.Source
				if p.Source == "" {
					got.Source = table.Source()
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPriceTableDefaultsWhenUnset(t *testing.T) {
	t.Parallel()
	if got := (Config{}).PriceTable(); got.Source() != pricing.Default().Source() || len(got.Rows()) != len(pricing.Default().Rows()) {
		t.Errorf("zero Config's price table is not the default: %q, %d rows", got.Source(), len(got.Rows()))
	}
}
